//go:build !race

package sandbox

// bigRepo is the size of TestFUSE_GitBigRepository's repository: issue 15's
// 10,000 files and 500 commits.
const bigRepoFiles, bigRepoCommits = 10000, 500

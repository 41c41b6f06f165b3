//go:build race

package sandbox

// bigRepo is the size of TestFUSE_GitBigRepository's repository under the
// race detector: a tenth of the files, 50 commits. At full size the real
// git in the sandbox took 3m43s on the FUSE mount under -race (38 s
// without), its FUSE server being this test process; the full size runs
// without -race.
const bigRepoFiles, bigRepoCommits = 1000, 50

// Package s3test starts a real S3-compatible server for tests: versitygw
// (github.com/versity/versitygw, pinned by internal/share/testdata/versitygw/
// go.mod, which keeps its dependencies out of desk's go.mod) with its POSIX
// backend on a temporary directory, on a loopback port. The binary is built
// once per test process with the go command that runs the tests (the Go
// build cache makes later builds a link only).
package s3test

package testenv

import (
	"bufio"
	"os/exec"
	"testing"
)

// FirstLine starts cmd (a child process a test drives, often the test
// binary itself) with its stdout on a pipe, and returns the first line the
// child writes there, its newline included, with the error reading it.
// Failing to start cmd fails the test. The caller ends the child.
func FirstLine(t testing.TB, cmd *exec.Cmd) (string, error) {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return bufio.NewReader(out).ReadString('\n')
}

package gitws

import (
	"context"
	"fmt"
	"testing"
)

// TestCheckoutBatches checks out trees through the batched writes: 3,000
// files (three batches), an executable, and a batch that fails (an empty
// directory where a file goes, which only the file-by-file path removes)
// and is redone file by file; every file ends with its content and mode,
// and status is clean.
func TestCheckoutBatches(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.ok("/w", "init", "-q")
	s.write("/w/keep.txt", "keep\n")
	s.ok("/w", "add", "-A")
	s.ok("/w", "commit", "-q", "-m", "base")
	s.ok("/w", "branch", "small")
	const n = 3000
	for i := 0; i < n; i++ {
		s.write(fmt.Sprintf("/w/d%02d/f%04d.txt", i%30, i), fmt.Sprintf("file %d\n", i))
	}
	s.write("/w/run.sh", "#!/bin/sh\n")
	if err := s.fs.Chmod(ctx, "/w/run.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	s.write("/w/b", "b is a file\n")
	s.ok("/w", "add", "-A")
	s.ok("/w", "commit", "-q", "-m", "big")
	s.ok("/w", "checkout", "-q", "small")
	if _, err := s.fs.Stat(ctx, "/w/d00"); err == nil {
		t.Fatal("d00 is still there after checking out small")
	}
	// An empty directory where the file b goes: its batch fails and is
	// written file by file.
	if err := s.fs.MkdirAll(ctx, "/w/b", 0o755); err != nil {
		t.Fatal(err)
	}
	s.ok("/w", "checkout", "-q", "master")
	for _, i := range []int{0, 1023, 1024, 2047, 2999} {
		p := fmt.Sprintf("/w/d%02d/f%04d.txt", i%30, i)
		wantEq(t, p, s.read(p), fmt.Sprintf("file %d\n", i))
	}
	wantEq(t, "b", s.read("/w/b"), "b is a file\n")
	fi, err := s.fs.Stat(ctx, "/w/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode %v, want 0755", fi.Mode().Perm())
	}
	wantEq(t, "status", s.ok("/w", "status", "--porcelain"), "")
	wantEq(t, "ls-files", fmt.Sprint(len(s.ok("/w", "ls-files")) > 0), "true")
	// A clone checks out through the same path.
	s.ok("/", "clone", "-q", "/w", "/c")
	wantEq(t, "clone status", s.ok("/c", "status", "--porcelain"), "")
	wantEq(t, "clone file", s.read("/c/d29/f2999.txt"), "file 2999\n")
}

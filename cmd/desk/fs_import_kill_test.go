package main

import (
	"archive/tar"
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/vfs"
)

// progressLine is a progress report of desk fs import (not its summary).
var progressLine = regexp.MustCompile(`^desk fs import: \d+ files, \d+ entries, `)

// TestFSImport_KilledLeavesNoStaging kills a real `desk fs import` (a
// process of its own) with -9 while it is under way: it has printed a
// progress line, and is waiting for more of the tar archive the test feeds
// it. Its staging directory is left in the store; the next open for writing
// removes it, and the workspace holds what it held before.
func TestFSImport_KilledLeavesNoStaging(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ws.db")
	mustDesk(t, nil, "fs", "-db", db, "import", "-q", "-C", "/proj", makeTree(t))
	before := mustDesk(t, nil, "fs", "-db", db, "export", "-q", "-C", "/proj")

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "fs", "-db", db, "import", "--progress", "-C", "/big", "-")
	cmd.Env = append(os.Environ(), envTestRunDesk+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	progress, eof := make(chan string, 1), make(chan struct{})
	var errLines []string
	go func() {
		defer close(eof)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errLines = append(errLines, sc.Text())
			if progressLine.MatchString(sc.Text()) {
				select {
				case progress <- sc.Text():
				default:
				}
			}
		}
	}()
	// Feed entries until the import reports progress, then stop feeding
	// (without ending the archive): the import waits, under way.
	stop, fed := make(chan struct{}), make(chan int, 1)
	go func() {
		tw := tar.NewWriter(stdin)
		n := 0
		defer func() { fed <- n }()
		for ; n < 5_000_000; n++ { // a bound on the load, never reached
			select {
			case <-stop:
				return
			default:
			}
			body := fmt.Sprintf("file %d\n", n)
			hdr := &tar.Header{Name: fmt.Sprintf("d%03d/f%d", n%500, n), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: time.Unix(1700000000, 0)}
			if tw.WriteHeader(hdr) != nil {
				return
			}
			if _, err := tw.Write([]byte(body)); err != nil {
				return
			}
		}
	}()
	select {
	case line := <-progress:
		t.Logf("the import said %q", line)
	case <-eof:
		close(stop)
		cmd.Wait()
		t.Fatalf("desk fs import ended before reporting progress:\n%s", strings.Join(errLines, "\n"))
	case <-time.After(2 * time.Minute):
		t.Fatal("no progress line from desk fs import in 2 minutes (hang guard)")
	}
	close(stop)
	cmd.Process.Kill()
	<-eof
	cmd.Wait()
	stdin.Close()
	t.Logf("fed %d entries", <-fed) // a feeder blocked on the full pipe ends with the kill

	// Left behind, read without cleaning (a read-only open).
	ro, err := vfs.Open(context.Background(), db, vfs.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	staged := stagingDirs(t, ro)
	ro.Close()
	if len(staged) == 0 {
		t.Fatal("the killed import left no staging directory: the test reproduced nothing")
	}
	t.Logf("left behind: %v", staged)

	// The next open for writing cleans up.
	mustDesk(t, nil, "fs", "-db", db, "mkdir", "/after")
	rw, err := vfs.Open(context.Background(), db, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if left := stagingDirs(t, rw); len(left) != 0 {
		t.Errorf("staging directories left after the reopen: %v", left)
	}
	if _, err := rw.Lstat(context.Background(), "/big"); err == nil {
		t.Error("the killed import's destination /big exists")
	}
	rep, err := rw.Check(context.Background())
	if err != nil || !rep.OK() {
		t.Errorf("check: %v %v", err, rep.Problems)
	}
	rw.Close()
	if after := mustDesk(t, nil, "fs", "-db", db, "export", "-q", "-C", "/proj"); after != before {
		t.Error("the workspace's /proj changed")
	}
}

// stagingDirs lists the root's import staging directories.
func stagingDirs(t *testing.T, fsys *vfs.FS) []string {
	t.Helper()
	ents, err := fsys.ReadDir(context.Background(), "/")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name, fsio.StagingPrefix) {
			out = append(out, e.Name)
		}
	}
	return out
}

package run

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// crashEnv makes this test binary, re-executed, the child of
// TestCrash_ExecutionEndDurable: it opens the store named by the variable,
// runs one execution writing crashFiles files through handles (closed, never
// synced), prints "DONE id" once Wait returned, and then waits to be killed.
const crashEnv = "DESK_RUN_CRASH_CHILD"

const crashFiles = 300

func TestMain(m *testing.M) {
	if db := os.Getenv(crashEnv); db != "" {
		crashChild(db)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func crashChild(db string) {
	ctx := context.Background()
	fsys, err := vfs.Open(ctx, db, vfs.Options{})
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	// A long delay: nothing but the execution's end commits its changes.
	r, err := Open(ctx, fsys, map[string]Backend{"mini": newMini()}, Options{DefaultBackend: "mini", CommitDelay: time.Hour})
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	var src strings.Builder
	src.WriteString("mkdir /out\n")
	for i := range crashFiles {
		fmt.Fprintf(&src, "writeh /out/f%03d content of file %d\n", i, i)
	}
	x, err := r.Exec(ctx, src.String(), ExecOptions{})
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	res, err := x.Wait(ctx)
	if err != nil || res.Status != StatusCompleted || res.ExitCode != 0 {
		fmt.Println("ERR", err, res.Status, res.Error)
		return
	}
	fmt.Println("DONE", x.ID(), len(res.Changes.Created))
	select {}
}

// TestCrash_ExecutionEndDurable checks the execution contract with batched
// file changes (Job.FS is a vfs.FS.WithBatching handle): once Wait reported
// the end, everything the execution wrote is durable. The child is killed
// with SIGKILL as soon as it printed that Wait returned; the reopened store
// passes Check and holds every file, and the record says completed.
func TestCrash_ExecutionEndDurable(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "ws.db")
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+db)
	cmd.Stderr = os.Stderr
	line, err := testenv.FirstLine(t, cmd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var id string
	var created int
	if _, err := fmt.Sscanf(line, "DONE %s %d", &id, &created); err != nil {
		t.Fatalf("child said %q", line)
	}
	if created != crashFiles+1 {
		t.Fatalf("change set created %d paths, want %d", created, crashFiles+1)
	}
	c := ctx(t)
	fsys, err := vfs.Open(c, db, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	rep, err := fsys.Check(c)
	if err != nil || !rep.OK() {
		t.Fatalf("check after kill: %v %v", err, rep.Problems)
	}
	for i := range crashFiles {
		p := fmt.Sprintf("/out/f%03d", i)
		b, err := fsys.ReadFile(c, p)
		if want := fmt.Sprintf("content of file %d", i); err != nil || string(b) != want {
			t.Fatalf("%s after kill: %q, %v; want %q", p, b, err, want)
		}
	}
	r, err := Open(c, fsys, map[string]Backend{"mini": newMini()}, Options{DefaultBackend: "mini"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	info, err := r.Get(c, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != StatusCompleted {
		t.Fatalf("record after kill: %s %s", info.Status, info.Error)
	}
}

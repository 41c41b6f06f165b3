package fusefs_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// requestLog collects go-fuse's debug log (one "rx N: OPCODE ..." line per
// request the kernel sent).
type requestLog struct {
	testenv.SyncBuffer
}

var rxLine = regexp.MustCompile(`rx \d+: ([A-Z_]+)`)

// take returns the number of requests of each opcode logged since the last
// call.
func (l *requestLog) take() map[string]int {
	m := map[string]int{}
	for _, x := range rxLine.FindAllStringSubmatch(l.Take(), -1) {
		m[x[1]]++
	}
	return m
}

// TestRoundTrips counts the FUSE requests common operations cost, so that a
// change that adds round trips (each ~30 µs of CPU on a VM) is noticed. The
// bounds are the synchronous requests only: RELEASE and FORGET are sent
// after the system call returned and may be counted a step late.
func TestRoundTrips(t *testing.T) {
	rl := &requestLog{}
	e := newEnv(t, vfs.Options{}, fusefs.Options{Debug: true, Logger: log.New(rl, "", 0)})
	d := e.path("d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	x := e.path("x")
	if err := os.WriteFile(x, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 50
	name := func(i int) string { return filepath.Join(d, fmt.Sprint(i)) }
	rl.take()

	check := func(step string, got map[string]int, max map[string]int) {
		t.Helper()
		t.Logf("%s: %v", step, got)
		for op, c := range got {
			if op == "RELEASE" || op == "FORGET" || op == "BATCH_FORGET" {
				continue
			}
			lim, ok := max[op]
			if !ok {
				t.Errorf("%s: %d unexpected %s requests", step, c, op)
			} else if c > lim {
				t.Errorf("%s: %d %s requests, want at most %d", step, c, op, lim)
			}
		}
	}

	for i := range n {
		f, err := os.Create(name(i))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	// The directory's GETATTR is the kernel's permission check
	// (default_permissions) after its own change to the directory.
	check("create+close", rl.take(), map[string]int{"LOOKUP": n, "CREATE": n, "FLUSH": n, "GETATTR": n})

	for i := range n {
		if _, err := os.Lstat(name(i)); err != nil {
			t.Fatal(err)
		}
	}
	check("stat (cached)", rl.take(), map[string]int{"GETATTR": 1})

	for i := range n {
		if _, err := os.ReadFile(name(i)); err != nil {
			t.Fatal(err)
		}
	}
	// No FLUSH: read-only opens are FOPEN_NOFLUSH.
	check("read", rl.take(), map[string]int{"OPEN": n, "READ": n, "GETATTR": n})

	for i := range n {
		if err := os.Mkdir(name(n+i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	check("mkdir", rl.take(), map[string]int{"LOOKUP": n, "MKDIR": n, "GETATTR": n})

	walk := func() {
		t.Helper()
		err := filepath.Walk(d, func(p string, _ os.FileInfo, err error) error { return err })
		if err != nil {
			t.Fatal(err)
		}
	}
	walk()
	// Directories are read without handles: no OPENDIR after the first
	// (refused), no RELEASEDIR.
	check("walk", rl.take(), map[string]int{"OPENDIR": 1, "READDIRPLUS": 3 * (n + 1), "GETATTR": n + 2})
	walk()
	// Listings and attributes come from the kernel's caches; a directory's
	// GETATTR is its lstat after its atime was invalidated by the read.
	check("walk again", rl.take(), map[string]int{"GETATTR": n + 2})

	for i := range n {
		if err := os.Remove(name(i)); err != nil {
			t.Fatal(err)
		}
	}
	check("remove", rl.take(), map[string]int{"UNLINK": n, "GETATTR": n})

	if err := os.Chmod(x, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(x); err != nil {
		t.Fatal(err)
	}
	// The SETATTR reply's attributes are cached: the stat costs nothing.
	check("chmod+stat", rl.take(), map[string]int{"SETATTR": 1})
}

package fusefs_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// tgid returns the process (thread group) of thread id: FUSE requests carry
// the calling thread's id.
func tgid(id uint32) uint32 {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(int(id)) + "/status")
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return uint32(n)
		}
	}
	return 0
}

// TestActorOf: changes through the mount carry the actor Options.ActorOf
// names for the calling process (here: this one), including the writes of
// a file opened for writing; reads never ask; without a name the mount's
// Actor is used.
func TestActorOf(t *testing.T) {
	me := uint32(os.Getpid())
	var named atomic.Bool
	var asked atomic.Int32
	named.Store(true)
	e := newEnv(t, vfs.Options{}, fusefs.Options{Actor: "mount", ActorOf: func(pid uint32) string {
		asked.Add(1)
		if tgid(pid) == me && named.Load() {
			return "exec-" + strconv.Itoa(int(me))
		}
		return ""
	}})
	seq := e.store.Seq()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(e.path("d"), 0o755))
	must(os.WriteFile(e.path("d/f"), []byte("hello"), 0o644))
	must(os.Chmod(e.path("d/f"), 0o600))
	must(os.Rename(e.path("d/f"), e.path("d/g")))
	before := asked.Load()
	if _, err := os.ReadFile(e.path("d/g")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(e.path("d/g")); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load() - before; n != 0 {
		t.Errorf("ActorOf asked %d times for a read and a stat", n)
	}
	named.Store(false)
	must(os.Remove(e.path("d/g")))
	chs, err := e.store.Changes(context.Background(), seq, 100)
	must(err)
	want := "exec-" + strconv.Itoa(int(me))
	var ops []string
	for _, c := range chs {
		ops = append(ops, string(c.Op)+" "+c.Path+" "+c.Actor)
		wantActor := want
		if c.Op == vfs.OpRemove {
			wantActor = "mount"
		}
		if c.Actor != wantActor {
			t.Errorf("%s %s by %q, want %q", c.Op, c.Path, c.Actor, wantActor)
		}
	}
	if len(chs) < 5 {
		t.Errorf("changes: %v", ops)
	}
}

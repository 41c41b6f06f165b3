package jsvm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// tidBlocker is a blocker whose function also reports the OS thread it runs
// on: the engine's.
type tidBlocker struct {
	tid     chan int
	release chan struct{}
}

func (m *tidBlocker) Functions(context.Context, *run.Job) map[string]HostFunc {
	return map[string]HostFunc{"block": func(context.Context, json.RawMessage) (json.RawMessage, error) {
		m.tid <- syscall.Gettid()
		<-m.release
		return nil, nil
	}}
}

// threadNice returns the nice value of this process's thread tid.
func threadNice(t *testing.T, tid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command name (which is in parentheses): state is
	// field 3, nice field 19.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(f[19-3])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestStuckEngineThreadPriority: the thread of an engine left running gets
// nice 19, and running engines keep the process's priority.
func TestStuckEngineThreadPriority(t *testing.T) {
	m := &tidBlocker{tid: make(chan int), release: make(chan struct{})}
	b := newBackend(t, Options{HostModules: map[string]HostModule{"test:block": m}})
	w := watchEngines(b)
	fsys := newStore(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan result, 1)
	go func() { done <- runJS(ctx, b, fsys, job{src: "import { block } from 'test:block'; await block();"}) }()
	tid := <-m.tid
	base := threadNice(t, syscall.Gettid())
	if n := threadNice(t, tid); n != base {
		t.Fatalf("a running engine's thread has nice %d, the test's %d", n, base)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return (hang guard: 1m)")
	}
	if n := threadNice(t, tid); n != 19 {
		t.Fatalf("the stuck engine's thread has nice %d, want 19", n)
	}
	close(m.release)
	w.wait(t, 1, time.Minute)
}

package sandbox

import (
	"context"
	"sync"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

// accessTable keeps the path rules of the executions running in a
// backend's sandboxes (vfs.AccessFrom of their Run context: package
// policy's, set by run's Gate), for the workspace mounts' checks.
type accessTable struct {
	mu sync.Mutex
	m  map[string]map[string]vfs.Access // workspace → execution id → rules
}

// track records the rules of execution id of workspace ws until the
// returned func is called; nil rules record nothing.
func (t *accessTable) track(ws, id string, a vfs.Access) func() {
	if a == nil {
		return func() {}
	}
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]map[string]vfs.Access{}
	}
	if t.m[ws] == nil {
		t.m[ws] = map[string]vfs.Access{}
	}
	t.m[ws][id] = a
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		delete(t.m[ws], id)
		if len(t.m[ws]) == 0 {
			delete(t.m, ws)
		}
		t.mu.Unlock()
	}
}

// allOf is the strictest of several rules: a path must pass each.
type allOf []vfs.Access

func (a allOf) AllowPath(p string, write bool) syscall.Errno {
	for _, x := range a {
		if e := x.AllowPath(p, write); e != 0 {
			return e
		}
	}
	return 0
}

// of returns the rules for a process of workspace ws attributed to
// execution id: its execution's; for a process attributed to no running
// execution with rules (one that left its session and environment, a
// detached one, a shell), the strictest of every running execution's of
// the workspace, so that leaving one's execution never loosens the rules.
// nil when no execution of the workspace has rules.
func (t *accessTable) of(ws, id string) vfs.Access {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.m[ws]
	if len(m) == 0 {
		return nil
	}
	if a, ok := m[id]; ok && id != "" {
		return a
	}
	all := make(allOf, 0, len(m))
	for _, a := range m {
		all = append(all, a)
	}
	return all
}

// accessOf returns the fusefs.Options.AccessOf of workspace name's mount.
func (b *Backend) accessOf(name string) func(pid uint32) vfs.Access {
	// By session only (SessionExecutionOf): a DESK_EXEC_ID a process set
	// itself must not lend it another execution's rules.
	actor := b.cachedExecutionOf(name, b.SessionExecutionOf)
	return func(pid uint32) vfs.Access {
		b.access.mu.Lock()
		none := len(b.access.m[name]) == 0
		b.access.mu.Unlock()
		if none {
			return nil // no rules: no need to know who asks
		}
		return b.access.of(name, actor(pid))
	}
}

// trackAccess records the rules of job's Run context while it runs.
func (b *Backend) trackAccess(ctx context.Context, ws, id string) func() {
	return b.access.track(ws, id, vfs.AccessFrom(ctx))
}

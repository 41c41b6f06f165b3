package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/hostmount"
)

// Defaults of MountOptions.
const (
	DefaultMaxMounts             = 16
	DefaultMaxMountsPerWorkspace = 4
)

// MountOptions configure local mounts (POST /v1/workspaces/{ws}/mounts): a
// workspace mounted through FUSE on a directory of the server's machine, for
// as long as the request's stream lasts (package hostmount).
type MountOptions struct {
	// Max bounds the mounts of the whole server at once, counted by the
	// server that receives the requests (the front, with workers); past it
	// a mount is refused with 409 too_many. Default DefaultMaxMounts.
	Max int
	// MaxPerWorkspace bounds one workspace's mounts at once, counted where
	// the mounts are served (the workspace's worker). Default
	// DefaultMaxMountsPerWorkspace.
	MaxPerWorkspace int
	// Forbidden are directories a mount point may be neither in nor above,
	// besides the data directory (always forbidden).
	Forbidden []hostmount.Forbidden
	// RecordDir, if set, keeps a record of each live mount in RecordDir/WS
	// (hostmount.Records), so that the mounts of a worker that died can be
	// detached.
	RecordDir string
	// FUSE are the mounts' FUSE options (caches, limits).
	FUSE fusefs.Options
}

// activeMount is a mount this server serves.
type activeMount struct {
	ws      string
	endOnce sync.Once
	end     chan struct{} // closed by DELETE …/mounts/{id}
	done    chan struct{} // closed when the mount's request has ended
}

// mountTable is the mounts a server serves.
type mountTable struct {
	mu     sync.Mutex
	byID   map[string]*activeMount
	perWS  map[string]int
	closed bool           // Shutdown is waiting for wg: no new mounts
	wg     sync.WaitGroup // one per mount being served: Shutdown waits
}

// close refuses new mounts and waits for those being served to end, or
// for ctx.
func (t *mountTable) close(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	done := make(chan struct{})
	go func() { t.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("unmount: %w", ctx.Err())
	}
}

// mountSlot takes a slot of the server-wide bound (Mounts.Max) for a mount
// request received by this server; release gives it back.
func (s *Server) mountSlot() (release func(), err error) {
	if s.frontMounts.Add(1) > int64(s.opts.Mounts.Max) {
		s.frontMounts.Add(-1)
		return nil, errorf(http.StatusConflict, CodeTooMany, "too many mounts: this server allows %d at once (api.MountOptions.Max)", s.opts.Mounts.Max)
	}
	return func() { s.frontMounts.Add(-1) }, nil
}

// handleMount mounts the workspace on the requested directory and streams
// its events until the mount ends: the client goes away or DELETE
// …/mounts/{id} (unmounted), the mount is unmounted outside desk (an
// "unmounted" event says so), or the server stops (unmounted, then an
// error event). The request's lease keeps the workspace open, and its
// worker busy, meanwhile.
func (s *Server) handleMount(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.MountRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	am := &activeMount{ws: c.ws, end: make(chan struct{}), done: make(chan struct{})}
	t := &s.mountTab
	t.mu.Lock()
	if t.closed || s.ctx.Err() != nil {
		t.mu.Unlock()
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down")
	}
	if t.perWS[c.ws] >= s.opts.Mounts.MaxPerWorkspace {
		t.mu.Unlock()
		return errorf(http.StatusConflict, CodeTooMany, "too many mounts of workspace %q: %d at once at most (api.MountOptions.MaxPerWorkspace)", c.ws, s.opts.Mounts.MaxPerWorkspace)
	}
	if t.byID == nil {
		t.byID, t.perWS = map[string]*activeMount{}, map[string]int{}
	}
	t.byID[id] = am
	t.perWS[c.ws]++
	t.wg.Add(1)
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.byID, id)
		if t.perWS[c.ws]--; t.perWS[c.ws] == 0 {
			delete(t.perWS, c.ws)
		}
		t.mu.Unlock()
		close(am.done)
		t.wg.Done()
	}()

	forbidden := append([]hostmount.Forbidden{{Path: s.host.DataDir(), What: "the server's data directory"}}, s.opts.Mounts.Forbidden...)
	var rec *hostmount.Records
	if s.opts.Mounts.RecordDir != "" {
		rec = &hostmount.Records{Dir: filepath.Join(s.opts.Mounts.RecordDir, c.ws)}
	}
	m, err := hostmount.New(r.Context(), c.lease.Workspace().FS(), req.Dir, hostmount.Options{
		AllowOther: req.AllowOther, ReadOnly: req.ReadOnly, Actor: "mount:" + id,
		Forbidden: forbidden, Records: rec, FUSE: s.opts.Mounts.FUSE, Logger: s.opts.Logger,
	})
	if err != nil {
		return err
	}
	log := s.opts.Logger.With("workspace", c.ws, "mount", id, "dir", m.Dir())
	log.Info("mounted", "allow_other", req.AllowOther, "read_only", req.ReadOnly, "connection", m.Connection())

	ctx, stop := s.longCtx(r)
	defer stop()
	st, heartbeat, end := s.liveStream(w, r)
	defer end()
	ev := client.MountEvent{Seq: 1, Type: "mounted", ID: id, Workspace: c.ws, Dir: m.Dir(),
		AllowOther: req.AllowOther, ReadOnly: req.ReadOnly, Connection: m.Connection()}
	alive := st.send(ev.Seq, ev.Type, ev) == nil
	ev.Seq, ev.Type = 2, "unmounted"
	for alive && ev.Reason == "" {
		select {
		case <-m.Gone():
			ev.Reason, ev.Message = "outside", m.Why()
		case <-am.end:
			ev.Reason, ev.Message = "request", "unmounted on request"
		case <-ctx.Done():
			alive = false
			ev.Message = "the client went away"
			if s.ctx.Err() != nil {
				ev.Message = "the server is stopping"
			}
		case <-heartbeat:
			alive = st.ping() == nil
		}
	}
	if err := m.Unmount(); err != nil {
		ev.Error = err.Error()
		log.Warn("unmount", "err", err)
	}
	log.Info("unmounted", "why", ev.Message)
	switch {
	case s.ctx.Err() != nil:
		st.fail(errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down: %s was unmounted", m.Dir()))
	case ev.Reason != "":
		st.send(ev.Seq, ev.Type, ev)
	}
	return nil
}

// handleUnmount ends a mount this server serves and returns once it is
// unmounted (its stream then ends with "unmounted").
func (s *Server) handleUnmount(w http.ResponseWriter, r *http.Request, c *call) error {
	id := r.PathValue("id")
	t := &s.mountTab
	t.mu.Lock()
	am := t.byID[id]
	t.mu.Unlock()
	if am == nil || am.ws != c.ws {
		return errorf(http.StatusNotFound, CodeNotFound, "no mount %q of workspace %q", id, c.ws)
	}
	am.endOnce.Do(func() { close(am.end) })
	select {
	case <-am.done:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

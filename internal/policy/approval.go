package policy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults and limits of Approvals.
const (
	// DefaultApprovalTimeout is how long a call waits for its approval
	// before it fails with ErrApprovalTimeout.
	DefaultApprovalTimeout = 10 * time.Minute
	// DefaultMaxPending bounds the approvals pending at once; past it a
	// call that must ask fails with ErrTooManyPending.
	DefaultMaxPending = 64
	// MaxSubjectBytes bounds the script or call kept with an approval.
	MaxSubjectBytes = 16 << 10
)

// Errors of Approvals. Test with errors.Is.
var (
	// ErrApprovalDenied: an approver denied the call.
	ErrApprovalDenied = errors.New("approval denied")
	// ErrApprovalTimeout: nobody decided within the timeout.
	ErrApprovalTimeout = errors.New("approval timed out")
	// ErrTooManyPending: MaxPending approvals are pending already.
	ErrTooManyPending = errors.New("too many pending approvals")
	// ErrNoApproval: no pending approval has that id.
	ErrNoApproval = errors.New("no such pending approval")
)

// Statuses of an Approval.
const (
	Pending  = "pending_approval"
	Approved = "approved"
	Rejected = "denied"
	Expired  = "expired"
	Canceled = "canceled" // the caller went away
	// Abandoned: the process holding the call ended (a restart) before
	// anyone decided; the call itself failed with it (Approvals.Abandon).
	Abandoned = "abandoned"
)

// Approval is a call held until an approver decides.
type Approval struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	// Kind is what waits: "execution" or "tool".
	Kind string `json:"kind"`
	// Backend is the execution's backend, when Kind is execution.
	Backend string `json:"backend,omitempty"`
	// Subject is the script (or the tool call), at most MaxSubjectBytes.
	Subject string `json:"subject"`
	// Decision is the evaluation that asked: its rule and command.
	Decision Decision `json:"decision"`
	// Requester is who made the call (a token id, "admin").
	Requester string    `json:"requester"`
	Created   time.Time `json:"created"`
	Expires   time.Time `json:"expires"`
	Status    string    `json:"status"`
	// SelfElicit is whether the requester's own MCP client may approve
	// by elicitation (Set.ApproveByElicitation when it was held).
	SelfElicit bool `json:"self_elicit,omitempty"`
	// Approver is who decided (a token id, "admin"), when decided.
	Approver string    `json:"approver,omitempty"`
	Decided  time.Time `json:"decided,omitzero"`
}

// ApprovalOptions configure Approvals. The zero value gives the defaults.
type ApprovalOptions struct {
	Timeout    time.Duration // default DefaultApprovalTimeout
	MaxPending int           // default DefaultMaxPending
	// OnDecide, if set, is called with every approval when it stops
	// pending (approved, denied, expired, canceled): the audit journal's
	// hook. It must not block.
	OnDecide func(Approval)
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Dir, if set, keeps each pending approval as a file
	// (Dir/WS/approvals/ID.json, 0600) while it is pending, so that a
	// process started after a crash or restart finds the ones its
	// predecessor held and fails them with a record (Abandon). desk
	// passes DATA/policy, where ws rm removes them with the workspace.
	Dir string
}

// Approvals holds the calls waiting for approval (of one worker: each
// workspace's are where its executions run). Safe for concurrent use.
type Approvals struct {
	opts    ApprovalOptions
	mu      sync.Mutex
	pending map[string]*waiting
	// changed is closed (and replaced) whenever pending changes: what
	// WaitList waits on; versions counts each workspace's changes.
	changed  chan struct{}
	versions map[string]uint64
}

type waiting struct {
	a    Approval
	done chan struct{}
}

// NewApprovals returns an empty set of approvals.
func NewApprovals(o ApprovalOptions) *Approvals {
	if o.Timeout <= 0 {
		o.Timeout = DefaultApprovalTimeout
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Approvals{opts: o, pending: map[string]*waiting{}, changed: make(chan struct{}), versions: map[string]uint64{}}
}

// Wait holds a call as pending until it is approved (nil), denied
// (ErrApprovalDenied), not decided within the timeout
// (ErrApprovalTimeout) or ctx is done. a names the call; ID, Created,
// Expires and Status are set by Wait. started, if set, is called with the
// pending approval once it is listed.
func (s *Approvals) Wait(ctx context.Context, a Approval, started func(Approval)) (Approval, error) {
	var b [8]byte
	rand.Read(b[:])
	a.ID = "apr_" + hex.EncodeToString(b[:])
	if len(a.Subject) > MaxSubjectBytes {
		a.Subject = a.Subject[:MaxSubjectBytes] + "…"
	}
	a.Created = s.opts.Now().UTC()
	a.Expires = a.Created.Add(s.opts.Timeout)
	a.Status = Pending
	w := &waiting{a: a, done: make(chan struct{})}
	s.persist(a) // kept before it is listed: whoever sees it pending may rely on a restart finding it
	s.mu.Lock()
	if len(s.pending) >= s.opts.MaxPending {
		s.mu.Unlock()
		s.unpersist(a)
		return a, fmt.Errorf("hold %s for approval: %d are pending: %w", a.Kind, s.opts.MaxPending, ErrTooManyPending)
	}
	s.pending[a.ID] = w
	s.notify(a.Workspace)
	s.mu.Unlock()
	if started != nil {
		started(a)
	}
	t := time.NewTimer(s.opts.Timeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		s.finish(a.ID, Expired, "")
	case <-ctx.Done():
		s.finish(a.ID, Canceled, "")
	}
	<-w.done
	got := w.a
	switch got.Status {
	case Approved:
		return got, nil
	case Rejected:
		return got, fmt.Errorf("run %s: %s denied it (rule %q): %w", a.Kind, got.Approver, a.Decision.Rule, ErrApprovalDenied)
	case Expired:
		return got, fmt.Errorf("run %s: nobody approved it within %s (rule %q): %w", a.Kind, s.opts.Timeout, a.Decision.Rule, ErrApprovalTimeout)
	default:
		return got, fmt.Errorf("run %s: waiting for approval: %w", a.Kind, ctx.Err())
	}
}

// finish ends a pending approval with status; false when it was not
// pending.
func (s *Approvals) finish(id, status, approver string) (Approval, bool) {
	s.mu.Lock()
	w, ok := s.pending[id]
	if ok {
		delete(s.pending, id)
		w.a.Status, w.a.Approver, w.a.Decided = status, approver, s.opts.Now().UTC()
		s.notify(w.a.Workspace)
	}
	s.mu.Unlock()
	if !ok {
		return Approval{}, false
	}
	close(w.done)
	s.unpersist(w.a)
	if s.opts.OnDecide != nil {
		s.opts.OnDecide(w.a)
	}
	return w.a, true
}

// file is where a pending approval is kept ("" without Dir, or for a
// workspace name that is not one path element).
func (s *Approvals) file(ws, id string) string {
	if s.opts.Dir == "" || ws == "" || ws == "." || ws == ".." || strings.ContainsAny(ws, "/\\\x00") {
		return ""
	}
	return filepath.Join(s.opts.Dir, ws, "approvals", id+".json")
}

// persist writes a pending approval's file (best effort: an approval that
// cannot be kept still waits; it is only not found after a restart).
func (s *Approvals) persist(a Approval) {
	p := s.file(a.Workspace, a.ID)
	if p == "" {
		return
	}
	b, err := json.Marshal(a)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		os.Rename(tmp, p)
	}
}

func (s *Approvals) unpersist(a Approval) {
	if p := s.file(a.Workspace, a.ID); p != "" {
		os.Remove(p)
	}
}

// Abandon fails the approvals an earlier process left pending in Dir for
// workspace ws (every workspace when ws is ""): their calls ended with
// that process, so each is marked Abandoned, passed to OnDecide (the
// audit record of the restart's reason) and its file removed. The
// approvals this Approvals holds are left alone. It returns them.
func (s *Approvals) Abandon(ws string) ([]Approval, error) {
	if s.opts.Dir == "" {
		return nil, nil
	}
	pattern := filepath.Join(s.opts.Dir, "*", "approvals", "apr_*.json")
	if ws != "" {
		if s.file(ws, "x") == "" {
			return nil, fmt.Errorf("abandon approvals of %q: bad workspace name", ws)
		}
		pattern = filepath.Join(s.opts.Dir, ws, "approvals", "apr_*.json")
	}
	tmps, _ := filepath.Glob(pattern + ".tmp") // a write cut short: its call was never listed
	for _, p := range tmps {
		os.Remove(p)
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("abandon approvals: %w", err)
	}
	var out []Approval
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".json")
		s.mu.Lock()
		_, mine := s.pending[id]
		s.mu.Unlock()
		if mine {
			continue
		}
		b, err := os.ReadFile(p)
		var a Approval
		if err == nil {
			err = json.Unmarshal(b, &a)
		}
		os.Remove(p)
		if err != nil || a.ID != id {
			continue // unreadable: nothing to record but its removal
		}
		a.Status, a.Approver, a.Decided = Abandoned, "", s.opts.Now().UTC()
		if s.opts.OnDecide != nil {
			s.opts.OnDecide(a)
		}
		out = append(out, a)
	}
	return out, nil
}

// Decide approves (approve true) or denies the pending approval id of
// workspace ws on behalf of approver. The caller checks that approver may
// (the approve scope).
func (s *Approvals) Decide(ws, id string, approve bool, approver string) (Approval, error) {
	s.mu.Lock()
	w, ok := s.pending[id]
	s.mu.Unlock()
	if !ok || w.a.Workspace != ws {
		return Approval{}, fmt.Errorf("decide approval %q: %w", id, ErrNoApproval)
	}
	st := Rejected
	if approve {
		st = Approved
	}
	a, ok := s.finish(id, st, approver)
	if !ok {
		return Approval{}, fmt.Errorf("decide approval %q: %w", id, ErrNoApproval)
	}
	return a, nil
}

// notify records a change of workspace ws and wakes the waiters of
// WaitList; s.mu is held.
func (s *Approvals) notify(ws string) {
	s.versions[ws]++
	close(s.changed)
	s.changed = make(chan struct{})
}

// List returns the pending approvals of workspace ws, oldest first.
func (s *Approvals) List(ws string) []Approval {
	out, _, _ := s.list(ws)
	return out
}

// WaitList returns the pending approvals of workspace ws and the version
// of that list (a count of its changes) when the version is no longer
// since, or, with since 0, once at least one call is pending; when ctx
// ends first, what is pending then. A client learns of a held call, or of
// any change after the version it last saw, without polling.
func (s *Approvals) WaitList(ctx context.Context, ws string, since uint64) ([]Approval, uint64) {
	for {
		out, v, changed := s.list(ws)
		if since == 0 && len(out) > 0 || since != 0 && v != since {
			return out, v
		}
		select {
		case <-changed:
		case <-ctx.Done():
			out, v, _ = s.list(ws)
			return out, v
		}
	}
}

// Version is the version of workspace ws's list (WaitList).
func (s *Approvals) Version(ws string) uint64 {
	_, v, _ := s.list(ws)
	return v
}

// list returns ws's pending approvals, oldest first, the list's version
// and the channel closed at the next change.
func (s *Approvals) list(ws string) ([]Approval, uint64, <-chan struct{}) {
	s.mu.Lock()
	var out []Approval
	for _, w := range s.pending {
		if w.a.Workspace == ws {
			out = append(out, w.a)
		}
	}
	changed, v := s.changed, s.versions[ws]+1 // never 0: 0 is "any pending"
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b Approval) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return compareStrings(a.ID, b.ID)
	})
	return out, v, changed
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Timeout is the approval timeout in force.
func (s *Approvals) Timeout() time.Duration { return s.opts.Timeout }

type onHeldKey struct{}

// WithOnHeld returns ctx whose calls held for approval call fn once they
// are pending (the MCP server's elicitation: it asks the client). fn must
// not block.
func WithOnHeld(ctx context.Context, fn func(Approval)) context.Context {
	return context.WithValue(ctx, onHeldKey{}, fn)
}

// OnHeldFrom returns the function WithOnHeld recorded (nil if none).
func OnHeldFrom(ctx context.Context) func(Approval) {
	fn, _ := ctx.Value(onHeldKey{}).(func(Approval))
	return fn
}

// MayDecide reports whether approver may decide a: anyone but its
// requester (the caller checks the approve scope); the requester may
// deny (withdraw its own call) always, and approve only by elicitation
// where the policy allows it (SelfElicit), or as admin.
func (a Approval) MayDecide(approver string, approve, byElicitation bool) bool {
	switch {
	case approver == "admin", approver != a.Requester, !approve:
		return true
	}
	return byElicitation && a.SelfElicit
}

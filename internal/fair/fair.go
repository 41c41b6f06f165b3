package fair

import (
	"context"
	"errors"
	"fmt"
)

// Kind names a resource that is held for a while and counted while held.
type Kind string

// The kinds of resource desk bounds.
const (
	// Exec is a running execution of any backend, services excepted.
	Exec Kind = "exec"
	// JS is a running execution of the js backend (also an Exec).
	JS Kind = "js"
	// Service is a running detached execution (a service).
	Service Kind = "service"
	// Shell is an open interactive shell.
	Shell Kind = "shell"
	// Sandbox is a live sandbox (bounded host-wide only: a workspace has at
	// most one).
	Sandbox Kind = "sandbox"
)

// Kinds lists every kind.
var Kinds = []Kind{Exec, JS, Service, Shell, Sandbox}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	switch k {
	case Exec, JS, Service, Shell, Sandbox:
		return true
	}
	return false
}

// noun is how a message counts k.
func (k Kind) noun() string {
	switch k {
	case Exec:
		return "running executions"
	case JS:
		return "running js executions"
	case Service:
		return "services"
	case Shell:
		return "interactive shells"
	case Sandbox:
		return "live sandboxes"
	}
	return string(k)
}

// Bound is a limit: at most Max held at once (0: no bound), and the setting
// that changes it, which refusals name ("--max-services-per-workspace").
type Bound struct {
	Max     int    `json:"max"`
	Setting string `json:"setting,omitempty"`
}

// Scope is where a bound applies.
type Scope string

// The scopes of a bound.
const (
	ScopeHost      Scope = "host"      // the server, across every workspace
	ScopeWorkspace Scope = "workspace" // one workspace
	ScopeToken     Scope = "token"     // one workspace token, within its workspace
)

// ErrTooMany is what every refusal wraps (a *LimitError).
var ErrTooMany = errors.New("too many held at once")

// LimitError is a refusal: the holder is at its bound.
type LimitError struct {
	Kind      Kind
	Scope     Scope
	Workspace string // ScopeWorkspace and ScopeToken
	Token     string // ScopeToken: the token's id
	Held, Max int
	Setting   string // the setting that changes the bound, if known
}

// Error says who holds how many of what, and the setting: "workspace a
// holds 2 of its 2 services (--max-services-per-workspace)".
func (e *LimitError) Error() string {
	var s string
	switch e.Scope {
	case ScopeWorkspace:
		s = fmt.Sprintf("workspace %s holds %d of its %d %s", e.Workspace, e.Held, e.Max, e.Kind.noun())
	case ScopeToken:
		s = fmt.Sprintf("token %s holds %d of its %d %s in workspace %s", e.Token, e.Held, e.Max, e.Kind.noun(), e.Workspace)
	default:
		s = fmt.Sprintf("the server holds %d of its %d %s, across all workspaces", e.Held, e.Max, e.Kind.noun())
	}
	if e.Setting != "" {
		s += " (" + e.Setting + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrTooMany) hold.
func (e *LimitError) Is(target error) bool { return target == ErrTooMany }

// tokenKey is the context key of WithToken.
type tokenKey struct{}

// WithToken names the workspace token on whose behalf ctx's work runs, for
// its share ("" or no call: the admin, whom no token share bounds).
func WithToken(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, tokenKey{}, id)
}

// TokenOf returns the token WithToken named, or "".
func TokenOf(ctx context.Context) string {
	id, _ := ctx.Value(tokenKey{}).(string)
	return id
}

// Host gives out the host-wide slots: a Pool in this process (Pool.Local),
// or the front's Pool across worker processes (package worker).
type Host interface {
	// Bounds reports whether the host bounds kind k: Acquire is asked only
	// for kinds it bounds.
	Bounds(k Kind) bool
	// Acquire takes a slot of kind k, or fails with a *LimitError (or ctx's
	// error). reclaim, if not nil, makes the slot reclaimable: while the
	// holder says it is idle (Slot.Idle), the host may call reclaim when
	// another holder needs a slot, and reclaim should give the slot back
	// (Release) if the resource is still idle, else say Idle(false).
	// reclaim is called on a goroutine of its own.
	Acquire(ctx context.Context, k Kind, reclaim func()) (Slot, error)
}

// Slot is one host-wide slot held.
type Slot interface {
	// Release gives the slot back. Call it once.
	Release()
	// Idle says whether the resource is idle (a reclaimable slot only:
	// otherwise it does nothing).
	Idle(idle bool)
}

package audit

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"
)

// Record kinds.
const (
	KindAPI      = "api"      // one HTTP API request
	KindMCP      = "mcp"      // one MCP JSON-RPC request
	KindTool     = "tool"     // one agent tool call
	KindExec     = "exec"     // an execution's end
	KindPolicy   = "policy"   // a policy decision
	KindApproval = "approval" // an approval or denial
	KindAdmin    = "admin"    // an administrative action outside the API (CLI on the data directory)
)

// Decisions.
const (
	Allowed = "allowed"
	Denied  = "denied"
	Asked   = "asked"
)

// Bounds of a record, enforced by Append (values beyond them are cut and
// the record marked truncated).
const (
	MaxArgBytes   = 4096 // one argument's value
	MaxArgs       = 32   // arguments per record
	MaxErrorBytes = 1024 // the error text
	MaxSpans      = 64   // change-journal ranges (more are merged into the last)
	MaxPaths      = 256  // changed paths listed
	MaxLabelBytes = 256  // each client label
)

// Labels are what the client says about itself: the X-Desk-Agent,
// X-Desk-Session, X-Desk-Model and X-Desk-Turn headers, or the same keys
// (desk/agent, desk/session, desk/model, desk/turn) in an MCP request's
// _meta. They are not authenticated: the token is.
type Labels struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Model   string `json:"model,omitempty"`
	Turn    string `json:"turn,omitempty"`
}

// Label header names.
const (
	HeaderAgent   = "X-Desk-Agent"
	HeaderSession = "X-Desk-Session"
	HeaderModel   = "X-Desk-Model"
	HeaderTurn    = "X-Desk-Turn"
)

// Span is an inclusive range of a workspace's change-journal sequence numbers.
type Span struct {
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// Arg is one named argument of an action.
type Arg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Record is one audited event. The fields up to Hash are what the caller
// fills; ID, N, Prev and Hash are set by Append.
type Record struct {
	ID        int64     `json:"id"`                  // host-wide, increasing: the query cursor
	Workspace string    `json:"workspace,omitempty"` // "" for host-wide actions (the host chain)
	N         int64     `json:"n"`                   // position in the workspace's chain, from 1
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`
	Action    string    `json:"action"` // the route's operation id, MCP method, tool name...
	TokenID   string    `json:"token_id,omitempty"`
	Actor     string    `json:"actor"` // "admin", the token's name or id, "" when unauthenticated
	Labels    Labels    `json:"labels,omitzero"`
	Args      []Arg     `json:"args,omitempty"`
	Decision  string    `json:"decision,omitempty"` // allowed, denied, asked
	Rule      string    `json:"rule,omitempty"`     // the rule that decided
	Outcome   string    `json:"outcome"`            // "ok" or an error code
	Status    int       `json:"status,omitempty"`   // the HTTP status, for API requests
	Error     string    `json:"error,omitempty"`
	Duration  int64     `json:"duration_us,omitempty"`
	Changes   []Span    `json:"changes,omitempty"` // the change-journal ranges this call caused
	Paths     []string  `json:"paths,omitempty"`   // the paths those changes touched
	Truncated bool      `json:"truncated,omitempty"`
	Prev      string    `json:"prev"` // hex SHA-256 of the chain's previous record ("" for the first)
	Hash      string    `json:"hash"` // hex SHA-256 over Prev and this record's other fields
}

// Journal receives records. Append must not keep r.
type Journal interface {
	Append(ctx context.Context, r *Record) error
}

// Redactor replaces secret values in s; it is applied to every argument and
// error text before a record is stored.
type Redactor func(workspace, s string) string

// cut bounds s to n bytes at a rune boundary.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…", true
}

// sensitive says whether an argument of this name holds a credential, whose
// value is never recorded.
func sensitive(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"token", "secret", "password", "passwd", "authorization", "cookie", "credential", "key", "sig"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Redacted is what a removed value is replaced by.
const Redacted = "[redacted]"

// normalize bounds r and removes secrets (red may be nil).
func normalize(r *Record, red Redactor) {
	t := false
	var b bool
	r.Labels.Agent, b = cut(r.Labels.Agent, MaxLabelBytes)
	t = t || b
	r.Labels.Session, b = cut(r.Labels.Session, MaxLabelBytes)
	t = t || b
	r.Labels.Model, b = cut(r.Labels.Model, MaxLabelBytes)
	t = t || b
	r.Labels.Turn, b = cut(r.Labels.Turn, MaxLabelBytes)
	t = t || b
	if len(r.Args) > MaxArgs {
		r.Args, t = r.Args[:MaxArgs], true
	}
	args := make([]Arg, len(r.Args))
	for i, a := range r.Args {
		a.Name, b = cut(a.Name, 64)
		t = t || b
		if sensitive(a.Name) {
			a.Value = Redacted
		} else if red != nil {
			a.Value = red(r.Workspace, a.Value)
		}
		a.Value, b = cut(a.Value, MaxArgBytes)
		t = t || b
		args[i] = a
	}
	r.Args = args
	if red != nil && r.Error != "" {
		r.Error = red(r.Workspace, r.Error)
	}
	r.Error, b = cut(r.Error, MaxErrorBytes)
	t = t || b
	if len(r.Changes) > MaxSpans {
		last := r.Changes[len(r.Changes)-1].Last
		r.Changes = append([]Span(nil), r.Changes[:MaxSpans]...)
		r.Changes[MaxSpans-1].Last = last
		t = true
	}
	if len(r.Paths) > MaxPaths {
		r.Paths, t = r.Paths[:MaxPaths], true
	}
	r.Truncated = r.Truncated || t
	r.Time = r.Time.UTC().Truncate(time.Microsecond)
}

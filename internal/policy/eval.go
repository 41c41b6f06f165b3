package policy

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"syscall"
)

// Sources of the layers desk makes, as decisions name them.
const (
	SourceWorkspace = "workspace"
	SourceToken     = "token"
	SourceExecution = "execution"
)

// Layer is one policy with where it came from (a Source constant).
type Layer struct {
	Source string `json:"source"`
	Policy Policy `json:"policy"`
}

// Set is the layers in force for a call: the workspace's policy, then a
// token's, then an execution's. A call must pass every layer, so a later
// layer narrows, never widens. The zero Set restricts nothing.
type Set []Layer

type layersKey struct{}

// WithLayer returns ctx carrying one more narrowing layer (a token's, an
// execution's) for the calls made with it.
func WithLayer(ctx context.Context, l Layer) context.Context {
	if l.Policy.IsZero() {
		return ctx
	}
	prev := LayersFrom(ctx)
	return context.WithValue(ctx, layersKey{}, append(prev[:len(prev):len(prev)], l))
}

// LayersFrom returns the narrowing layers ctx carries (WithLayer).
func LayersFrom(ctx context.Context) Set {
	l, _ := ctx.Value(layersKey{}).(Set)
	return l
}

// Outcomes of a Decision.
const (
	Allowed = "allowed"
	Denied  = "denied"
	Asked   = "asked"
)

// Decision is the outcome of one evaluation, a plain value the callers
// act on and the audit journal records.
type Decision struct {
	// Kind is "path" or "command".
	Kind string `json:"kind"`
	// Action is what was asked: for a path, the access wanted (read or
	// write); for a command, the action of the deciding rule (allow,
	// ask, deny).
	Action string `json:"action"`
	// Outcome is Allowed, Denied or Asked.
	Outcome string `json:"outcome"`
	// Rule is the deciding rule's text form ("deny **/.env", "ask git
	// push *"), "" when no rule matched (the default decided).
	Rule string `json:"rule,omitempty"`
	// Source is the layer of the deciding rule.
	Source string `json:"source,omitempty"`
	// Subject is the path or the command line decided on.
	Subject string `json:"subject,omitempty"`
}

// Allowed reports whether the decision lets the call go on without
// asking.
func (d Decision) Allowed() bool { return d.Outcome == Allowed }

// Path returns the decision of s for access want (Read or Write) to the
// absolute, cleaned path p: the least access any layer grants decides.
func (s Set) Path(p string, want Access) Decision {
	d := Decision{Kind: "path", Action: string(want), Outcome: Allowed, Subject: p}
	got := Write
	rel := strings.TrimPrefix(p, "/")
	for _, l := range s {
		for i := range l.Policy.Paths {
			r := &l.Policy.Paths[i]
			if !r.match(rel) {
				continue
			}
			if r.Access.rank() < got.rank() {
				got = r.Access
				d.Rule, d.Source = r.String(), l.Source
			}
			break
		}
	}
	if got.rank() < want.rank() {
		d.Outcome = Denied
	}
	return d
}

// Access returns the access s grants to the absolute, cleaned path p.
func (s Set) Access(p string) Access {
	got := Write
	rel := strings.TrimPrefix(p, "/")
	for _, l := range s {
		for i := range l.Policy.Paths {
			r := &l.Policy.Paths[i]
			if r.match(rel) {
				if r.Access.rank() < got.rank() {
					got = r.Access
				}
				break
			}
		}
	}
	return got
}

// HasPathRules reports whether any layer has a path rule (else every path
// is writable and callers may skip the checks).
func (s Set) HasPathRules() bool {
	for _, l := range s {
		if len(l.Policy.Paths) > 0 {
			return true
		}
	}
	return false
}

// ApproveByElicitation reports whether every layer with command rules
// lets the requester's MCP client approve by elicitation
// (Policy.ApproveByElicitation): a narrowing layer that does not say so
// keeps the rule that another party must approve.
func (s Set) ApproveByElicitation() bool {
	any := false
	for _, l := range s {
		if len(l.Policy.Commands) == 0 && l.Policy.DefaultCommand == "" {
			continue
		}
		if !l.Policy.ApproveByElicitation {
			return false
		}
		any = true
	}
	return any
}

// HasCommandRules reports whether any layer restricts commands.
func (s Set) HasCommandRules() bool {
	for _, l := range s {
		if len(l.Policy.Commands) > 0 || l.Policy.DefaultCommand.rank() > 0 {
			return true
		}
	}
	return false
}

// match results.
const (
	matchNo = iota
	matchMaybe
	matchYes
)

// match reports whether r matches c: matchMaybe when only a dynamic word
// (whose value the parse cannot know) could make it match.
func (r *CommandRule) match(c Command) int {
	if len(c.Words) == 0 || r.words == nil {
		return matchNo
	}
	for i, g := range r.words {
		if i == len(r.words)-1 && i > 0 && r.lastStar() {
			break // a final "*" matches any further words, none included
		}
		if i >= len(c.Words) {
			if c.More {
				return matchMaybe
			}
			return matchNo
		}
		w := c.Words[i]
		if w.Dynamic {
			// It may expand to any number of words of any value.
			return matchMaybe
		}
		t := w.Text
		if i == 0 && !strings.Contains(r.name, "/") {
			t = path.Base(t)
		}
		if !g.Match(t) {
			return matchNo
		}
	}
	return matchYes
}

func (r *CommandRule) lastStar() bool {
	return strings.HasSuffix(r.Pattern, " *")
}

// command decides one command by one policy: the first rule that surely
// matches decides, made stricter by any earlier rule that might match (a
// dynamic word); with no sure match, the default, made stricter likewise.
func (p *Policy) command(c Command) (Action, string) {
	act, rule := Allow, ""
	for i := range p.Commands {
		r := &p.Commands[i]
		m := r.match(c)
		if m == matchNo {
			continue
		}
		if r.Action.rank() > act.rank() || rule == "" {
			act, rule = r.Action, r.String()
		}
		if m == matchYes {
			return act, rule
		}
	}
	def := p.DefaultCommand
	if def == "" {
		def = Allow
	}
	if def.rank() > act.rank() {
		return def, "default " + string(def)
	}
	return act, rule
}

// Command returns the decision of s for one command: the strictest over
// the layers.
func (s Set) Command(c Command) Decision {
	d := Decision{Kind: "command", Action: string(Allow), Outcome: Allowed, Subject: c.String()}
	act := Allow
	for _, l := range s {
		a, rule := l.Policy.command(c)
		if a.rank() > act.rank() || (d.Rule == "" && rule != "") {
			act = a
			d.Rule, d.Source = rule, l.Source
		}
	}
	d.Action = string(act)
	switch act {
	case Ask:
		d.Outcome = Asked
	case Refuse:
		d.Outcome = Denied
	}
	return d
}

// Commands returns the decision of s for a list of commands (a script's):
// the strictest, the first command reaching it. With no commands, Allowed.
func (s Set) Commands(cs []Command) Decision {
	best := Decision{Kind: "command", Action: string(Allow), Outcome: Allowed}
	rank := -1
	for _, c := range cs {
		d := s.Command(c)
		if r := Action(d.Action).rank(); r > rank {
			best, rank = d, r
			if r == Refuse.rank() {
				break
			}
		}
	}
	return best
}

// Script parses a bash script and decides it (Parse, then Commands).
func (s Set) Script(src string) Decision {
	if !s.HasCommandRules() {
		return Decision{Kind: "command", Action: string(Allow), Outcome: Allowed}
	}
	return s.Commands(Parse(src))
}

// AllowPath is s as the store's path check (vfs.Access): 0 when the
// cleaned absolute path p may be read (write false) or changed (write
// true); ENOENT for any use of a denied path (it is not visible), EACCES
// for a change of a read-only one.
func (s Set) AllowPath(p string, write bool) syscall.Errno {
	switch a := s.Access(p); {
	case a == Deny:
		return syscall.ENOENT
	case write && a != Write:
		return syscall.EACCES
	}
	return 0
}

// ErrDenied is wrapped by the error of a call a rule denies.
var ErrDenied = errors.New("denied by policy")

// Err returns nil for an allowed decision, else an error wrapping
// ErrDenied that names the subject, the rule and its layer (an Asked
// decision is an error only to a caller that cannot ask).
func (d Decision) Err() error {
	if d.Outcome == Allowed {
		return nil
	}
	rule := d.Rule
	if rule == "" {
		rule = "(none)"
	}
	verb := "denied"
	if d.Outcome == Asked {
		verb = "needs approval"
	}
	return fmt.Errorf("%s %q: %s by rule %q of the %s policy: %w", d.Kind, d.Subject, verb, rule, d.Source, ErrDenied)
}

type requesterKey struct{}

// WithRequester returns ctx naming who makes the calls (a token id,
// "admin"), for the approvals they ask.
func WithRequester(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requesterKey{}, id)
}

// RequesterFrom returns the requester ctx names ("" if none).
func RequesterFrom(ctx context.Context) string {
	s, _ := ctx.Value(requesterKey{}).(string)
	return s
}

type setKey struct{}

// WithSet returns ctx recording the whole Set in force for its calls
// (the workspace's layer included), for the surfaces that check paths
// themselves (the sandbox's mount: SetFrom).
func WithSet(ctx context.Context, s Set) context.Context {
	return context.WithValue(ctx, setKey{}, s)
}

// SetFrom returns the Set WithSet recorded, and whether there was one.
func SetFrom(ctx context.Context) (Set, bool) {
	s, ok := ctx.Value(setKey{}).(Set)
	return s, ok
}

// maxRemembered bounds a Checker's memory of paths.
const maxRemembered = 4096

// Checker is a Set as the store's path check (vfs.Access) that remembers
// the access of the paths it was asked about (at most 4096, all forgotten
// at once past it): one call's store walks ask about the same paths again
// and again. Safe for concurrent use.
type Checker struct {
	set  Set
	den  *Denials
	mu   sync.Mutex
	seen map[string]Access
}

// Checker returns a new Checker of s, counting its refusals in a Denials
// of its own.
func (s Set) Checker() *Checker {
	return &Checker{set: s, den: new(Denials), seen: map[string]Access{}}
}

// CheckerFor returns a new Checker of s counting its refusals in ctx's
// Denials (WithDenials), or in its own if ctx has none.
func (s Set) CheckerFor(ctx context.Context) *Checker {
	c := s.Checker()
	if d := DenialsFrom(ctx); d != nil {
		c.den = d
	}
	return c
}

// Denials returns where c counts its refusals.
func (c *Checker) Denials() *Denials { return c.den }

// Set returns the Set c checks.
func (c *Checker) Set() Set { return c.set }

// AllowPath is Set.AllowPath, remembered.
func (c *Checker) AllowPath(p string, write bool) syscall.Errno {
	c.mu.Lock()
	a, ok := c.seen[p]
	c.mu.Unlock()
	if !ok {
		a = c.set.Access(p)
		c.mu.Lock()
		if len(c.seen) >= maxRemembered {
			clear(c.seen)
		}
		c.seen[p] = a
		c.mu.Unlock()
	}
	switch {
	case a == Deny:
		c.refused(p, Read)
		return syscall.ENOENT
	case write && a != Write:
		c.refused(p, Write)
		return syscall.EACCES
	}
	return 0
}

// refused counts a refusal of access want to p, with its deciding rule.
func (c *Checker) refused(p string, want Access) {
	c.den.add(c.set.Path(p, want))
}

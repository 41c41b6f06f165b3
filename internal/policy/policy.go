package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/desk-dev/desk/internal/glob"
)

// Limits of a Policy.
const (
	MaxPathRules    = 256  // path rules per policy
	MaxCommandRules = 256  // command rules per policy
	MaxPatternBytes = 1024 // one rule's pattern
)

// ErrInvalid is wrapped by the error of a malformed policy or rule.
var ErrInvalid = errors.New("invalid policy")

// Access is what a path rule grants: Deny < Read < Write.
type Access string

// Accesses.
const (
	Deny  Access = "deny"  // neither read nor write; not visible
	Read  Access = "read"  // read only
	Write Access = "write" // read and write
)

func (a Access) rank() int {
	switch a {
	case Deny:
		return 0
	case Read:
		return 1
	case Write:
		return 2
	}
	return -1
}

// Action is what a command rule does with a matching command:
// Allow < Ask < Refuse (the strictest wins).
type Action string

// Actions.
const (
	Allow  Action = "allow"
	Ask    Action = "ask"
	Refuse Action = "deny"
)

func (a Action) rank() int {
	switch a {
	case Allow:
		return 0
	case Ask:
		return 1
	case Refuse:
		return 2
	}
	return -1
}

// PathRule is one ordered path rule: paths Pattern matches get Access.
//
// Pattern is a path glob (package glob: "*", "?", "[..]", "**" segments,
// "{a,b}"): absolute ("/workspace/**"), anywhere when it starts with "**"
// ("**/.env": a .env at any depth of the whole tree), else relative to
// /workspace ("src/**" is "/workspace/src/**").
type PathRule struct {
	Pattern string `json:"pattern"`
	Access  Access `json:"access"`

	re             *glob.Pattern
	prefix, suffix string // literal parts every match has (a cheap test before re)
}

// match reports whether the rule's pattern matches rel (a path without its
// leading "/").
func (r *PathRule) match(rel string) bool {
	if r.re == nil || !strings.HasPrefix(rel, r.prefix) || !strings.HasSuffix(rel, r.suffix) {
		return false
	}
	return r.re.Match(rel)
}

// literals returns a literal prefix and suffix every path full matches
// has ("" when unsure: braces, brackets, escapes).
func literals(full string) (prefix, suffix string) {
	rel := strings.TrimPrefix(full, "/")
	if strings.ContainsAny(rel, "{[\\") {
		return "", ""
	}
	i := strings.IndexAny(rel, "*?")
	if i < 0 {
		return strings.TrimSuffix(rel, "/"), ""
	}
	prefix = strings.TrimSuffix(rel[:i], "/")
	j := strings.LastIndexAny(rel, "*?")
	suffix = strings.TrimPrefix(rel[j+1:], "/")
	return prefix, suffix
}

// CommandRule is one ordered command rule: commands Pattern matches get
// Action.
//
// Pattern is words separated by blanks: the command's name, then its
// arguments, each a shell pattern (fnmatch: "*" matches anything, "/"
// included). It matches a command whose words start with the pattern's
// words ("npm publish" matches "npm publish --tag next"); a final "*" word
// also matches no word ("git push *" matches "git push"). A name without
// "/" matches the last element of the command's name ("git" matches
// "/usr/bin/git").
type CommandRule struct {
	Pattern string `json:"pattern"`
	Action  Action `json:"action"`

	words []*glob.Shell
	name  string // the name word as written
}

// Policy is one layer of rules. The zero Policy restricts nothing.
type Policy struct {
	// Paths are tried in order; the first whose pattern matches a path
	// decides its access. A path no rule matches is not restricted by
	// this policy (Write).
	Paths []PathRule `json:"paths,omitempty"`
	// Commands are tried in order; the first whose pattern matches a
	// command decides its action. A command no rule matches gets
	// DefaultCommand.
	Commands []CommandRule `json:"commands,omitempty"`
	// DefaultCommand is the action for a command no rule matches
	// ("": Allow).
	DefaultCommand Action `json:"default_command,omitempty"`
	// ApproveByElicitation lets the requester's own MCP client approve a
	// call this policy asks about, by answering an elicitation (the human
	// at the client, not the agent's token through the API). Without it
	// another party must approve (desk approve, an approver's token) and
	// the requester's elicitation can only deny.
	ApproveByElicitation bool `json:"approve_by_elicitation,omitempty"`
}

// IsZero reports whether p restricts nothing.
func (p Policy) IsZero() bool {
	return len(p.Paths) == 0 && len(p.Commands) == 0 && (p.DefaultCommand == "" || p.DefaultCommand == Allow)
}

// Validate checks p and compiles its patterns; use the Policy it returns.
func (p Policy) Validate() (Policy, error) {
	if len(p.Paths) > MaxPathRules {
		return p, fmt.Errorf("check policy: %d path rules, more than %d: %w", len(p.Paths), MaxPathRules, ErrInvalid)
	}
	if len(p.Commands) > MaxCommandRules {
		return p, fmt.Errorf("check policy: %d command rules, more than %d: %w", len(p.Commands), MaxCommandRules, ErrInvalid)
	}
	switch p.DefaultCommand {
	case "", Allow, Ask, Refuse:
	default:
		return p, fmt.Errorf("check policy: default command action %q: want allow, ask or deny: %w", p.DefaultCommand, ErrInvalid)
	}
	out := Policy{DefaultCommand: p.DefaultCommand, ApproveByElicitation: p.ApproveByElicitation}
	if out.DefaultCommand == Allow {
		out.DefaultCommand = ""
	}
	for _, r := range p.Paths {
		c, err := compilePath(r)
		if err != nil {
			return p, err
		}
		out.Paths = append(out.Paths, c)
	}
	for _, r := range p.Commands {
		c, err := compileCommand(r)
		if err != nil {
			return p, err
		}
		out.Commands = append(out.Commands, c)
	}
	return out, nil
}

func compilePath(r PathRule) (PathRule, error) {
	if r.Access.rank() < 0 {
		return r, fmt.Errorf("check path rule %q: access %q: want read, write or deny: %w", r.Pattern, r.Access, ErrInvalid)
	}
	pat := strings.TrimSpace(r.Pattern)
	if pat == "" || len(pat) > MaxPatternBytes || strings.ContainsRune(pat, 0) {
		return r, fmt.Errorf("check path rule %q: want a glob of 1 to %d bytes: %w", r.Pattern, MaxPatternBytes, ErrInvalid)
	}
	full := pat
	if !strings.HasPrefix(pat, "/") && !strings.HasPrefix(pat, "**") {
		full = "/workspace/" + pat
	}
	re, err := glob.Compile(full, false)
	if err != nil {
		return r, fmt.Errorf("check path rule %q: %v: %w", r.Pattern, err, ErrInvalid)
	}
	pre, suf := literals(full)
	return PathRule{Pattern: pat, Access: r.Access, re: re, prefix: pre, suffix: suf}, nil
}

func compileCommand(r CommandRule) (CommandRule, error) {
	if r.Action.rank() < 0 {
		return r, fmt.Errorf("check command rule %q: action %q: want allow, ask or deny: %w", r.Pattern, r.Action, ErrInvalid)
	}
	words := strings.Fields(r.Pattern)
	if len(words) == 0 || len(r.Pattern) > MaxPatternBytes || strings.ContainsRune(r.Pattern, 0) {
		return r, fmt.Errorf("check command rule %q: want a command name and argument patterns of at most %d bytes: %w", r.Pattern, MaxPatternBytes, ErrInvalid)
	}
	out := CommandRule{Pattern: strings.Join(words, " "), Action: r.Action, name: words[0]}
	for _, w := range words {
		g, err := glob.CompileShell(w, false)
		if err != nil {
			return r, fmt.Errorf("check command rule %q: word %q: %v: %w", r.Pattern, w, err, ErrInvalid)
		}
		out.words = append(out.words, g)
	}
	return out, nil
}

// UnmarshalJSON reads a Policy and validates it.
func (p *Policy) UnmarshalJSON(b []byte) error {
	type plain Policy
	var x plain
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	v, err := Policy(x).Validate()
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// ParsePathRule parses "ACCESS PATTERN" ("deny **/.env").
func ParsePathRule(s string) (PathRule, error) {
	a, pat, _ := strings.Cut(strings.TrimSpace(s), " ")
	return compilePath(PathRule{Access: Access(a), Pattern: pat})
}

// ParseCommandRule parses "ACTION PATTERN" ("ask git push *").
func ParseCommandRule(s string) (CommandRule, error) {
	a, pat, _ := strings.Cut(strings.TrimSpace(s), " ")
	return compileCommand(CommandRule{Action: Action(a), Pattern: pat})
}

// String is the rule's text form (ParsePathRule).
func (r PathRule) String() string { return string(r.Access) + " " + r.Pattern }

// String is the rule's text form (ParseCommandRule).
func (r CommandRule) String() string { return string(r.Action) + " " + r.Pattern }

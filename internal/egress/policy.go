package egress

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Mode is a policy's kind.
type Mode string

// The modes of a Policy.
const (
	// None allows nothing: the default.
	None Mode = "none"
	// Allow allows what one of its rules matches.
	Allow Mode = "allow"
	// All allows every host on every port, except the host's own addresses
	// (see the package documentation).
	All Mode = "all"
)

// Limits on a policy's size, so that checking one is bounded work.
const (
	MaxRules      = 256
	MaxRulePorts  = 32
	MaxRuleItems  = 32 // methods, and path prefixes, per rule
	maxHostLength = 253
)

// DefaultPorts are the ports of a rule that names none: HTTP's and HTTPS's.
var DefaultPorts = []int{80, 443}

// ErrInvalid is wrapped by the errors of malformed policies and rules.
var ErrInvalid = errors.New("invalid egress policy")

// Rule allows requests to one host or to the subdomains of one domain.
type Rule struct {
	// Host is a host name ("registry.npmjs.org"), "*.domain" for every
	// subdomain of domain (not domain itself), or an IP address. Names are
	// compared without case and without a trailing dot. Only a rule whose
	// Host is an IP address can allow one of the host's own addresses
	// (loopback, link-local, private ranges, its interfaces), and only that
	// address.
	Host string `json:"host"`
	// Addr, if set, is the IP address desk connects to for Host (a name),
	// instead of resolving it: an admin pinning a name (an internal
	// registry) to an address. It names the address exactly, so in the
	// first layer it allows that address even when it is one of the host's
	// own; in a narrowing layer (a token's, an execution's) it is ignored.
	Addr string `json:"addr,omitempty"`
	// Ports are the allowed ports (empty: DefaultPorts, 80 and 443).
	Ports []int `json:"ports,omitempty"`
	// Methods, if any, are the only methods allowed (upper case), and Paths,
	// if any, the only URL path prefixes. desk sees them on plain HTTP and
	// on the requests of in-process clients (js fetch, curl, git of the
	// shell backend); a tunnel (CONNECT, HTTPS from the sandbox) hides
	// them, so a rule with Methods or Paths does not allow tunnels.
	Methods []string `json:"methods,omitempty"`
	Paths   []string `json:"paths,omitempty"`
}

// Policy says where an execution's requests may go.
type Policy struct {
	// Mode is none (the zero value means none), allow or all.
	Mode Mode `json:"mode"`
	// Rules are the allow mode's rules (empty otherwise).
	Rules []Rule `json:"rules,omitempty"`
}

// Validate checks p and returns it normalized: mode set, host names lower
// case, ports and methods sorted. A policy from outside (a file, the API, a
// flag) goes through it before use.
func (p Policy) Validate() (Policy, error) {
	if p.Mode == "" {
		p.Mode = None
	}
	switch p.Mode {
	case None, All:
		if len(p.Rules) > 0 {
			return p, fmt.Errorf("check policy: mode %s takes no rules (use mode allow): %w", p.Mode, ErrInvalid)
		}
		return Policy{Mode: p.Mode}, nil
	case Allow:
	default:
		return p, fmt.Errorf("check policy: unknown mode %q (want none, allow or all): %w", p.Mode, ErrInvalid)
	}
	if len(p.Rules) > MaxRules {
		return p, fmt.Errorf("check policy: %d rules, over the limit of %d: %w", len(p.Rules), MaxRules, ErrInvalid)
	}
	out := Policy{Mode: Allow, Rules: make([]Rule, 0, len(p.Rules))}
	for _, r := range p.Rules {
		n, err := r.normalize()
		if err != nil {
			return p, err
		}
		out.Rules = append(out.Rules, n)
	}
	return out, nil
}

func (r Rule) normalize() (Rule, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(r.Host)), ".")
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	bad := func(why string) (Rule, error) {
		return r, fmt.Errorf("check rule %q: %s: %w", r.Host, why, ErrInvalid)
	}
	if h == "" {
		return bad("no host")
	}
	if a, err := netip.ParseAddr(h); err == nil {
		if a.Zone() != "" {
			return bad("an address with a zone")
		}
		h = a.Unmap().String()
	} else {
		name := strings.TrimPrefix(h, "*.")
		if len(name) > maxHostLength || name == "" || strings.Contains(name, "*") {
			return bad("want a host name, *.domain or an IP address")
		}
		for _, label := range strings.Split(name, ".") {
			if label == "" || len(label) > 63 {
				return bad("empty or over-long label")
			}
			for _, c := range label {
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
					return bad(fmt.Sprintf("character %q in a host name", c))
				}
			}
		}
	}
	out := Rule{Host: h}
	if r.Addr != "" {
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(r.Addr, "["), "]"))
		if err != nil || a.Zone() != "" {
			return bad(fmt.Sprintf("addr %q: want an IP address", r.Addr))
		}
		if _, ip := isIP(h); ip || strings.HasPrefix(h, "*.") {
			return bad("addr pins a host name, not an address or *.domain")
		}
		out.Addr = a.Unmap().String()
	}
	if len(r.Ports) > MaxRulePorts || len(r.Methods) > MaxRuleItems || len(r.Paths) > MaxRuleItems {
		return bad(fmt.Sprintf("more than %d ports or %d methods or paths", MaxRulePorts, MaxRuleItems))
	}
	for _, p := range r.Ports {
		if p < 1 || p > 65535 {
			return bad(fmt.Sprintf("port %d out of range", p))
		}
		if !slices.Contains(out.Ports, p) {
			out.Ports = append(out.Ports, p)
		}
	}
	slices.Sort(out.Ports)
	for _, m := range r.Methods {
		m = strings.ToUpper(strings.TrimSpace(m))
		if m == "" || strings.ContainsFunc(m, func(c rune) bool { return c < 'A' || c > 'Z' }) {
			return bad(fmt.Sprintf("method %q", m))
		}
		if m == "CONNECT" {
			return bad("CONNECT is not a method a rule can name (a tunnel is allowed by a rule without methods or paths)")
		}
		if !slices.Contains(out.Methods, m) {
			out.Methods = append(out.Methods, m)
		}
	}
	slices.Sort(out.Methods)
	for _, p := range r.Paths {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\r\n?#") {
			return bad(fmt.Sprintf("path prefix %q: want an absolute URL path without query", p))
		}
		out.Paths = append(out.Paths, p)
	}
	return out, nil
}

// ports returns the rule's ports (DefaultPorts when it names none).
func (r Rule) ports() []int {
	if len(r.Ports) == 0 {
		return DefaultPorts
	}
	return r.Ports
}

// opaque reports whether the rule restricts what only a visible request
// shows (methods, paths).
func (r Rule) restricted() bool { return len(r.Methods) > 0 || len(r.Paths) > 0 }

// String is the rule's text form, which ParseRule reads:
// HOST[=ADDR][:PORT[,PORT...]][/PATH-PREFIX[,/PATH-PREFIX...]][ METHOD[,METHOD...]].
// An IPv6 address is written in brackets.
func (r Rule) String() string {
	var b strings.Builder
	bracket := func(h string) string {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	b.WriteString(bracket(r.Host))
	if r.Addr != "" {
		b.WriteString("=" + bracket(r.Addr))
	}
	if len(r.Ports) > 0 {
		ps := make([]string, len(r.Ports))
		for i, p := range r.Ports {
			ps[i] = strconv.Itoa(p)
		}
		b.WriteString(":" + strings.Join(ps, ","))
	}
	if len(r.Paths) > 0 {
		b.WriteString(strings.Join(r.Paths, ","))
	}
	if len(r.Methods) > 0 {
		b.WriteString(" " + strings.Join(r.Methods, ","))
	}
	return b.String()
}

// ParseRule reads a rule's text form (see Rule.String), e.g.
// "registry.npmjs.org", "*.github.com:443", "127.0.0.1:8080",
// "[::1]:8080", "api.example.com:80/v1/,/v2/ GET,HEAD",
// "registry.internal=10.0.0.5:8080" (a name pinned to an address).
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	var r Rule
	hp, methods, _ := strings.Cut(s, " ")
	if methods = strings.TrimSpace(methods); methods != "" {
		r.Methods = strings.Split(methods, ",")
	}
	if i := strings.IndexByte(hp, '/'); i >= 0 {
		r.Paths = strings.Split(hp[i:], ",")
		hp = hp[:i]
	}
	name, hp, pinned := strings.Cut(hp, "=")
	if !pinned {
		hp, name = name, ""
	}
	host, ports := hp, ""
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return r, fmt.Errorf("parse rule %q: unclosed [: %w", s, ErrInvalid)
		}
		host, ports = hp[1:end], strings.TrimPrefix(hp[end+1:], ":")
		if hp[end+1:] != "" && !strings.HasPrefix(hp[end+1:], ":") {
			return r, fmt.Errorf("parse rule %q: want [ADDRESS]:PORTS: %w", s, ErrInvalid)
		}
	} else if strings.Count(hp, ":") == 1 {
		host, ports, _ = strings.Cut(hp, ":")
	}
	r.Host = host
	if pinned {
		r.Host, r.Addr = name, host
	}
	if ports != "" {
		for _, p := range strings.Split(ports, ",") {
			n, err := strconv.Atoi(p)
			if err != nil {
				return r, fmt.Errorf("parse rule %q: port %q: %w", s, p, ErrInvalid)
			}
			r.Ports = append(r.Ports, n)
		}
	}
	return r.normalize()
}

// String is the policy's text form, which Parse reads: "none", "all", or
// "allow RULE; RULE; ...".
func (p Policy) String() string {
	switch p.Mode {
	case "", None:
		return string(None)
	case All:
		return string(All)
	}
	rs := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		rs[i] = r.String()
	}
	return "allow " + strings.Join(rs, "; ")
}

// Parse reads a policy's text form (see Policy.String) or its JSON form
// (an object starting with "{").
func Parse(s string) (Policy, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		var p Policy
		if err := json.Unmarshal([]byte(s), &p); err != nil {
			return p, fmt.Errorf("parse policy: %v: %w", err, ErrInvalid)
		}
		return p.Validate()
	}
	switch s {
	case "", string(None):
		return Policy{Mode: None}, nil
	case string(All):
		return Policy{Mode: All}, nil
	}
	rest, ok := strings.CutPrefix(s, "allow")
	if !ok || rest != "" && rest[0] != ' ' {
		return Policy{}, fmt.Errorf("parse policy %q: want none, all or \"allow RULE; RULE\": %w", s, ErrInvalid)
	}
	p := Policy{Mode: Allow}
	for _, rs := range strings.Split(rest, ";") {
		if strings.TrimSpace(rs) == "" {
			continue
		}
		r, err := ParseRule(rs)
		if err != nil {
			return Policy{}, err
		}
		p.Rules = append(p.Rules, r)
	}
	return p.Validate()
}

// hostKind tells what a target host is.
func isIP(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

// splitHostPort splits "host:port" (port default def), lower-casing the
// host and dropping a trailing dot.
func splitHostPort(hostport string, def int) (string, int, error) {
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		if def == 0 || strings.Count(hostport, ":") > 0 && !strings.HasPrefix(hostport, "[") {
			return "", 0, fmt.Errorf("parse address %q: %w", hostport, ErrInvalid)
		}
		host, ps = strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), strconv.Itoa(def)
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("parse address %q: bad port: %w", hostport, ErrInvalid)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", 0, fmt.Errorf("parse address %q: no host: %w", hostport, ErrInvalid)
	}
	if a, ok := isIP(host); ok {
		host = a.String()
	}
	return host, port, nil
}

package egress

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// Layer is one policy of an execution's chain, with where it comes from.
// An execution's requests must pass every layer: a layer can narrow what
// the ones before allow, never widen it.
type Layer struct {
	// Source names the policy for denials: "the workspace's policy", "the
	// token's policy", "the execution's policy", "the server's default
	// policy".
	Source string
	Policy Policy
}

// Target is what a request asks to reach.
type Target struct {
	Host   string // lower case, without brackets; an IP address in its canonical form
	Port   int
	Method string // "" for a tunnel (CONNECT), whose requests desk cannot see
	Path   string // the URL path ("" for a tunnel)
}

// Tunnel reports whether t is a tunnel (CONNECT).
func (t Target) Tunnel() bool { return t.Method == "" }

func (t Target) String() string {
	hp := t.Host
	if strings.Contains(hp, ":") {
		hp = "[" + hp + "]"
	}
	hp += ":" + strconv.Itoa(t.Port)
	if t.Tunnel() {
		return "CONNECT " + hp
	}
	return t.Method + " " + hp + t.Path
}

// Denied is the refusal of a request by a policy. Its Error is the body of
// the 403 answer: it names the host, the rule (or its absence) and how to
// allow it.
type Denied struct {
	Target Target
	// Source is the layer that refused ("the workspace's policy", ...), or
	// "desk" for a refusal no policy can lift (an address of the host that
	// no rule names exactly, a name that resolves to one).
	Source string
	// Reason says why, in words.
	Reason string
	// Hint says how to allow it ("" when nothing can).
	Hint string
}

func (d *Denied) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "desk egress: refused %s\n", d.Target)
	fmt.Fprintf(&b, "why: %s\n", d.Reason)
	if d.Hint != "" {
		fmt.Fprintf(&b, "to allow it: %s\n", d.Hint)
	}
	return b.String()
}

// Response is the 403 answer to a denied request: its body is d.Error(),
// and the header X-Desk-Egress is "refused".
func (d *Denied) Response(req *http.Request) *http.Response {
	body := d.Error()
	h := http.Header{}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Desk-Egress", "refused")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status: "403 Forbidden", StatusCode: http.StatusForbidden, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: readCloser(body), ContentLength: int64(len(body)), Request: req,
	}
}

// check decides t against the chain: nil if every layer allows it. exact
// reports whether the first layer (the workspace's, set by an admin)
// allowed it by a rule naming its IP address exactly: what lets one of the
// host's own addresses through. A narrowing layer (a token's, an
// execution's) never does, so that narrowing cannot lift that refusal.
func check(layers []Layer, t Target, ws string) (exact bool, pin netip.Addr, d *Denied) {
	if len(layers) == 0 {
		return false, pin, &Denied{Target: t, Source: "desk", Reason: "this execution has no network (no egress policy applies)", Hint: hintFor(t, ws)}
	}
	for i, l := range layers {
		ok, r, why := allows(l.Policy, t)
		if !ok {
			return false, pin, &Denied{Target: t, Source: l.Source, Reason: fmt.Sprintf("%s by %s (%s)", why, l.Source, summary(l.Policy)), Hint: hintFor(t, ws)}
		}
		if i == 0 && r != nil {
			_, isAddr := isIP(t.Host)
			exact = isAddr
			if r.Addr != "" {
				exact, pin = true, netip.MustParseAddr(r.Addr)
			}
		}
	}
	return exact, pin, nil
}

// allows decides t against one policy: the rule that allows it (nil under
// all), or why not.
func allows(p Policy, t Target) (ok bool, rule *Rule, why string) {
	switch p.Mode {
	case All:
		return true, nil, ""
	case Allow:
	default:
		return false, nil, "no request is allowed"
	}
	hostMatched := false
	var near []string
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matchesHost(t.Host) {
			continue
		}
		hostMatched = true
		if !slices.Contains(r.ports(), t.Port) {
			near = append(near, fmt.Sprintf("rule %q allows other ports", r.String()))
			continue
		}
		if t.Tunnel() {
			if r.restricted() {
				near = append(near, fmt.Sprintf("rule %q limits methods or paths, which a tunnel (HTTPS through the proxy) hides", r.String()))
				continue
			}
		} else {
			if len(r.Methods) > 0 && !slices.Contains(r.Methods, t.Method) {
				near = append(near, fmt.Sprintf("rule %q allows other methods", r.String()))
				continue
			}
			if len(r.Paths) > 0 && !slices.ContainsFunc(r.Paths, func(pre string) bool { return strings.HasPrefix(t.Path, pre) }) {
				near = append(near, fmt.Sprintf("rule %q allows other paths", r.String()))
				continue
			}
		}
		return true, r, ""
	}
	if !hostMatched {
		return false, nil, fmt.Sprintf("host %s is not allowed", t.Host)
	}
	return false, nil, fmt.Sprintf("host %s is named, but %s", t.Host, strings.Join(near, "; "))
}

func (r Rule) matchesHost(host string) bool {
	if d, ok := strings.CutPrefix(r.Host, "*."); ok {
		if _, ip := isIP(host); ip {
			return false
		}
		return strings.HasSuffix(host, "."+d)
	}
	return r.Host == host
}

// summary words a policy briefly for a denial.
func summary(p Policy) string {
	switch p.Mode {
	case All, Allow:
	default:
		return "none"
	}
	s := p.String()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// hintFor says how an admin allows t.
func hintFor(t Target, ws string) string {
	rule := Rule{Host: t.Host, Ports: []int{t.Port}}
	if ws == "" {
		ws = "WS"
	}
	return fmt.Sprintf("an admin adds the rule %q to the workspace's policy: desk ws policy %s --allow '%s' (API: PUT /v1/workspaces/%s/policy); a token's or an execution's own policy must allow it too", rule.String(), ws, rule.String(), ws)
}

// refuseAddr is the refusal of a request whose address is one of the
// host's own and that no rule names exactly.
func refuseAddr(t Target, a netip.Addr, kind, name string) *Denied {
	what := a.String()
	if name != "" {
		what = fmt.Sprintf("%s resolves to %s,", name, a)
	}
	return &Denied{Target: t, Source: "desk", Reason: fmt.Sprintf("%s %s: desk refuses the host's own addresses (server-side request forgery), even under mode all", what, kind),
		Hint: fmt.Sprintf("only a rule naming the address exactly (%q) allows it; a host name never does", Rule{Host: a.String(), Ports: []int{t.Port}}.String())}
}

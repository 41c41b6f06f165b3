package jsvm

import (
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// The states of the URL parser: scheme, relative references, authority,
// path, query and fragment, file URLs.

// parseURL parses input against base (nil: none); ok is false for a
// failure.
func parseURL(input string, base *url) (*url, bool) {
	input = strings.TrimFunc(input, func(r rune) bool { return r <= ' ' })
	input = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, input)
	input = qjs.ToValidUTF8(input)
	scheme, rest, hasScheme := splitScheme(input)
	if !hasScheme {
		if base == nil {
			return nil, false
		}
		if base.opaque != nil {
			if strings.HasPrefix(input, "#") {
				u := base.clone()
				u.fragment = ptr(percentEncode(input[1:], inFragment))
				return u, true
			}
			return nil, false
		}
		return relative(input, base)
	}
	u := &url{scheme: scheme}
	if u.special() {
		if scheme == "file" {
			return parseFile(rest, u, base)
		}
		if base != nil && base.scheme == scheme && !strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "\\") {
			return relative(rest, base)
		}
		return authority(strings.TrimLeft(rest, "/\\"), u)
	}
	if strings.HasPrefix(rest, "//") {
		return authority(rest[2:], u)
	}
	if strings.HasPrefix(rest, "/") {
		return pathQueryFragment(rest, u)
	}
	// An opaque path.
	p, q, f := splitQF(rest)
	u.opaque = ptr(percentEncode(p, inC0))
	u.setQF(q, f)
	return u, true
}

// splitScheme splits "scheme:rest".
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(s[:i]), s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// splitQF splits "path?query#fragment" (query and fragment nil if absent).
func splitQF(s string) (p string, q, f *string) {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		f = ptr(s[i+1:])
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		q = ptr(s[i+1:])
		s = s[:i]
	}
	return s, q, f
}

func (u *url) setQF(q, f *string) {
	if q != nil {
		set := inQuery
		if u.special() {
			set = inSpecialQuery
		}
		u.query = ptr(percentEncode(*q, set))
	}
	if f != nil {
		u.fragment = ptr(percentEncode(*f, inFragment))
	}
}

// relative resolves the relative reference input against base.
func relative(input string, base *url) (*url, bool) {
	u := &url{scheme: base.scheme}
	if base.scheme == "file" {
		return parseFile(input, u, base)
	}
	slash := func(s string) bool { return strings.HasPrefix(s, "/") || u.special() && strings.HasPrefix(s, "\\") }
	switch {
	case slash(input) && len(input) > 1 && (input[1] == '/' || u.special() && input[1] == '\\'):
		return authority(input[2:], u)
	case slash(input):
		u.username, u.password, u.host, u.port = base.username, base.password, base.host, base.port
		return pathQueryFragment(input, u)
	}
	u.username, u.password, u.host, u.port = base.username, base.password, base.host, base.port
	return relativePath(input, u, base)
}

// relativePath resolves s, a path-relative reference ("a/b?q#f", "?q",
// "#f", ""), against base's path and query into u.
func relativePath(s string, u, base *url) (*url, bool) {
	p, q, f := splitQF(s)
	u.path = append([]string(nil), base.path...)
	if p == "" {
		if q == nil {
			u.query = base.query
		}
		u.setQF(q, f)
		return u, true
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
	u.addPath(p)
	u.setQF(q, f)
	return u, true
}

// authority parses "userinfo@host:port/path?query#fragment".
func authority(s string, u *url) (*url, bool) {
	end := strings.IndexAny(s, "/?#")
	if u.special() {
		end = strings.IndexAny(s, "/?#\\")
	}
	auth, rest := s, ""
	if end >= 0 {
		auth, rest = s[:end], s[end:]
	}
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		info := auth[:at]
		auth = auth[at+1:]
		user, pass, _ := strings.Cut(info, ":")
		u.username = percentEncode(user, inUserinfo)
		u.password = percentEncode(pass, inUserinfo)
	}
	hostPart, port := auth, ""
	if i := strings.LastIndexByte(auth, ':'); i >= 0 && !strings.Contains(auth[i:], "]") {
		hostPart, port = auth[:i], auth[i+1:]
	}
	if hostPart == "" && u.special() {
		return nil, false
	}
	h, ok := parseHost(hostPart, !u.special())
	if !ok {
		return nil, false
	}
	u.host = &h
	if port != "" {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return nil, false
			}
		}
		n, err := strconv.Atoi(port)
		if err != nil || n > 65535 {
			return nil, false
		}
		port = strconv.Itoa(n)
		if specialPort[u.scheme] == port {
			port = ""
		}
		u.port = port
	}
	if rest == "" && u.special() {
		rest = "/"
	}
	return pathQueryFragment(rest, u)
}

// pathQueryFragment parses the path, query and fragment of s into u.
func pathQueryFragment(s string, u *url) (*url, bool) {
	p, q, f := splitQF(s)
	if u.special() && p == "" {
		p = "/"
	}
	u.path = nil
	u.addPath(p)
	u.setQF(q, f)
	return u, true
}

// addPath appends the segments of p (relative to u.path) with "." and ".."
// resolved.
func (u *url) addPath(p string) {
	if u.special() {
		p = strings.ReplaceAll(p, "\\", "/")
	}
	p = strings.TrimPrefix(p, "/")
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch strings.ToLower(seg) {
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(u.path) > 0 {
				u.path = u.path[:len(u.path)-1]
			}
			if last {
				u.path = append(u.path, "")
			}
		case ".", "%2e":
			if last {
				u.path = append(u.path, "")
			}
		default:
			u.path = append(u.path, percentEncode(seg, inPath))
		}
	}
}

// parseFile parses what follows "file:" (or a relative reference against a
// file base).
func parseFile(s string, u *url, base *url) (*url, bool) {
	u.scheme = "file"
	if strings.HasPrefix(s, "//") || strings.HasPrefix(s, "\\\\") {
		rest := s[2:]
		end := strings.IndexAny(rest, "/\\?#")
		h := rest
		if end >= 0 {
			h, rest = rest[:end], rest[end:]
		} else {
			rest = ""
		}
		host, ok := parseHost(h, false)
		if !ok && h != "" {
			return nil, false
		}
		if host == "localhost" {
			host = ""
		}
		u.host = &host
		return pathQueryFragment(rest, u)
	}
	u.host = ptr("")
	if base != nil && base.scheme == "file" {
		u.host = base.host
		if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "\\") {
			return pathQueryFragment(s, u)
		}
		return relativePath(s, u, base)
	}
	return pathQueryFragment(s, u)
}

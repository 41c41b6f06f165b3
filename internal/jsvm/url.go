package jsvm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// A parser of URLs after the WHATWG URL standard, for the URL class. It
// follows the standard's states for special schemes (http, https, ws, wss,
// ftp, file), opaque and hierarchical non-special URLs, relative references,
// IPv4 and IPv6 hosts and percent-encoding. Not done: internationalized
// domain names (non-ASCII hosts are refused rather than turned into
// punycode) and Windows drive letters in file URLs.

var specialPort = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21", "file": ""}

// url is a parsed URL.
type url struct {
	scheme             string
	username, password string
	host               *string
	port               string
	path               []string // hierarchical path segments
	opaque             *string  // an opaque path ("mailto:x"), instead of path
	query, fragment    *string
}

func (u *url) special() bool { _, ok := specialPort[u.scheme]; return ok }

func ptr[T any](v T) *T { return &v }

func (u *url) clone() *url {
	c := *u
	c.path = append([]string(nil), u.path...)
	return &c
}

// String serializes u.
func (u *url) String() string {
	var b strings.Builder
	b.WriteString(u.scheme + ":")
	if u.host != nil {
		b.WriteString("//")
		if u.username != "" || u.password != "" {
			b.WriteString(u.username)
			if u.password != "" {
				b.WriteString(":" + u.password)
			}
			b.WriteByte('@')
		}
		b.WriteString(*u.host)
		if u.port != "" {
			b.WriteString(":" + u.port)
		}
	} else if u.opaque == nil && len(u.path) > 1 && u.path[0] == "" {
		b.WriteString("/.")
	}
	b.WriteString(u.pathname())
	if u.query != nil {
		b.WriteString("?" + *u.query)
	}
	if u.fragment != nil {
		b.WriteString("#" + *u.fragment)
	}
	return b.String()
}

func (u *url) pathname() string {
	if u.opaque != nil {
		return *u.opaque
	}
	if len(u.path) == 0 {
		return ""
	}
	return "/" + strings.Join(u.path, "/")
}

// Percent-encode sets.
func inC0(c byte) bool       { return c < 0x20 || c > 0x7e }
func inFragment(c byte) bool { return inC0(c) || strings.IndexByte(" \"<>`", c) >= 0 }
func inQuery(c byte) bool    { return inC0(c) || strings.IndexByte(" \"#<>", c) >= 0 }
func inSpecialQuery(c byte) bool {
	return inQuery(c) || c == '\''
}
func inPath(c byte) bool     { return inQuery(c) || strings.IndexByte("?`{}^", c) >= 0 }
func inUserinfo(c byte) bool { return inPath(c) || strings.IndexByte("/:;=@[\\]|", c) >= 0 }

func percentEncode(s string, set func(byte) bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if set(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func init() {
	hostFuncs["parseURL"] = hostParseURL
	hostFuncs["percentEncode"] = func(x *execution, args []qjs.Value) (qjs.Value, error) {
		s, err := x.argString(args, 0)
		if err != nil {
			return qjs.Undefined, err
		}
		set, _ := x.argString(args, 1)
		f := inPath
		switch set {
		case "userinfo":
			f = inUserinfo
		case "path-file":
			f = func(c byte) bool { return inPath(c) || c == '%' || c == '\\' || c == '\n' || c == '\r' || c == '\t' }
		}
		return x.c.String(percentEncode(s, f))
	}
}

// hostParseURL is host.parseURL(input, base) → [href, protocol, username,
// password, hostname, port, pathname, search, hash, hasHost], or null.
func hostParseURL(x *execution, args []qjs.Value) (qjs.Value, error) {
	input, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	var base *url
	if b := arg(args, 1); !b.IsUndefined() {
		s, err := x.c.ToString(b)
		if err != nil {
			return qjs.Undefined, err
		}
		var ok bool
		if base, ok = parseURL(s, nil); !ok {
			return qjs.Null, nil
		}
	}
	u, ok := parseURL(input, base)
	if !ok {
		return qjs.Null, nil
	}
	opt := func(p *string, prefix string) string {
		if p == nil {
			return ""
		}
		return prefix + *p
	}
	host := ""
	if u.host != nil {
		host = *u.host
	}
	return x.array(x.str(u.String()), x.str(u.scheme+":"), x.str(u.username), x.str(u.password),
		x.str(host), x.str(u.port), x.str(u.pathname()), x.str(opt(u.query, "?")), x.str(opt(u.fragment, "#")),
		qjs.Bool(u.host != nil)), nil
}

// fileURL returns the file: URL of an absolute path.
func fileURL(p string) string {
	return "file://" + percentEncode(p, func(c byte) bool { return inPath(c) || c == '%' })
}

// fileURLPath returns the path of a file: URL (ok false if it is not one
// with an empty or localhost host).
func fileURLPath(s string) (string, bool) {
	u, ok := parseURL(s, nil)
	if !ok || u.scheme != "file" || u.host == nil || *u.host != "" {
		return "", false
	}
	return percentDecode(u.pathname()), true
}

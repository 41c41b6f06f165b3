package quote

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ErrBadName is the error of a quoted element that does not parse, or
// that unquotes to no valid name.
var ErrBadName = errors.New("bad quoted name")

// Plain reports whether name is shown as itself.
func Plain(name string) bool {
	if strings.HasPrefix(name, `"`) {
		return false
	}
	for i := 0; i < len(name); {
		c := name[i]
		if c >= 0x20 && c < 0x7f { // printable ASCII: the common case
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n <= 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// Name returns the shown form of a name (one path element).
func Name(name string) string {
	if Plain(name) {
		return name
	}
	return strconv.Quote(name)
}

// Path returns the shown form of a path: each element quoted by Name.
func Path(p string) string {
	if !strings.Contains(p, `"`) && Plain(p) {
		return p // no element needs quoting ("/" is plain)
	}
	els := strings.Split(p, "/")
	for i, el := range els {
		els[i] = Name(el)
	}
	return strings.Join(els, "/")
}

// ParseName returns the name an element shows: a quoted element unquoted,
// any other as it is. A quoted element must unquote to a valid name: not
// empty, ".", "..", and without NUL or "/".
func ParseName(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	name, err := strconv.Unquote(s)
	if err != nil {
		return "", fmt.Errorf("%w %s: an element that begins with \" is a Go-quoted name (\"a\\nb\", \"caf\\xe9\")", ErrBadName, strconv.Quote(s))
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return "", fmt.Errorf("%w %s: a name may not be empty, \".\" or \"..\", nor hold NUL or /", ErrBadName, s)
	}
	return name, nil
}

// ParsePath returns the path p shows: each element parsed by ParseName.
func ParsePath(p string) (string, error) {
	if !strings.Contains(p, `"`) {
		return p, nil
	}
	els := strings.Split(p, "/")
	for i, el := range els {
		n, err := ParseName(el)
		if err != nil {
			return "", err
		}
		els[i] = n
	}
	return strings.Join(els, "/"), nil
}

// Paths returns each path's shown form (Path), never nil: for JSON lists.
func Paths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = Path(p)
	}
	return out
}

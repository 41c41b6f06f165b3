package deskgit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// args are one call's arguments: positional values, then an optional
// trailing options object.
type args struct {
	fn   string
	pos  []json.RawMessage
	opts json.RawMessage // nil: none
}

func parseArgs(fn string, raw json.RawMessage) (*args, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, argError("ERR_INVALID_ARG_TYPE", "git.%s: arguments are not JSON values: %v", fn, err)
	}
	a := &args{fn: fn}
	// Trailing undefined arguments (null in the JSON array) are absent.
	for len(list) > 0 && string(list[len(list)-1]) == "null" {
		list = list[:len(list)-1]
	}
	if n := len(list); n > 0 && bytes.HasPrefix(bytes.TrimSpace(list[n-1]), []byte("{")) {
		a.opts, list = list[n-1], list[:n-1]
	}
	a.pos = list
	return a, nil
}

// max fails when more than n positional arguments were given.
func (a *args) max(n int) error {
	if len(a.pos) > n {
		return argError("ERR_INVALID_ARG_TYPE", "git.%s takes at most %d argument(s) before its options, got %d", a.fn, n, len(a.pos))
	}
	return nil
}

// str is positional argument i as a string ("" when absent or null). A
// value git could take for an option (a leading "-") is refused unless
// dash.
func (a *args) str(i int, what string, dash bool) (string, error) {
	if i >= len(a.pos) || string(a.pos[i]) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.pos[i], &s); err != nil {
		return "", argError("ERR_INVALID_ARG_TYPE", "git.%s: the %s must be a string", a.fn, what)
	}
	if s == "" {
		return "", argError("ERR_INVALID_ARG_VALUE", "git.%s: the %s is empty", a.fn, what)
	}
	if !dash && strings.HasPrefix(s, "-") {
		return "", argError("ERR_INVALID_ARG_VALUE", "git.%s: the %s %q starts with '-' (use git.cli for options)", a.fn, what, s)
	}
	if strings.ContainsRune(s, 0) {
		return "", argError("ERR_INVALID_ARG_VALUE", "git.%s: the %s contains a NUL byte", a.fn, what)
	}
	return s, nil
}

// strs is positional argument i as a list of strings: a string or an
// array of strings (nil when absent).
func (a *args) strs(i int, what string) ([]string, error) {
	if i >= len(a.pos) || string(a.pos[i]) == "null" {
		return nil, nil
	}
	return decodeStrs(a.fn, what, a.pos[i])
}

// rest is every positional argument from i on, each a string.
func (a *args) rest(i int, what string) ([]string, error) {
	var out []string
	for j := i; j < len(a.pos); j++ {
		s, err := a.str(j, what, false)
		if err != nil {
			return nil, err
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

func decodeStrs(fn, what string, raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, argError("ERR_INVALID_ARG_TYPE", "git.%s: the %s must be a string or an array of strings", fn, what)
	}
	for _, s := range list {
		if strings.ContainsRune(s, 0) {
			return nil, argError("ERR_INVALID_ARG_VALUE", "git.%s: a %s contains a NUL byte", fn, what)
		}
	}
	return list, nil
}

// options decodes the options object into v (a pointer to a struct with
// json tags); an unknown option is an error naming it.
func (a *args) options(v any) error {
	if a.opts == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(a.opts))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return argError("ERR_INVALID_ARG_TYPE", "git.%s: option %s must be a %s", a.fn, te.Field, jsType(te.Type.Kind().String()))
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
			return argError("ERR_INVALID_ARG_VALUE", "git.%s: unknown option %s", a.fn, f)
		}
		return argError("ERR_INVALID_ARG_TYPE", "git.%s: options: %s", a.fn, msg)
	}
	return nil
}

func jsType(kind string) string {
	switch kind {
	case "bool":
		return "boolean"
	case "int", "int64", "float64":
		return "number"
	case "slice":
		return "array"
	}
	return kind
}

// paths is an options field that takes a string or an array of strings.
type paths []string

func (p *paths) UnmarshalJSON(b []byte) error {
	l, err := decodeStrs("", "path", b)
	if err != nil {
		return fmt.Errorf("want a string or an array of strings")
	}
	*p = l
	return nil
}

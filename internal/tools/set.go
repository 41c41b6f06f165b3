package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"regexp"
	"sort"
	"strings"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/wspath"
)

// Set is the tool set of one workspace: its store and, for exec, its
// execution runtime. A Set is cheap to make (make one per call if the
// workspace comes and goes); what must outlive it — the per-path locks and
// the remembered read offsets — is the store's State, which the caller owns
// and passes in. It is safe for concurrent use.
type Set struct {
	fs   *vfs.FS
	rt   *run.Runtime
	opts Options
	st   *State
}

// New returns the tool set over st's store and rt (nil: exec is not
// offered).
func New(st *State, rt *run.Runtime, opts Options) (*Set, error) {
	if st == nil || st.fs == nil {
		return nil, errors.New("new tool set: nil store state")
	}
	if err := opts.setDefaults(); err != nil {
		return nil, err
	}
	return &Set{fs: st.fs, rt: rt, opts: opts, st: st}, nil
}

// Options returns the set's options, defaults filled in.
func (s *Set) Options() Options { return s.opts }

// Tools returns the definitions of the tools this set offers, in a fixed
// order: without a runtime there is no exec; a ReadOnly set has only
// ReadOnlyTools. exec's description lists the runtime's backends.
func (s *Set) Tools() []Tool {
	var out []Tool
	for _, sp := range specs {
		if s.offers(sp) {
			out = append(out, sp.define(s.backends(), s.opts))
		}
	}
	return out
}

// Lookup returns the definition of tool name if the set offers it, without
// defining the others: what a caller that checks a call before making it
// (scopes, a token's backends) needs. Tools defines all of them, which costs
// tens of microseconds.
func (s *Set) Lookup(name string) (Tool, bool) {
	if sp := lookup(name); sp != nil && s.offers(sp) {
		return sp.define(s.backends(), s.opts), true
	}
	return Tool{}, false
}

// Names returns the names of the tools the set offers, in Tools' order.
func (s *Set) Names() []string {
	var out []string
	for _, sp := range specs {
		if s.offers(sp) {
			out = append(out, sp.Name)
		}
	}
	return out
}

// offers reports whether the set offers tool sp: without a runtime there is
// no exec, without a Publisher no publish; a ReadOnly set has only
// ReadOnlyTools.
func (s *Set) offers(sp *spec) bool {
	return !(sp.Name == "exec" && s.rt == nil || sp.Name == "publish" && s.opts.Publisher == nil || s.opts.ReadOnly && !IsReadOnly(sp.Name))
}

// backends are the runtime's backends (nil without a runtime).
func (s *Set) backends() []string {
	if s.rt == nil {
		return nil
	}
	return s.rt.Backends()
}

// Definitions returns every tool's definition with the default options:
// what `desk tools schema` prints. backends are listed in exec's
// description (nil: the backends desk knows: shell, sandbox, js, auto).
func Definitions(backends []string) []Tool {
	var o Options
	o.setDefaults()
	out := make([]Tool, 0, len(specs))
	for _, sp := range specs {
		out = append(out, sp.define(backends, o))
	}
	return out
}

// Call runs the tool name with its JSON input (nil or empty: {}). The error,
// if any, is always an *Error (use AsError to read it), with a message for
// the model. Unknown input fields are refused.
func (s *Set) Call(ctx context.Context, name string, input json.RawMessage, co *CallOptions) (*Result, error) {
	sp := lookup(name)
	if sp == nil {
		return nil, errorf(CodeUnknownTool, "there is no tool %q; the tools are %s", name, strings.Join(names(), ", "))
	}
	if sp.Name == "exec" && s.rt == nil {
		return nil, errorf(CodeUnavailable, "exec is not available: this workspace has no execution runtime")
	}
	if s.opts.ReadOnly && !IsReadOnly(sp.Name) {
		return nil, errorf(CodeForbidden, "%s is not allowed: this tool set is read-only (read, ls, find, grep)", name)
	}
	if co == nil {
		co = &CallOptions{}
	}
	res, err := sp.call(sp, s, ctx, input, co)
	if err != nil {
		return nil, AsError(err, "")
	}
	return res, nil
}

// goCall runs a tool's implementation f for a Go caller (the typed methods:
// Read, Write, ...): no call options, and an error made an *Error about
// path.
func goCall[I, O any](s *Set, ctx context.Context, in I, path string, f func(*Set, context.Context, I, *CallOptions) (*O, error)) (*O, error) {
	out, err := f(s, ctx, in, nil)
	if err != nil {
		return nil, AsError(err, path)
	}
	return out, nil
}

// spec is a tool's definition and implementation.
type spec struct {
	Tool
	// describe, if set, writes the description for the given backends.
	describe func(backends []string, o Options) string
	// limits, if set, gives the texts of the description and the input
	// schema that state a limit, each followed by its text for options o
	// (old, new, old, new, ...): the definition states the limits the set
	// enforces, not their defaults. Every old text must occur
	// (TestDefinitions_limits).
	limits func(o Options) []string
	call   func(sp *spec, s *Set, ctx context.Context, input json.RawMessage, co *CallOptions) (*Result, error)
}

func (sp *spec) define(backends []string, o Options) Tool {
	t := sp.Tool
	if sp.describe != nil {
		t.Description = sp.describe(backends, o)
	}
	if sp.limits != nil {
		r := strings.NewReplacer(sp.limits(o)...)
		t.Description = r.Replace(t.Description)
		t.InputSchema = json.RawMessage(r.Replace(string(t.InputSchema)))
	}
	t.Scopes = append([]string(nil), t.Scopes...)
	return t
}

// specs are the tools in the order they are listed.
var specs = []*spec{readSpec, writeSpec, editSpec, lsSpec, findSpec, grepSpec, deleteSpec, execSpec, publishSpec}

func lookup(name string) *spec {
	for _, sp := range specs {
		if sp.Name == name {
			return sp
		}
	}
	return nil
}

func names() []string {
	out := make([]string, len(specs))
	for i, sp := range specs {
		out[i] = sp.Name
	}
	return out
}

// output is a tool's typed output: it renders itself for the model.
type output interface {
	content() []Content
}

// typed adapts a typed tool method to a spec's call.
func typed[In any, Out output](f func(s *Set, ctx context.Context, in In, co *CallOptions) (Out, error)) func(*spec, *Set, context.Context, json.RawMessage, *CallOptions) (*Result, error) {
	return func(sp *spec, s *Set, ctx context.Context, raw json.RawMessage, co *CallOptions) (*Result, error) {
		var in In
		if err := decodeInput(sp, raw, &in); err != nil {
			return nil, err
		}
		out, err := f(s, ctx, in, co)
		if err != nil {
			return nil, err
		}
		return &Result{Content: out.content(), Structured: out}, nil
	}
}

var unknownField = regexp.MustCompile(`^json: unknown field "(.*)"$`)

// decodeInput decodes a tool's input strictly, with errors a model can act on.
func decodeInput(sp *spec, raw json.RawMessage, v any) error {
	name := sp.Name
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("data after the input object")
	}
	if err == nil {
		if missing := missingField(sp.InputSchema, raw, ""); missing != "" {
			return errorf(CodeInvalid, "%s: %s is required", name, missing)
		}
		return nil
	}
	fields := strings.Join(schemaFields(sp.InputSchema), ", ")
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		return errorf(CodeInvalid, "%s has no input field %q; its fields are %s", name, m[1], fields)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return errorf(CodeInvalid, "%s: field %q must be %s, not %s", name, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.As(err, &te) {
		return errorf(CodeInvalid, "%s: the input must be a JSON object with the fields %s", name, fields)
	}
	return errorf(CodeInvalid, "%s: invalid input: %v", name, err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "uint64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return goKind
}

// schemaFields lists the properties of an object schema.
func schemaFields(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(schema, &s)
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// resolve turns a tool's path argument into a clean absolute store path:
// quoted elements are unquoted (quote.ParsePath), relative paths are taken
// from /workspace (wspath.Resolve, as on every surface). "" is /workspace
// when allowEmpty. Tools show paths back with quote.Path.
func (s *Set) resolve(name, p string, allowEmpty bool) (string, error) {
	if p == "" {
		if allowEmpty {
			return wspath.Dir, nil
		}
		return "", errorf(CodeInvalid, "%s needs a path", name)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errorf(CodeInvalid, "the path %q contains a NUL byte", p)
	}
	p, err := quote.ParsePath(p)
	if err != nil {
		return "", &Error{Code: CodeInvalid, Message: err.Error() + ` (names are shown quoted when they are not printable UTF-8 or begin with "; give them back as shown)`}
	}
	return wspath.Resolve(p), nil
}

// ctx returns ctx with the set's journal actor.
func (s *Set) actorCtx(ctx context.Context) context.Context {
	return vfs.WithActor(ctx, s.opts.Actor)
}

// plural returns "1 thing" or "N things".
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if w, ok := strings.CutSuffix(word, "y"); ok {
		return fmt.Sprintf("%d %sies", n, w)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// schema returns a JSON Schema written as text; it must be valid JSON.
// sizeText writes a byte count as the descriptions do: "5 MiB", "256 KiB",
// "1500 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func schema(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		panic("tools: invalid schema JSON: " + s)
	}
	return json.RawMessage(s)
}

// missingField returns the first property a schema requires that the JSON
// value raw lacks ("edits[1].new"), looking into object properties and
// array items; "" when none is missing.
func missingField(schemaJSON, raw json.RawMessage, at string) string {
	var sc struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
		Items      json.RawMessage            `json:"items"`
	}
	if json.Unmarshal(schemaJSON, &sc) != nil {
		return ""
	}
	dot := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	if len(sc.Items) > 0 {
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) == nil {
			for i, el := range arr {
				if m := missingField(sc.Items, el, fmt.Sprintf("%s[%d]", at, i)); m != "" {
					return m
				}
			}
		}
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return ""
	}
	for _, k := range sc.Required {
		if _, ok := obj[k]; !ok {
			return dot(k)
		}
	}
	for k, sub := range sc.Properties {
		if v, ok := obj[k]; ok {
			if m := missingField(sub, v, dot(k)); m != "" {
				return m
			}
		}
	}
	return ""
}

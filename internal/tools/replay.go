package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
)

// Script is a model-free agent session: tool calls with checks on their
// results, replayed against a workspace (`desk tools replay FILE`). In JSON
// it is an object {"name", "calls": [...]} or just the array of calls.
type Script struct {
	Name  string `json:"name,omitempty"`
	Calls []Step `json:"calls"`
}

// Step is one tool call of a Script and what its result must satisfy.
type Step struct {
	// Tool and Input are the call. Input may hold "${NAME}" (a whole JSON
	// string) or ${NAME} inside a string, replaced by a value saved before.
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
	// Expect are the checks; none: the call must succeed.
	Expect Expect `json:"expect"`
	// Save stores values of the structured output for later steps: variable
	// name → dotted field path ("revision", "changes.created.0").
	Save map[string]string `json:"save,omitempty"`
}

// Expect are the checks of a Step.
type Expect struct {
	// Error: the call must fail (with Code, if set). Default: it must succeed.
	Error bool   `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
	// Contains and NotContains are substrings of the text shown to the model
	// (the error message for a failure); Regex an RE2 expression it matches.
	Contains    []string `json:"contains,omitempty"`
	NotContains []string `json:"not_contains,omitempty"`
	Regex       string   `json:"regex,omitempty"`
	// Structured must be a subset of the structured output: every field it
	// names must be there with an equal value (objects compared recursively).
	Structured json.RawMessage `json:"structured,omitempty"`
}

// ParseScript reads a script: an object with "calls", or an array of calls.
func ParseScript(data []byte) (*Script, error) {
	var s Script
	trimmed := strings.TrimSpace(string(data))
	var err error
	if strings.HasPrefix(trimmed, "[") {
		err = strictUnmarshal(data, &s.Calls)
	} else {
		err = strictUnmarshal(data, &s)
	}
	if err != nil {
		return nil, fmt.Errorf("parse replay script: %w", err)
	}
	for i, c := range s.Calls {
		if c.Tool == "" {
			return nil, fmt.Errorf("parse replay script: call %d has no tool", i+1)
		}
		if c.Expect.Regex != "" {
			if _, err := regexp.Compile(c.Expect.Regex); err != nil {
				return nil, fmt.Errorf("parse replay script: call %d: regex: %w", i+1, err)
			}
		}
	}
	return &s, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// CallFunc makes one tool call: a Set's Call, or a call through the API.
// Its error is a *Error for a tool failure; any other error stops a replay.
type CallFunc func(ctx context.Context, name string, input json.RawMessage) (*Result, error)

// StepResult is the outcome of one step.
type StepResult struct {
	Step     int      // 1-based
	Tool     string   //
	Failures []string // empty: passed
	Text     string   // the text the model would have seen
}

// Replay runs the script's calls in order with call, checks each result
// and writes one line per step to w ("ok 3 edit" or "FAIL 3 edit: ...").
// It returns the results and an error only when a call could not be made.
func Replay(ctx context.Context, s *Script, call CallFunc, w io.Writer) ([]StepResult, error) {
	vars := map[string]json.RawMessage{}
	var out []StepResult
	for i, st := range s.Calls {
		r := StepResult{Step: i + 1, Tool: st.Tool}
		input := substitute(st.Input, vars)
		res, err := call(ctx, st.Tool, input)
		var te *Error
		switch {
		case err == nil:
			r.Text = res.Text()
		case errors.As(err, &te):
			r.Text = te.Code + ": " + te.Message
		default:
			return out, fmt.Errorf("replay call %d (%s): %w", i+1, st.Tool, err)
		}
		r.Failures = check(st.Expect, res, te, r.Text)
		if res != nil {
			for name, field := range st.Save {
				v, ok := lookupField(res.Structured, field)
				if !ok {
					r.Failures = append(r.Failures, fmt.Sprintf("save %s: no field %q in the output", name, field))
					continue
				}
				vars[name] = v
			}
		}
		if w != nil {
			if len(r.Failures) == 0 {
				fmt.Fprintf(w, "ok   %d %s\n", r.Step, r.Tool)
			} else {
				fmt.Fprintf(w, "FAIL %d %s: %s\n", r.Step, r.Tool, strings.Join(r.Failures, "; "))
				fmt.Fprintf(w, "     result: %s\n", strings.ReplaceAll(strings.TrimRight(r.Text, "\n"), "\n", "\n             "))
			}
		}
		out = append(out, r)
	}
	return out, nil
}

var varRef = regexp.MustCompile(`"\$\{([A-Za-z0-9_]+)\}"|\$\{([A-Za-z0-9_]+)\}`)

// substitute replaces "${NAME}" (a whole JSON string) by the saved JSON
// value, and ${NAME} inside a string by the value's text.
func substitute(in json.RawMessage, vars map[string]json.RawMessage) json.RawMessage {
	if len(vars) == 0 || len(in) == 0 {
		return in
	}
	return json.RawMessage(varRef.ReplaceAllFunc(in, func(m []byte) []byte {
		sub := varRef.FindSubmatch(m)
		if len(sub[1]) > 0 {
			if v, ok := vars[string(sub[1])]; ok {
				return v
			}
			return m
		}
		v, ok := vars[string(sub[2])]
		if !ok {
			return m
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			b, _ := json.Marshal(s)
			return b[1 : len(b)-1]
		}
		return v
	}))
}

// check returns what about a result does not meet e.
func check(e Expect, res *Result, te *Error, text string) []string {
	var bad []string
	switch {
	case e.Error && te == nil:
		bad = append(bad, "succeeded, expected an error")
	case !e.Error && te != nil:
		bad = append(bad, "failed: "+te.Code)
	case e.Code != "" && te != nil && te.Code != e.Code:
		bad = append(bad, fmt.Sprintf("error code %s, expected %s", te.Code, e.Code))
	}
	for _, c := range e.Contains {
		if !strings.Contains(text, c) {
			bad = append(bad, fmt.Sprintf("text lacks %q", c))
		}
	}
	for _, c := range e.NotContains {
		if strings.Contains(text, c) {
			bad = append(bad, fmt.Sprintf("text contains %q", c))
		}
	}
	if e.Regex != "" && !regexp.MustCompile(e.Regex).MatchString(text) {
		bad = append(bad, fmt.Sprintf("text does not match %q", e.Regex))
	}
	if len(e.Structured) > 0 {
		var want, got any
		json.Unmarshal(e.Structured, &want)
		if res != nil {
			b, _ := json.Marshal(res.Structured)
			json.Unmarshal(b, &got)
		}
		if path, ok := subset(want, got, ""); !ok {
			bad = append(bad, fmt.Sprintf("structured output differs at %s", path))
		}
	}
	return bad
}

// subset reports whether want is contained in got, and where not.
func subset(want, got any, at string) (string, bool) {
	wm, ok := want.(map[string]any)
	if !ok {
		if reflect.DeepEqual(want, got) {
			return "", true
		}
		if at == "" {
			at = "the top"
		}
		return fmt.Sprintf("%s (got %s)", at, compactJSON(got)), false
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return fmt.Sprintf("%s (not an object)", at), false
	}
	for k, wv := range wm {
		p := k
		if at != "" {
			p = at + "." + k
		}
		if where, ok := subset(wv, gm[k], p); !ok {
			return where, false
		}
	}
	return "", true
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// lookupField returns the JSON value at a dotted path of a structured output.
func lookupField(structured any, field string) (json.RawMessage, bool) {
	b, _ := json.Marshal(structured)
	var v any
	json.Unmarshal(b, &v)
	for _, k := range strings.Split(field, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(k, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	out, _ := json.Marshal(v)
	return out, true
}

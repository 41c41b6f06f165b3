package tools

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestReplay_session(t *testing.T) {
	e := newEnv(t, Options{})
	data, err := os.ReadFile("testdata/session.replay.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseScript(data)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	call := func(ctx context.Context, name string, in json.RawMessage) (*Result, error) {
		return e.set.Call(ctx, name, in, nil)
	}
	res, err := Replay(e.ctx, s, call, &log)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if len(r.Failures) > 0 {
			t.Errorf("%s", log.String())
			break
		}
	}
	if len(res) != len(s.Calls) {
		t.Errorf("%d results for %d calls", len(res), len(s.Calls))
	}
}

func TestReplay_checks(t *testing.T) {
	e := newEnv(t, Options{})
	call := func(ctx context.Context, name string, in json.RawMessage) (*Result, error) {
		return e.set.Call(ctx, name, in, nil)
	}
	script := `[
	  {"tool": "write", "input": {"path": "a", "content": "x"}, "expect": {"contains": ["nope"]}},
	  {"tool": "read", "input": {"path": "a"}, "expect": {"error": true}},
	  {"tool": "read", "input": {"path": "b"}},
	  {"tool": "read", "input": {"path": "b"}, "expect": {"error": true, "code": "conflict"}},
	  {"tool": "read", "input": {"path": "a"}, "expect": {"structured": {"kind": "image"}, "regex": "^2\t", "not_contains": ["x"]}},
	  {"tool": "read", "input": {"path": "a"}, "save": {"v": "nofield"}}
	]`
	s, err := ParseScript([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(e.ctx, s, call, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`text lacks "nope"`,
		"succeeded, expected an error",
		"failed: not_found",
		"error code not_found, expected conflict",
		`text does not match "^2\t"; text contains "x"; structured output differs at kind (got "text")`,
		`save v: no field "nofield" in the output`,
	}
	for i, r := range res {
		got := strings.Join(r.Failures, "; ")
		// Failures come in a fixed order but the last case's order is checks first.
		for _, w := range strings.Split(want[i], "; ") {
			if !strings.Contains(got, w) {
				t.Errorf("step %d: failures %q lack %q", i+1, got, w)
			}
		}
	}
	for _, bad := range []string{`{"calls":[{"input":{}}]}`, `{"calls":[],"extra":1}`, `[{"tool":"read","expect":{"regex":"("}}]`, `nope`} {
		if _, err := ParseScript([]byte(bad)); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}

func TestEncode(t *testing.T) {
	defs := Definitions([]string{"shell", "js"})
	for _, f := range []string{FormatOpenAI, FormatAnthropic, FormatMCP} {
		b, err := Encode(defs, f)
		if err != nil {
			t.Fatal(err)
		}
		var v []map[string]any
		if err := json.Unmarshal(b, &v); err != nil || len(v) != 9 {
			t.Fatalf("%s: %v %d", f, err, len(v))
		}
		switch f {
		case FormatOpenAI:
			fn := v[0]["function"].(map[string]any)
			if v[0]["type"] != "function" || fn["name"] != "read" || fn["parameters"] == nil {
				t.Errorf("openai: %v", v[0])
			}
		case FormatAnthropic:
			if v[0]["name"] != "read" || v[0]["input_schema"] == nil {
				t.Errorf("anthropic: %v", v[0])
			}
		case FormatMCP:
			if v[0]["inputSchema"] == nil || v[0]["outputSchema"] == nil || v[0]["annotations"].(map[string]any)["readOnlyHint"] != true {
				t.Errorf("mcp: %v", v[0])
			}
		}
	}
	if ex := defs[7]; !strings.Contains(ex.Description, "- js: ") || strings.Contains(ex.Description, "- sandbox: ") || !strings.Contains(ex.Description, "- auto: ") {
		t.Errorf("exec description for shell and js:\n%s", ex.Description)
	}
	if _, err := Encode(defs, "xml"); err == nil {
		t.Error("unknown format accepted")
	}
}

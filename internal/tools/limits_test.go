package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDefinitions_limits: the descriptions and input schemas state the
// limits the set enforces. Every text a spec's limits replaces occurs in its
// definition (so a reworded description cannot silently keep a default), and
// a set with other options states those.
func TestDefinitions_limits(t *testing.T) {
	var def Options
	def.setDefaults()
	for _, sp := range specs {
		if sp.limits == nil {
			continue
		}
		pairs := sp.limits(def)
		text := sp.Description + string(sp.InputSchema)
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(text, pairs[i]) {
				t.Errorf("%s: the definition lacks %q", sp.Name, pairs[i])
			}
			if pairs[i] != pairs[i+1] {
				t.Errorf("%s: with the default options %q becomes %q", sp.Name, pairs[i], pairs[i+1])
			}
		}
	}

	e := newEnv(t, Options{
		MaxReadLines: 50, MaxReadBytes: 64 << 10, MaxLineBytes: 300, MaxImageBytes: 1 << 20,
		MaxWriteBytes: 3 << 20, MaxEditFileBytes: 4 << 20,
		DefaultListLimit: 20, MaxListLimit: 200,
		DefaultGrepLimit: 7, MaxGrepLimit: 70, MaxGrepContext: 3, MaxGrepFileBytes: 2 << 20, MaxGrepLineBytes: 123,
	})
	want := map[string][]string{
		"read":  {"at most 50 lines and 64 KiB per call", "lines longer than 300 bytes", "up to 1 MiB)", `"maximum": 50, "description": "Most lines to return. Default and maximum 50."`},
		"write": {"at most 3 MiB per call"},
		"edit":  {"Files up to 4 MiB."},
		"ls":    {"at most 20 entries by default (limit up to 200)", `"maximum": 200, "description": "Most entries to return. Default 20."`},
		"find":  {"20 matches by default (limit up to 200)", `"maximum": 200`},
		"grep":  {"files over 2 MiB are skipped", "lines longer than 123 bytes", "7 matches by default (limit up to 70)", `"maximum": 3, "description": "Lines of context`, `"maximum": 70, "description": "Most matches to return. Default 7."`},
	}
	for _, tool := range e.set.Tools() {
		if !json.Valid(tool.InputSchema) {
			t.Errorf("%s: invalid input schema", tool.Name)
		}
		text := tool.Description + string(tool.InputSchema)
		for _, w := range want[tool.Name] {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the definition lacks %q:\n%s", tool.Name, w, text)
			}
		}
		for _, stale := range []string{"2000 lines", "256 KiB", "5 MiB)", "(limit up to 5000)", "(limit up to 1000)", "\"maximum\": 5000", "\"maximum\": 2000"} {
			if strings.Contains(text, stale) {
				t.Errorf("%s: still states the default %q", tool.Name, stale)
			}
		}
	}
}

// TestSet_Lookup: Lookup and Names agree with Tools, for a full set, a
// read-only one and one without a runtime (no exec).
func TestSet_Lookup(t *testing.T) {
	e := newEnv(t, Options{})
	ro, err := New(e.set.st, e.rt, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	noRun, err := New(e.set.st, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Set{"full": e.set, "read-only": ro, "no runtime": noRun} {
		defs := s.Tools()
		var names []string
		for _, d := range defs {
			names = append(names, d.Name)
			got, ok := s.Lookup(d.Name)
			if !ok || got.Description != d.Description || string(got.InputSchema) != string(d.InputSchema) || strings.Join(got.Scopes, ",") != strings.Join(d.Scopes, ",") {
				t.Errorf("%s: Lookup(%s) = %v, differs from Tools", name, d.Name, ok)
			}
		}
		if strings.Join(s.Names(), ",") != strings.Join(names, ",") {
			t.Errorf("%s: Names %v, Tools %v", name, s.Names(), names)
		}
		for _, sp := range specs {
			if _, ok := s.Lookup(sp.Name); ok != strings.Contains(","+strings.Join(names, ",")+",", ","+sp.Name+",") {
				t.Errorf("%s: Lookup(%s) offers %v", name, sp.Name, ok)
			}
		}
	}
	if _, ok := noRun.Lookup("exec"); ok {
		t.Error("a set without a runtime offers exec")
	}
}

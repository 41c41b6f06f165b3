package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestSchemas_golden keeps every tool definition (name, description,
// schemas, annotations, scopes) in testdata/tools.golden.json; run with
// -update after an intended change, and review the diff.
func TestSchemas_golden(t *testing.T) {
	got, err := json.MarshalIndent(Definitions(nil), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "tools.golden.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestSchemas_golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tool definitions differ from %s; run go test ./internal/tools -run TestSchemas_golden -update and review the diff", golden)
	}
}

// TestSchemas_match checks each input schema lists exactly the fields its
// Go input type decodes, and each output schema's fields are the output
// type's JSON fields.
func TestSchemas_match(t *testing.T) {
	types := map[string][2]any{
		"read": {ReadInput{}, ReadOutput{}}, "write": {WriteInput{}, WriteOutput{}}, "edit": {EditInput{}, EditOutput{}},
		"ls": {LsInput{}, LsOutput{}}, "find": {FindInput{}, FindOutput{}}, "grep": {GrepInput{}, GrepOutput{}},
		"delete": {DeleteInput{}, DeleteOutput{}}, "exec": {ExecInput{}, ExecOutput{}}, "publish": {PublishInput{}, PublishOutput{}},
	}
	for _, tl := range Definitions(nil) {
		io, ok := types[tl.Name]
		if !ok {
			t.Errorf("no types for %s", tl.Name)
			continue
		}
		for i, sc := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
			want := jsonFields(io[i])
			got := schemaFields(sc)
			if !slices.Equal(got, want) {
				t.Errorf("%s schema %d fields %v, Go type fields %v", tl.Name, i, got, want)
			}
		}
		if tl.Description == "" || tl.Title == "" || len(tl.Scopes) == 0 {
			t.Errorf("%s: missing description, title or scopes", tl.Name)
		}
	}
}

func jsonFields(v any) []string {
	b, _ := json.Marshal(v)
	var m map[string]any
	json.Unmarshal(b, &m)
	// Marshal omits omitempty fields: decode the type's tags instead.
	return fieldsOf(v, m)
}

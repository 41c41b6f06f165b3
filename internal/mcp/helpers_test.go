package mcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
)

var bg = context.Background()

// backends are the execution backends of the test workspaces.
func backends() (map[string]run.Backend, run.Options) {
	sh := shell.New(shell.Options{})
	return map[string]run.Backend{"shell": sh}, run.Options{DefaultBackend: "shell", Router: sh.Route}
}

// wsOptions are the workspace options of test hosts.
func wsOptions() workspace.Options {
	b, ro := backends()
	return workspace.Options{Backends: b, Run: ro}
}

// store opens a store with a runtime.
func store(t *testing.T) (*vfs.FS, *run.Runtime) {
	t.Helper()
	fsys, err := vfs.Open(bg, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, ro := backends()
	rt, err := run.Open(bg, fsys, b, ro)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(); fsys.Close() })
	return fsys, rt
}

// session is a connected client session with the server's tool schemas.
type session struct {
	t       *testing.T
	cs      *sdk.ClientSession
	schemas map[string]*jsonschema.Resolved // output schemas by tool
}

func newSession(t *testing.T, cs *sdk.ClientSession) *session {
	t.Helper()
	s := &session{t: t, cs: cs, schemas: map[string]*jsonschema.Resolved{}}
	lt, err := cs.ListTools(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		b, _ := json.Marshal(tl.OutputSchema)
		var sc jsonschema.Schema
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatalf("%s output schema: %v", tl.Name, err)
		}
		r, err := sc.Resolve(nil)
		if err != nil {
			t.Fatalf("%s output schema: %v", tl.Name, err)
		}
		s.schemas[tl.Name] = r
	}
	return s
}

// call calls a tool; its structured content must match its output schema.
func (s *session) call(name string, args any) *sdk.CallToolResult {
	s.t.Helper()
	res, err := s.cs.CallTool(bg, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		var v any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &v)
		if sc := s.schemas[name]; sc != nil {
			if err := sc.Validate(v); err != nil {
				s.t.Errorf("%s: structured content does not match the output schema: %v\n%s", name, err, b)
			}
		}
	}
	return res
}

// text returns the text content of a result.
func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// okText calls a tool that must succeed and returns its text.
func (s *session) okText(name string, args any) string {
	s.t.Helper()
	res := s.call(name, args)
	if res.IsError {
		s.t.Fatalf("%s %v: error %s", name, args, text(res))
	}
	return text(res)
}

// errText calls a tool that must fail and returns its text.
func (s *session) errText(name string, args any) string {
	s.t.Helper()
	res := s.call(name, args)
	if !res.IsError {
		s.t.Fatalf("%s %v: succeeded: %s", name, args, text(res))
	}
	return text(res)
}

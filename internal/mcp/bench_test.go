package mcp_test

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/internal/mcp"
)

// BenchmarkCall measures a read, a grep and an exec of echo through the
// go-sdk client, in memory and over loopback streamable HTTP.
func BenchmarkCall(b *testing.B) {
	t := &testing.T{}
	cases := []struct {
		name string
		args map[string]any
		tool string
	}{
		{"read", map[string]any{"path": "bench/a.txt"}, "read"},
		{"grep", map[string]any{"query": "gamma", "path": "bench", "limit": 5}, "grep"},
		{"exec_echo", map[string]any{"command": "echo hi", "backend": "shell"}, "exec"},
	}
	run := func(b *testing.B, cs *sdk.ClientSession) {
		cs.CallTool(bg, &sdk.CallToolParams{Name: "write", Arguments: map[string]any{"path": "bench/a.txt", "content": "alpha\nbeta\ngamma\n"}})
		for _, c := range cases {
			b.Run(c.name, func(b *testing.B) {
				for b.Loop() {
					res, err := cs.CallTool(bg, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
					if err != nil || res.IsError {
						b.Fatal(err, res)
					}
				}
			})
		}
	}
	b.Run("memory", func(b *testing.B) {
		fsys, rt := store(t)
		s := inMemory(t, &mcp.StoreWorkspace{WorkspaceName: "demo", FS: fsys, Runtime: rt}, mcp.Options{}, nil)
		run(b, s.cs)
	})
	b.Run("http", func(b *testing.B) {
		e := newHTTPEnv(t)
		s, err := e.connect("demo", "all")
		if err != nil {
			b.Fatal(err)
		}
		run(b, s.cs)
	})
}

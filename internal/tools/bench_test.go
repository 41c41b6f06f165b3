package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkCall measures in-process tool calls (Set.Call) of the kinds the
// MCP latency benchmark makes: read, grep, and exec of echo on the shell
// backend.
func BenchmarkCall(b *testing.B) {
	e := newEnvB(b)
	e.put("/workspace/bench/a.txt", strings.Repeat("alpha\nbeta\ngamma\n", 20))
	e.put("/workspace/bench/b.txt", "one\ntwo\n")
	for _, c := range []struct{ name, tool, in string }{
		{"read", "read", `{"path":"bench/a.txt"}`},
		{"grep", "grep", `{"query":"gamma","path":"bench","limit":5}`},
		{"exec_echo", "exec", `{"command":"echo hi","backend":"shell"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := e.set.Call(e.ctx, c.tool, json.RawMessage(c.in), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package tools

import (
	"encoding/json"
	"fmt"
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

// BenchmarkLsPage lists pages of 500 entries of a directory of 100,000:
// the first page, the last page through a cursor (constant cost), and
// the last page through an offset (reads the 99,500 entries before it).
func BenchmarkLsPage(b *testing.B) {
	e := newEnvB(b)
	files := map[string]string{}
	for i := range 100_000 {
		files[fmt.Sprintf("/workspace/big/f%06d", i)] = ""
	}
	e.fill(files)
	last := cursor{tool: "ls", root: "/workspace/big", after: "f099499", count: 99_500}.String()
	for _, c := range []struct{ name, in string }{
		{"first", `{"path":"big"}`},
		{"last_cursor", `{"path":"big","cursor":` + mustJSON(last) + `}`},
		{"last_offset", `{"path":"big","offset":99500}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := e.set.Call(e.ctx, "ls", json.RawMessage(c.in), nil)
				if err != nil {
					b.Fatal(err)
				}
				if n := len(res.Structured.(*LsOutput).Entries); n != 500 {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}

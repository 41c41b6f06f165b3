package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/vfs"
)

// BenchmarkCall_Policy is the cost of the path rules per tool call: the
// same calls as BenchmarkCall without rules (the baseline) and under the
// done-when token's (deny **/.env, write src/**, read /**, after a
// workspace layer of three rules), every store call checked
// (vfs.WithAccess) through a new policy.Checker per call, as the API and
// run's Gate make one. docs/benchmarks.md.
func BenchmarkCall_Policy(b *testing.B) {
	e := newEnvB(b)
	e.put("/workspace/src/a.txt", strings.Repeat("alpha\nbeta\ngamma\n", 20))
	e.put("/workspace/src/b.txt", "one\ntwo\n")
	var set policy.Set
	for _, l := range []struct {
		src   string
		rules []string
	}{
		{policy.SourceWorkspace, []string{"deny /workspace/.git/hooks/**", "write /workspace/**", "read /**"}},
		{policy.SourceToken, []string{"deny **/.env", "write src/**", "read /**"}},
	} {
		var p policy.Policy
		for _, s := range l.rules {
			r, err := policy.ParsePathRule(s)
			if err != nil {
				b.Fatal(err)
			}
			p.Paths = append(p.Paths, r)
		}
		p, err := p.Validate()
		if err != nil {
			b.Fatal(err)
		}
		set = append(set, policy.Layer{Source: l.src, Policy: p})
	}
	for _, c := range []struct{ name, tool, in string }{
		{"read", "read", `{"path":"src/a.txt"}`},
		{"write", "write", `{"path":"src/c.txt","content":"x\n"}`},
		{"grep", "grep", `{"query":"gamma","path":"src","limit":5}`},
	} {
		for _, m := range []struct {
			name string
			on   bool
		}{{"baseline", false}, {"rules", true}} {
			b.Run(c.name+"/"+m.name, func(b *testing.B) {
				for b.Loop() {
					ctx := e.ctx
					if m.on {
						ctx = vfs.WithAccess(e.ctx, set.Checker()) // a new one per call, as the API makes
					}
					if _, err := e.set.Call(ctx, c.tool, json.RawMessage(c.in), nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

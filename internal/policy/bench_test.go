package policy

import "testing"

// BenchmarkEvaluate is the policy's cost per tool call: a path decision
// and a script decision under the done-when token (docs/benchmarks.md).
func BenchmarkEvaluate(b *testing.B) {
	ws := mustPolicy(b, []string{"deny /workspace/.git/hooks/**", "write /workspace/**", "read /**"}, []string{"deny rm -rf /workspace", "deny curl *"})
	tok := mustPolicy(b, []string{"deny **/.env", "write src/**", "read /**"}, []string{"allow go test *", "ask git push *", "allow *"})
	set := Set{{SourceWorkspace, ws}, {SourceToken, tok}}
	b.Run("path", func(b *testing.B) {
		for b.Loop() {
			if set.Path("/workspace/src/pkg/main.go", Write).Outcome != Allowed {
				b.Fatal("denied")
			}
		}
	})
	b.Run("script", func(b *testing.B) {
		for b.Loop() {
			if set.Script("cd src && go test ./... 2>&1 | tail -n 20").Outcome != Allowed {
				b.Fatal("not allowed")
			}
		}
	})
	b.Run("baseline-no-rules", func(b *testing.B) {
		var none Set
		for b.Loop() {
			none.Path("/workspace/src/pkg/main.go", Write)
			none.Script("cd src && go test ./... 2>&1 | tail -n 20")
		}
	})
}

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

// BenchmarkChecker is a remembered path check (Checker), as the store asks
// it again during one call.
func BenchmarkChecker(b *testing.B) {
	tok := mustPolicy(b, []string{"deny **/.env", "write src/**", "read /**"}, nil)
	c := Set{{SourceToken, tok}}.Checker()
	for b.Loop() {
		if c.AllowPath("/workspace/src/pkg/main.go", true) != 0 {
			b.Fatal("denied")
		}
	}
}

// BenchmarkStore_Policy is reading a workspace's stored policy once per
// call, as every API call and execution does (a stat while the file is
// unchanged).
func BenchmarkStore_Policy(b *testing.B) {
	s := OpenStore(b.TempDir())
	if err := s.SetPolicy("w", mustPolicy(b, []string{"deny /workspace/.git/hooks/**", "write /workspace/**", "read /**"}, []string{"deny rm -rf /workspace", "deny curl *"})); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if p, err := s.Policy("w"); err != nil || len(p.Paths) != 3 {
			b.Fatal(p, err)
		}
	}
}

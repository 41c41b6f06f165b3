package policy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustPolicy(t testing.TB, paths, cmds []string) Policy {
	t.Helper()
	var p Policy
	for _, s := range paths {
		r, err := ParsePathRule(s)
		if err != nil {
			t.Fatal(err)
		}
		p.Paths = append(p.Paths, r)
	}
	for _, s := range cmds {
		r, err := ParseCommandRule(s)
		if err != nil {
			t.Fatal(err)
		}
		p.Commands = append(p.Commands, r)
	}
	p, err := p.Validate()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSet_Path(t *testing.T) {
	ws := mustPolicy(t, []string{"deny /workspace/.git/hooks/**", "write /workspace/**", "read /**"}, nil)
	tok := mustPolicy(t, []string{"deny **/.env", "write src/**", "read /**"}, nil)
	both := Set{{SourceWorkspace, ws}, {SourceToken, tok}}
	for _, tc := range []struct {
		name string
		set  Set
		path string
		want Access
		rule string
		src  string
	}{
		{"no policy", nil, "/workspace/a", Write, "", ""},
		{"first match wins", Set{{SourceWorkspace, ws}}, "/workspace/.git/hooks/pre-commit", Deny, "deny /workspace/.git/hooks/**", SourceWorkspace},
		{"the directory itself", Set{{SourceWorkspace, ws}}, "/workspace/.git/hooks", Deny, "deny /workspace/.git/hooks/**", SourceWorkspace},
		{"sibling", Set{{SourceWorkspace, ws}}, "/workspace/.git/config", Write, "", ""},
		{"outside workspace", Set{{SourceWorkspace, ws}}, "/etc/passwd", Read, "read /**", SourceWorkspace},
		{"token narrows: .env anywhere", both, "/workspace/.env", Deny, "deny **/.env", SourceToken},
		{"token narrows: .env deep", both, "/workspace/src/x/.env", Deny, "deny **/.env", SourceToken},
		{"token narrows: .env outside workspace", both, "/home/.env", Deny, "deny **/.env", SourceToken},
		{"relative pattern is under /workspace", both, "/workspace/src/main.go", Write, "", ""},
		{"src dir itself", both, "/workspace/src", Write, "", ""},
		{"token read elsewhere", both, "/workspace/README", Read, "read /**", SourceToken},
		{"token cannot widen", both, "/workspace/.git/hooks/x", Deny, "deny /workspace/.git/hooks/**", SourceWorkspace},
		{"not /src", both, "/src/a", Read, "read /**", SourceWorkspace},
		{"no rule matches in a layer", Set{{SourceToken, mustPolicy(t, []string{"deny /workspace/secret"}, nil)}}, "/workspace/other", Write, "", ""},
		{"braces", Set{{SourceToken, mustPolicy(t, []string{"deny **/*.{pem,key}"}, nil)}}, "/workspace/a/b.key", Deny, "deny **/*.{pem,key}", SourceToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.Access(tc.path); got != tc.want {
				t.Fatalf("Access(%s) = %s, want %s", tc.path, got, tc.want)
			}
			d := tc.set.Path(tc.path, Write)
			if d.Rule != tc.rule || d.Source != tc.src {
				t.Fatalf("Path(%s) rule %q from %q, want %q from %q", tc.path, d.Rule, d.Source, tc.rule, tc.src)
			}
			if (d.Outcome == Allowed) != (tc.want == Write) {
				t.Fatalf("Path(%s, write) = %s with access %s", tc.path, d.Outcome, tc.want)
			}
			r := tc.set.Path(tc.path, Read)
			if (r.Outcome == Allowed) != (tc.want != Deny) {
				t.Fatalf("Path(%s, read) = %s with access %s", tc.path, r.Outcome, tc.want)
			}
		})
	}
}

func TestSet_Command(t *testing.T) {
	ws := mustPolicy(t, nil, []string{"deny rm -rf /workspace", "deny curl *", "ask npm publish", "allow git status"})
	tok := mustPolicy(t, nil, []string{"allow go test *", "ask git push *", "allow git *"})
	strict := mustPolicy(t, nil, []string{"allow go *"})
	strict.DefaultCommand = Refuse
	for _, tc := range []struct {
		name string
		set  Set
		cmd  Command
		want string
		rule string
	}{
		{"no policy", nil, Literal("rm", "-rf", "/"), Allowed, ""},
		{"no rule matches", Set{{SourceWorkspace, ws}}, Literal("ls"), Allowed, ""},
		{"exact deny", Set{{SourceWorkspace, ws}}, Literal("rm", "-rf", "/workspace"), Denied, "deny rm -rf /workspace"},
		{"prefix: more args still match", Set{{SourceWorkspace, ws}}, Literal("rm", "-rf", "/workspace", "/tmp"), Denied, "deny rm -rf /workspace"},
		{"other args", Set{{SourceWorkspace, ws}}, Literal("rm", "-rf", "/workspace/x"), Allowed, ""},
		{"star", Set{{SourceWorkspace, ws}}, Literal("curl", "https://x"), Denied, "deny curl *"},
		{"final star matches no word", Set{{SourceWorkspace, ws}}, Literal("curl"), Denied, "deny curl *"},
		{"path name matches by base", Set{{SourceWorkspace, ws}}, Literal("/usr/bin/curl", "x"), Denied, "deny curl *"},
		{"ask", Set{{SourceWorkspace, ws}}, Literal("npm", "publish", "--tag", "x"), Asked, "ask npm publish"},
		{"first match wins", Set{{SourceToken, tok}}, Literal("git", "push", "origin", "main"), Asked, "ask git push *"},
		{"later rule", Set{{SourceToken, tok}}, Literal("git", "commit", "-m", "x"), Allowed, "allow git *"},
		{"strictest layer", Set{{SourceWorkspace, ws}, {SourceToken, tok}}, Literal("curl", "x"), Denied, "deny curl *"},
		{"default deny", Set{{SourceToken, strict}}, Literal("ls"), Denied, "default deny"},
		{"default deny, allowed", Set{{SourceToken, strict}}, Literal("go", "test", "./..."), Allowed, "allow go *"},
		{"dynamic name: strictest rule", Set{{SourceToken, tok}}, Command{Words: []Word{{Dynamic: true}, {Text: "x"}}}, Asked, "ask git push *"},
		{"dynamic name: deny anywhere", Set{{SourceWorkspace, ws}}, Command{Words: []Word{{Dynamic: true}}}, Denied, "deny rm -rf /workspace"},
		{"dynamic name: default", Set{{SourceToken, strict}}, Command{Words: []Word{{Dynamic: true}}}, Denied, "default deny"},
		{"dynamic arg may be push", Set{{SourceToken, tok}}, Command{Words: []Word{{Text: "git"}, {Dynamic: true}}}, Asked, "ask git push *"},
		{"dynamic arg of another name", Set{{SourceToken, tok}}, Command{Words: []Word{{Text: "ls"}, {Dynamic: true}}}, Allowed, ""},
		{"sure match after maybe keeps the stricter", Set{{SourceToken, mustPolicy(t, nil, []string{"deny git push *", "allow git *"})}}, Command{Words: []Word{{Text: "git"}, {Dynamic: true}}}, Denied, "deny git push *"},
		{"xargs more words", Set{{SourceToken, tok}}, Command{Words: []Word{{Text: "git"}}, More: true}, Asked, "ask git push *"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.set.Command(tc.cmd)
			if d.Outcome != tc.want || d.Rule != tc.rule {
				t.Fatalf("Command(%s) = %s by %q, want %s by %q", tc.cmd, d.Outcome, d.Rule, tc.want, tc.rule)
			}
		})
	}
}

// TestSet_Script: every simple command is found, and each way to hide one
// is caught (or made dynamic, which the strictest rule decides) — the
// table docs/decisions.md and doc.go describe.
func TestSet_Script(t *testing.T) {
	set := Set{{SourceToken, mustPolicy(t, nil, []string{"ask git push *", "deny curl *", "allow *"})}}
	for _, tc := range []struct {
		name, src, want, subject string
	}{
		{"plain", "git push origin main", Asked, "git push origin main"},
		{"allowed", "go test ./...\ngit status", Allowed, ""},
		{"list", "true && git push", Asked, "git push"},
		{"pipeline", "echo | curl -d @- x", Denied, "curl -d @- x"},
		{"subshell", "(cd x; git push)", Asked, "git push"},
		{"function", "f() { curl x; }; f", Denied, "curl x"},
		{"command substitution", "echo $(curl x)", Denied, "curl x"},
		{"backquotes", "echo `curl x`", Denied, "curl x"},
		{"process substitution", "cat <(curl x)", Denied, "curl x"},
		{"in a loop", "for i in 1 2; do git push; done", Asked, "git push"},
		{"in a condition", "if git push; then :; fi", Asked, "git push"},
		{"quoted words", `'git' "push"`, Asked, "git push"},
		{"escaped", `g\it pu\sh`, Asked, "git push"},
		{"eval of a literal", `eval "git push"`, Asked, "git push"},
		{"eval of words", `eval git push`, Asked, "git push"},
		{"bash -c of a literal", `bash -c 'curl x'`, Denied, "curl x"},
		{"sh -ec", `sh -ec 'git push'`, Asked, "git push"},
		{"nested", `bash -c "eval 'curl x'"`, Denied, "curl x"},
		{"alias", "alias p='git push'\np", Asked, "git push"},
		{"command", "command git push", Asked, "git push"},
		{"env", "env A=1 -u B git push", Asked, "git push"},
		{"env -S", "env -S 'git push' origin", Asked, "git push origin"},
		{"exec", "exec curl x", Denied, "curl x"},
		{"timeout", "timeout -s KILL 5 curl x", Denied, "curl x"},
		{"nohup nice", "nohup nice -n 5 curl x", Denied, "curl x"},
		{"nohup --", "nohup -- git push", Asked, "git push"},
		{"nice -N", "nice -5 curl x", Denied, "curl x"},
		{"nice --adjustment N", "nice --adjustment 5 curl x", Denied, "curl x"},
		{"nice --adjustment=N", "nice --adjustment=5 git push", Asked, "git push"},
		{"nice -nN", "nice -n5 git push", Asked, "git push"},
		{"stdbuf", "stdbuf -o L -e 0 curl x", Denied, "curl x"},
		{"stdbuf attached", "stdbuf -oL git push", Asked, "git push"},
		{"stdbuf long", "stdbuf --output L --error=0 curl x", Denied, "curl x"},
		{"timeout long", "timeout --signal KILL --kill-after=1 5 curl x", Denied, "curl x"},
		{"wrappers stacked", "timeout 5 nice -n 1 stdbuf -oL nohup env A=1 git push", Asked, "git push"},
		{"xargs", "echo push | xargs git", Asked, "git …"},
		{"xargs opts", "echo x | xargs -n 1 -I{} curl {}", Denied, "curl {} …"},
		{"find -exec", `find . -exec curl {} \;`, Denied, "curl …"},
		{"time keyword", "time git push", Asked, "git push"},
		// Dynamic code: the strictest rule that could match decides.
		{"eval of a substitution", `eval "$(echo Y3VybCB4 | base64 -d)"`, Denied, "…"},
		{"bash -c of a variable", `x='curl y'; bash -c "$x"`, Denied, "…"},
		{"dynamic name", `cmd=curl; $cmd x`, Denied, "…"},
		{"dynamic name via array", `a=(git push); "${a[@]}"`, Denied, "…"},
		{"glob name", `/usr/bin/cur? x`, Denied, "…"},
		{"source", `. ./script.sh`, Denied, "…"},
		{"script file", `bash ./run.sh`, Denied, "…"},
		{"stdin script", `echo 'curl x' | bash`, Denied, "…"},
		{"does not parse", `if then fi (`, Denied, "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := set.Script(tc.src)
			if d.Outcome != tc.want {
				t.Fatalf("Script(%q) = %s (%s by %q), want %s", tc.src, d.Outcome, d.Subject, d.Rule, tc.want)
			}
			if tc.subject != "" && !strings.HasPrefix(d.Subject, tc.subject) {
				t.Fatalf("Script(%q) decided on %q, want %q", tc.src, d.Subject, tc.subject)
			}
		})
	}
	// Without rules, nothing is parsed and everything is allowed.
	if d := (Set{}).Script("curl x"); d.Outcome != Allowed {
		t.Fatalf("no rules: %+v", d)
	}
}

func TestParse_Bounded(t *testing.T) {
	src := strings.Repeat("true\n", MaxCommands+10)
	cs := Parse(src)
	if len(cs) != MaxCommands+1 || !cs[MaxCommands].Words[0].Dynamic {
		t.Fatalf("%d commands, last %v", len(cs), cs[len(cs)-1])
	}
	deep := "git push"
	for range MaxDepth + 2 {
		q := strings.ReplaceAll(deep, `'`, `'\''`)
		deep = "bash -c '" + q + "'"
	}
	d := Set{{SourceToken, mustPolicy(t, nil, []string{"deny git push *"})}}.Script(deep)
	if d.Outcome != Denied {
		t.Fatalf("deep nesting: %+v", d)
	}
}

func TestPolicy_Validate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Policy
	}{
		{"bad access", Policy{Paths: []PathRule{{Pattern: "/x", Access: "rw"}}}},
		{"empty pattern", Policy{Paths: []PathRule{{Pattern: " ", Access: Read}}}},
		{"bad action", Policy{Commands: []CommandRule{{Pattern: "x", Action: "maybe"}}}},
		{"empty command", Policy{Commands: []CommandRule{{Pattern: "", Action: Allow}}}},
		{"bad default", Policy{DefaultCommand: "never"}},
		{"too many", Policy{Paths: make([]PathRule, MaxPathRules+1)}},
		{"long", Policy{Paths: []PathRule{{Pattern: strings.Repeat("a", MaxPatternBytes+1), Access: Read}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.p.Validate(); !errors.Is(err, ErrInvalid) {
				t.Fatalf("Validate: %v, want ErrInvalid", err)
			}
		})
	}
	p := mustPolicy(t, []string{"deny **/.env"}, []string{"ask git push *"})
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var q Policy
	if err := json.Unmarshal(b, &q); err != nil {
		t.Fatal(err)
	}
	if d := (Set{{SourceToken, q}}).Path("/workspace/.env", Read); d.Outcome != Denied {
		t.Fatalf("after a JSON round trip: %+v (%s)", d, b)
	}
	if err := json.Unmarshal([]byte(`{"paths":[{"pattern":"x","access":"all"}]}`), &q); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unmarshal of a bad policy: %v", err)
	}
}

func TestStore(t *testing.T) {
	s := OpenStore(t.TempDir())
	p, err := s.Policy("w")
	if err != nil || !p.IsZero() {
		t.Fatalf("no policy: %+v %v", p, err)
	}
	want := mustPolicy(t, []string{"deny **/.env"}, []string{"ask git push *"})
	if err := s.SetPolicy("w", want); err != nil {
		t.Fatal(err)
	}
	got, err := s.Policy("w")
	if err != nil || len(got.Paths) != 1 || len(got.Commands) != 1 {
		t.Fatalf("got %+v %v", got, err)
	}
	if d := (Set{{SourceWorkspace, got}}).Script("git push"); d.Outcome != Asked {
		t.Fatalf("stored policy: %+v", d)
	}
	// A changed file is read again (the cache goes by size, time, inode).
	if err := s.SetPolicy("w", mustPolicy(t, []string{"read /**", "deny /x"}, nil)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Policy("w"); err != nil || len(got.Paths) != 2 || len(got.Commands) != 0 {
		t.Fatalf("after a change: %+v %v", got, err)
	}
	if err := s.SetPolicy("../x", want); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad name: %v", err)
	}
	if err := s.DeletePolicy("w"); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Policy("w"); !p.IsZero() {
		t.Fatalf("after delete: %+v", p)
	}
}

func TestApprovals(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var decided []Approval
	s := NewApprovals(ApprovalOptions{OnDecide: func(a Approval) { mu.Lock(); decided = append(decided, a); mu.Unlock() }})
	ask := Approval{Workspace: "w", Kind: "execution", Subject: "git push", Requester: "tok1", Decision: Decision{Rule: "ask git push *"}}

	run := func(a Approval) (chan Approval, chan error) {
		listed, res := make(chan Approval, 1), make(chan error, 1)
		go func() {
			_, err := s.Wait(ctx, a, func(p Approval) { listed <- p })
			res <- err
		}()
		return listed, res
	}
	t.Run("approve", func(t *testing.T) {
		listed, res := run(ask)
		p := <-listed
		l := s.List("w")
		if len(l) != 1 || l[0].ID != p.ID || l[0].Status != Pending || l[0].Requester != "tok1" || l[0].Decision.Rule != "ask git push *" {
			t.Fatalf("List: %+v", l)
		}
		if len(s.List("other")) != 0 {
			t.Fatal("listed in another workspace")
		}
		if _, err := s.Decide("other", p.ID, true, "admin"); !errors.Is(err, ErrNoApproval) {
			t.Fatalf("decide from another workspace: %v", err)
		}
		a, err := s.Decide("w", p.ID, true, "tok2")
		if err != nil || a.Status != Approved || a.Approver != "tok2" {
			t.Fatalf("Decide: %+v %v", a, err)
		}
		if err := <-res; err != nil {
			t.Fatalf("Wait: %v", err)
		}
		if _, err := s.Decide("w", p.ID, true, "tok2"); !errors.Is(err, ErrNoApproval) {
			t.Fatalf("second decision: %v", err)
		}
	})
	t.Run("deny", func(t *testing.T) {
		listed, res := run(ask)
		p := <-listed
		if _, err := s.Decide("w", p.ID, false, "admin"); err != nil {
			t.Fatal(err)
		}
		err := <-res
		if !errors.Is(err, ErrApprovalDenied) || !strings.Contains(err.Error(), "ask git push *") {
			t.Fatalf("Wait: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		s := NewApprovals(ApprovalOptions{Timeout: time.Millisecond})
		_, err := s.Wait(ctx, ask, nil)
		if !errors.Is(err, ErrApprovalTimeout) {
			t.Fatalf("Wait: %v", err)
		}
		if len(s.List("w")) != 0 {
			t.Fatal("still listed")
		}
	})
	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		res := make(chan error, 1)
		go func() {
			_, err := s.Wait(cctx, ask, func(Approval) { cancel() })
			res <- err
		}()
		if err := <-res; !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait: %v", err)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		s := NewApprovals(ApprovalOptions{MaxPending: 1})
		listed, res := make(chan Approval, 1), make(chan error, 1)
		go func() {
			_, err := s.Wait(ctx, ask, func(p Approval) { listed <- p })
			res <- err
		}()
		p := <-listed
		if _, err := s.Wait(ctx, ask, nil); !errors.Is(err, ErrTooManyPending) {
			t.Fatalf("second: %v", err)
		}
		s.Decide("w", p.ID, true, "admin")
		<-res
	})
	mu.Lock()
	defer mu.Unlock()
	var st []string
	for _, a := range decided {
		st = append(st, a.Status)
	}
	if strings.Join(st, ",") != "approved,denied,canceled" {
		t.Fatalf("OnDecide saw %v", st)
	}
}

// TestApprovals_WaitList: a waiter wakes when a call is held (version 0)
// and at every later change of its workspace (a version), not at another
// workspace's; at its context's end it answers with what is pending.
func TestApprovals_WaitList(t *testing.T) {
	s := NewApprovals(ApprovalOptions{})
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	if l, v := s.WaitList(short, "w", 0); len(l) != 0 || v == 0 {
		t.Fatalf("nothing pending: %v, version %d", l, v)
	}
	cancel()
	got := make(chan []Approval, 1)
	go func() { l, _ := s.WaitList(ctx, "w", 0); got <- l }()
	held := make(chan Approval, 1)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	go s.Wait(wctx, Approval{Workspace: "w", Kind: "execution", Subject: "git push"}, func(a Approval) { held <- a })
	a := <-held
	if l := <-got; len(l) != 1 || l[0].ID != a.ID {
		t.Fatalf("woke with %v, want %s", l, a.ID)
	}
	// Another workspace's change does not wake a versioned waiter of w.
	v := s.Version("w")
	next := make(chan uint64, 1)
	go func() { _, nv := s.WaitList(ctx, "w", v); next <- nv }()
	octx, ostop := context.WithCancel(ctx)
	oheld := make(chan Approval, 1)
	go s.Wait(octx, Approval{Workspace: "other", Kind: "execution"}, func(a Approval) { oheld <- a })
	<-oheld
	ostop()
	if _, err := s.Decide("w", a.ID, false, "admin"); err != nil {
		t.Fatal(err)
	}
	if nv := <-next; nv == v || nv != s.Version("w") {
		t.Fatalf("version after the decision %d (was %d, now %d)", nv, v, s.Version("w"))
	}
}

package policy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDenials: a Checker counts each refusal under its rule and access
// (one Denial per kind, the first path as subject), keeps at most
// MaxDenialKinds kinds (further refusals only counted), and Take starts
// afresh; WithDenials makes Checkers of one call count together.
func TestDenials(t *testing.T) {
	var ps []PathRule
	for i := range MaxDenialKinds + 2 {
		r, err := ParsePathRule(fmt.Sprintf("deny d%d/**", i))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, r)
	}
	ro, _ := ParsePathRule("read docs/**")
	ps = append(ps, ro)
	p, err := Policy{Paths: ps}.Validate()
	if err != nil {
		t.Fatal(err)
	}
	set := Set{{Source: SourceWorkspace, Policy: p}}
	den := new(Denials)
	c := set.CheckerFor(WithDenials(t.Context(), den))
	for i := range 100 {
		if c.AllowPath(fmt.Sprintf("/workspace/d0/f%d", i), false) == 0 {
			t.Fatal("allowed a denied path")
		}
	}
	c.AllowPath("/workspace/docs/a", true)
	c.AllowPath("/workspace/docs/a", false) // allowed: not counted
	c2 := set.CheckerFor(WithDenials(t.Context(), den))
	c2.AllowPath("/workspace/docs/b", true)
	ds, more := den.Take()
	if len(ds) != 2 || more != 0 || ds[0].Count != 100 || ds[0].Subject != "/workspace/d0/f0" || ds[0].Rule != "deny d0/**" || ds[0].Action != "read" ||
		ds[1].Count != 2 || ds[1].Rule != "read docs/**" || ds[1].Action != "write" || ds[1].Subject != "/workspace/docs/a" {
		t.Fatalf("denials %+v more %d", ds, more)
	}
	if ds, more := den.Take(); len(ds) != 0 || more != 0 {
		t.Fatalf("after Take: %+v %d", ds, more)
	}
	for i := range MaxDenialKinds + 2 {
		c.AllowPath(fmt.Sprintf("/workspace/d%d/x", i), false)
	}
	ds, more = den.Take()
	if len(ds) != MaxDenialKinds || more != 2 {
		t.Fatalf("%d kinds, %d more; want %d and 2", len(ds), more, MaxDenialKinds)
	}
}

// TestApproval_MayDecide: who may decide a held call — another party or
// admin always, the requester may deny (withdraw) and approve only by
// elicitation where every layer with command rules allows it.
func TestApproval_MayDecide(t *testing.T) {
	ask, _ := ParseCommandRule("ask git push *")
	paths, _ := ParsePathRule("deny **/.env")
	yes := Layer{Source: SourceWorkspace, Policy: Policy{Commands: []CommandRule{ask}, ApproveByElicitation: true}}
	no := Layer{Source: SourceToken, Policy: Policy{Commands: []CommandRule{ask}}}
	onlyPaths := Layer{Source: SourceToken, Policy: Policy{Paths: []PathRule{paths}}}
	for _, tc := range []struct {
		set  Set
		want bool
	}{{Set{yes}, true}, {Set{yes, onlyPaths}, true}, {Set{yes, no}, false}, {Set{no}, false}, {Set{onlyPaths}, false}, {nil, false}} {
		if got := tc.set.ApproveByElicitation(); got != tc.want {
			t.Errorf("%+v: ApproveByElicitation %v, want %v", tc.set, got, tc.want)
		}
	}
	a := Approval{Requester: "tok_a"}
	self := a
	self.SelfElicit = true
	for _, tc := range []struct {
		a                     Approval
		who                   string
		approve, elicit, want bool
	}{
		{a, "tok_b", true, false, true}, {a, "admin", true, false, true}, {a, "tok_a", false, true, true},
		{a, "tok_a", true, true, false}, {a, "tok_a", true, false, false}, {self, "tok_a", true, true, true}, {self, "tok_a", true, false, false},
	} {
		if got := tc.a.MayDecide(tc.who, tc.approve, tc.elicit); got != tc.want {
			t.Errorf("%+v by %s approve=%v elicit=%v: %v, want %v", tc.a, tc.who, tc.approve, tc.elicit, got, tc.want)
		}
	}
}

// TestApprovals_Abandon: a pending approval is kept as a file while it
// waits; an Approvals of a later process (same Dir) finds the ones its
// predecessor left and fails them as abandoned, through OnDecide, leaving
// its own pending ones alone; a decided approval leaves no file.
func TestApprovals_Abandon(t *testing.T) {
	dir := t.TempDir()
	old := NewApprovals(ApprovalOptions{Dir: dir})
	held := make(chan Approval, 1)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go old.Wait(ctx, Approval{Workspace: "w", Kind: "execution", Subject: "git push", Requester: "tok_a"}, func(a Approval) { held <- a })
	a := <-held
	if _, err := os.Stat(filepath.Join(dir, "w", "approvals", a.ID+".json")); err != nil {
		t.Fatalf("the pending approval's file: %v", err)
	}
	if got, err := old.Abandon(""); err != nil || len(got) != 0 {
		t.Fatalf("the holder abandoned its own: %+v %v", got, err)
	}
	var recorded []Approval
	next := NewApprovals(ApprovalOptions{Dir: dir, OnDecide: func(a Approval) { recorded = append(recorded, a) }})
	got, err := next.Abandon("w")
	if err != nil || len(got) != 1 || got[0].ID != a.ID || got[0].Status != Abandoned || got[0].Subject != "git push" || len(recorded) != 1 {
		t.Fatalf("abandoned %+v %v, recorded %+v", got, err, recorded)
	}
	if ms, _ := filepath.Glob(filepath.Join(dir, "*", "approvals", "*")); len(ms) != 0 {
		t.Fatalf("files left: %v", ms)
	}
	// A decided approval removes its file.
	go next.Wait(ctx, Approval{Workspace: "w", Kind: "execution", Subject: "x", Requester: "tok_a"}, func(a Approval) { held <- a })
	b := <-held
	if _, err := next.Decide("w", b.ID, false, "admin"); err != nil {
		t.Fatal(err)
	}
	if ms, _ := filepath.Glob(filepath.Join(dir, "*", "approvals", "*")); len(ms) != 0 {
		t.Fatalf("files left after a decision: %v", ms)
	}
	if _, err := next.Abandon("../x"); err == nil {
		t.Error("a bad workspace name was accepted")
	}
}

package api_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/policy"
)

// TestAudit_PolicyDecisions: real policy decisions (a denied path, an
// asked command) become records with their rule, and approvals are
// recorded as they are decided, approved and denied.
func TestAudit_PolicyDecisions(t *testing.T) {
	st, err := audit.Open(filepath.Join(t.TempDir(), audit.FileName), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	deny, err := policy.ParsePathRule("deny **/.env")
	if err != nil {
		t.Fatal(err)
	}
	ask, err := policy.ParseCommandRule("ask git push *")
	if err != nil {
		t.Fatal(err)
	}
	set := policy.Set{{Source: policy.SourceWorkspace, Policy: policy.Policy{Paths: []policy.PathRule{deny}, Commands: []policy.CommandRule{ask}}}}
	p := auth.Principal{Token: &auth.Token{ID: "tok_1", Workspace: "w"}}
	pd := set.Path("/workspace/.env", policy.Read)
	cd := set.Script("echo hi && git push origin main")
	if pd.Outcome != policy.Denied || cd.Outcome != policy.Asked {
		t.Fatalf("decisions %+v %+v", pd, cd)
	}
	for _, d := range []policy.Decision{pd, cd} {
		r := api.PolicyRecord("w", p, audit.Labels{Session: "s"}, d)
		if err := st.Append(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	if got := api.AuditDecisionOf(set.Path("/workspace/a", policy.Read), cd, set.Path("/workspace/b", policy.Write)); got.Outcome != policy.Asked {
		t.Fatalf("the call keeps %+v, want the ask", got)
	}

	ap := policy.NewApprovals(policy.ApprovalOptions{OnDecide: api.ApprovalRecorder(st)})
	for _, approve := range []bool{true, false} {
		started := make(chan policy.Approval, 1)
		done := make(chan error, 1)
		go func() {
			_, err := ap.Wait(ctx, policy.Approval{Workspace: "w", Kind: "execution", Subject: "git push origin main", Decision: cd, Requester: "tok_1"},
				func(a policy.Approval) { started <- a })
			done <- err
		}()
		a := <-started
		if _, err := ap.Decide("w", a.ID, approve, "admin"); err != nil {
			t.Fatal(err)
		}
		if err := <-done; (err == nil) != approve {
			t.Fatalf("approve=%v: %v", approve, err)
		}
	}
	rs, _, err := st.Query(ctx, audit.Filter{Workspace: "w"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Kind+":"+r.Action+":"+r.Decision+":"+r.Outcome+":"+r.Rule+":"+r.Actor)
	}
	want := []string{
		"policy:path:denied:denied:deny **/.env:tok_1",
		"policy:command:asked:asked:ask git push *:tok_1",
		"approval:execution:asked:" + policy.Approved + ":ask git push *:admin",
		"approval:execution:asked:" + policy.Rejected + ":ask git push *:admin",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
)

// TestApprovals_Elicitation: an MCP tool call held for approval asks a
// client that declared elicitation (the Go SDK's client over the real
// HTTP transport). Declining denies the call; accepting approves it only
// where the policy lets the requester's client approve
// (approve_by_elicitation), else it stays pending until another party
// approves through the API; a client without the capability gets the
// pending_approval flow.
func TestApprovals_Elicitation(t *testing.T) {
	ctx := context.Background()
	e := newPolicyEnv(t, time.Hour)
	if _, err := e.c.CreateWorkspace(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	tok, err := e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	connect := func(answer string, asked chan<- string) *sdk.ClientSession {
		var co *sdk.ClientOptions
		if answer != "" {
			co = &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked <- req.Params.Message
				return &sdk.ElicitResult{Action: answer}, nil
			}}
		}
		return mcpSession(t, e.url+"/mcp/w", tok.Secret, co)
	}
	type out struct {
		r   *sdk.CallToolResult
		err error
	}
	call := func(cs *sdk.ClientSession, script string) <-chan out {
		ch := make(chan out, 1)
		go func() {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": script}})
			ch <- out{r, err}
		}()
		return ch
	}
	text := func(o out) string {
		if o.err != nil {
			return "error: " + o.err.Error()
		}
		var b strings.Builder
		for _, c := range o.r.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	rules := func(byElicitation bool) {
		if _, err := e.c.SetRules(ctx, "w", client.Rules{Commands: []client.CommandRule{{Pattern: "echo held*", Action: "ask"}}, ApproveByElicitation: byElicitation}); err != nil {
			t.Fatal(err)
		}
	}

	// Declined: denied at once.
	rules(false)
	asked := make(chan string, 1)
	o := <-call(connect("decline", asked), "echo held-declined")
	if m := <-asked; !strings.Contains(m, `"ask echo held*"`) || !strings.Contains(m, "echo held-declined") {
		t.Errorf("the elicitation's message: %q", m)
	}
	if o.err != nil || !o.r.IsError || !strings.Contains(text(o), "denied") {
		t.Fatalf("declined: %q", text(o))
	}

	// Accepted by the requester's own client, which the policy does not
	// allow: pending until another party approves.
	res := call(connect("accept", asked), "echo held-accepted")
	<-asked
	a := waitPending(t, e.c)
	got, err := e.c.Approve(ctx, "w", a.ID)
	if err != nil || got.Approver != "admin" {
		t.Fatalf("approve after the requester's accept: %+v %v (the elicitation must not have approved)", got, err)
	}
	if o := <-res; o.err != nil || o.r.IsError || !strings.Contains(text(o), "held-accepted") {
		t.Fatalf("approved call: %q", text(o))
	}

	// approve_by_elicitation: the requester's client approves.
	rules(true)
	o = <-call(connect("accept", asked), "echo held-elicited")
	<-asked
	if o.err != nil || o.r.IsError || !strings.Contains(text(o), "held-elicited") {
		t.Fatalf("approved by elicitation: %q", text(o))
	}

	// No elicitation capability: the pending_approval flow.
	res = call(connect("", nil), "echo held-plain")
	a = waitPending(t, e.c)
	if _, err := e.c.Deny(ctx, "w", a.ID); err != nil {
		t.Fatal(err)
	}
	if o := <-res; o.err != nil || !o.r.IsError || !strings.Contains(text(o), "denied") {
		t.Fatalf("denied through the API: %q", text(o))
	}
}

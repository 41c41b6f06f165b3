package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/mcp"
)

// TestElicitation_Workers: with workers (desk serve's default), an MCP tool
// call whose execution the workspace's worker holds for approval asks the
// session's client (the Go SDK's client over the real HTTP transport): the
// worker reports the hold to the front, the front elicits and relays the
// answer. Decline denies; accept approves where approve_by_elicitation
// lets the requester's client, else the call stays pending until another
// party approves (desk approve); a client cannot forge the front's relay
// (the marker header is stripped, 403).
func TestElicitation_Workers(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	data := filepath.Join(t.TempDir(), "data")
	u, _, _ := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	mustDesk(t, nil, "ws", "create", "w")
	ctx := context.Background()
	admin, err := client.FromEnvironment(client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := admin.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"read", "write", "exec"}})
	if err != nil {
		t.Fatal(err)
	}
	connect := func(answer string, asked chan<- string) *sdk.ClientSession {
		hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+tok.Secret)
			return http.DefaultTransport.RoundTrip(r)
		})}
		co := &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked <- req.Params.Message
			return &sdk.ElicitResult{Action: answer}, nil
		}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, co).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: u + "/mcp/w", HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	type out struct {
		text    string
		isError bool
	}
	call := func(cs *sdk.ClientSession, script string) <-chan out {
		ch := make(chan out, 1)
		go func() {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "exec", Arguments: map[string]any{"command": script, "backend": "shell"}})
			if err != nil {
				ch <- out{"error: " + err.Error(), true}
				return
			}
			var b strings.Builder
			for _, c := range r.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					b.WriteString(tc.Text)
				}
			}
			ch <- out{b.String(), r.IsError}
		}()
		return ch
	}
	rules := func(byElicitation string) {
		mustDesk(t, nil, "ws", "policy", "w", "--command", "ask echo held*", "--approve-by-elicitation", byElicitation)
	}
	pending := func() client.Approval {
		t.Helper()
		l, err := admin.WaitApprovals(ctx, "w", time.Minute, 0)
		if err != nil || len(l.Approvals) != 1 {
			t.Fatalf("pending approvals: %+v %v", l, err)
		}
		return l.Approvals[0]
	}

	// Declined: denied at once, the elicitation naming the rule and script.
	rules("false")
	asked := make(chan string, 1)
	o := <-call(connect("decline", asked), "echo held-declined")
	if m := <-asked; !strings.Contains(m, `"ask echo held*"`) || !strings.Contains(m, "echo held-declined") {
		t.Errorf("the elicitation's message: %q", m)
	}
	if !o.isError || !strings.Contains(o.text, "denied") {
		t.Fatalf("declined: %+v", o)
	}

	// Accepted by the requester's own client, which the policy does not
	// allow: pending until the admin approves.
	res := call(connect("accept", asked), "echo held-accepted")
	<-asked
	a := pending()
	// The relay cannot be forged through the front: the marker is
	// stripped and the worker refuses the answer.
	req, _ := http.NewRequest("POST", u+"/v1/workspaces/w/approvals/"+a.ID+"/elicited", bytes.NewReader([]byte(`{"approve":true}`)))
	req.Header.Set("Authorization", "Bearer "+tok.Secret)
	req.Header.Set(mcp.HeaderElicited, "1")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a forged elicitation answer: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	mustDesk(t, nil, "approve", "w", a.ID)
	if o := <-res; o.isError || !strings.Contains(o.text, "held-accepted") {
		t.Fatalf("approved call: %+v", o)
	}

	// approve_by_elicitation: the requester's client approves.
	rules("true")
	o = <-call(connect("accept", asked), "echo held-elicited")
	<-asked
	if o.isError || !strings.Contains(o.text, "held-elicited") {
		t.Fatalf("approved by elicitation: %+v", o)
	}
	// The approval's record names the elicitation.
	if got := mustDesk(t, nil, "audit", "w", "--json"); !strings.Contains(got, `(elicitation)`) {
		t.Errorf("no approval record by elicitation in:\n%s", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

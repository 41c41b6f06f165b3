package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
)

// TestEgress_Routes: the policy and secret routes' access, validation and
// answers; a token's and an execution's egress reach the execution's
// network as narrowing layers.
func TestEgress_Routes(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	var seen []egress.Layer
	ro := run.Options{Network: func(ctx context.Context, job *run.Job) http.RoundTripper {
		mu.Lock()
		seen = egress.LayersFrom(ctx)
		mu.Unlock()
		return nil
	}}
	last := func() []egress.Layer { mu.Lock(); defer mu.Unlock(); return seen }
	e := newEnv(t, envOpts{dir: dir, run: ro, api: api.Options{Egress: egress.OpenStore(dir), EgressDefault: egress.Policy{Mode: egress.All}}})
	e.mkws("w", "v")
	ctx := context.Background()
	if p, err := e.c.GetPolicy(ctx, "w"); err != nil || p.Source != "default" || p.Text != "all" {
		t.Fatalf("default: %+v %v", p, err)
	}
	p, err := e.c.SetPolicy(ctx, "w", client.PolicyRequest{Text: "allow A.example.com:443; 10.0.0.5:8080"})
	if err != nil || p.Source != "workspace" || p.Text != "allow a.example.com:443; 10.0.0.5:8080" || len(p.Policy.Rules) != 2 {
		t.Fatalf("set: %+v %v", p, err)
	}
	_, err = e.c.SetPolicy(ctx, "w", client.PolicyRequest{Mode: "allow", Rules: []client.EgressRule{{Host: "a.com", Ports: []int{0}}}})
	wantCode(t, "a bad port", err, 400, "invalid")
	_, err = e.c.SetPolicy(ctx, "w", client.PolicyRequest{Text: "some"})
	wantCode(t, "a bad text", err, 400, "invalid")
	_, err = e.c.SetPolicy(ctx, "nope", client.PolicyRequest{Text: "none"})
	wantCode(t, "no workspace", err, 404, "not_found")

	_, rw := e.mint("w", nil, "read", "exec")
	tok := e.client(rw)
	if p, err := tok.GetPolicy(ctx, "w"); err != nil || p.Source != "workspace" {
		t.Fatalf("a read token's view: %+v %v", p, err)
	}
	_, err = tok.SetPolicy(ctx, "w", client.PolicyRequest{Text: "all"})
	wantCode(t, "a token sets the policy", err, 403, "forbidden")
	_, err = tok.GetPolicy(ctx, "v")
	wantCode(t, "another workspace's policy", err, 403, "forbidden")
	_, err = tok.SetSecret(ctx, "w", "K", client.SecretRequest{Value: "x", Hosts: []string{"a.com"}})
	wantCode(t, "a token sets a secret", err, 403, "forbidden")

	s, err := e.c.SetSecret(ctx, "w", "API_KEY", client.SecretRequest{Value: "hidden-value-77", Hosts: []string{"a.example.com"}})
	if err != nil || !strings.HasPrefix(s.Placeholder, "desk-secret-API_KEY-") {
		t.Fatalf("set secret: %+v %v", s, err)
	}
	_, err = e.c.SetSecret(ctx, "w", "1BAD", client.SecretRequest{Value: "hidden-value-77", Hosts: []string{"a.com"}})
	wantCode(t, "a bad name", err, 400, "invalid")
	code, body, _ := e.raw("GET", "/v1/workspaces/w/secrets", e.admin, nil)
	if code != 200 || strings.Contains(string(body), "hidden-value-77") || !strings.Contains(string(body), s.Placeholder) {
		t.Fatalf("list: %d %s", code, body)
	}
	if err := e.c.DeleteSecret(ctx, "w", "API_KEY"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "delete again", e.c.DeleteSecret(ctx, "w", "API_KEY"), 404, "not_found")
	if err := e.c.DeletePolicy(ctx, "w"); err != nil {
		t.Fatal(err)
	}
	if p, _ := e.c.GetPolicy(ctx, "w"); p.Source != "default" {
		t.Fatalf("after delete: %+v", p)
	}

	// The token's and the execution's policies narrow the execution's network.
	m, err := e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"exec", "read"}, Egress: "allow a.example.com"})
	if err != nil || m.Token.Egress != "allow a.example.com" {
		t.Fatalf("mint: %+v %v", m.Token, err)
	}
	_, err = e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"exec"}, Egress: "allow *"})
	wantCode(t, "a bad token policy", err, 400, "invalid")
	if _, err := e.client(m.Secret).Exec(ctx, "w", client.ExecRequest{Source: "x", Egress: "allow a.example.com:443"}); err != nil {
		t.Fatal(err)
	}
	layers := last()
	if len(layers) != 2 || layers[0].Source != egress.SourceToken || layers[0].Policy.String() != "allow a.example.com" ||
		layers[1].Source != egress.SourceExecution || layers[1].Policy.String() != "allow a.example.com:443" {
		t.Fatalf("layers %+v", layers)
	}
	_, err = e.client(m.Secret).Exec(ctx, "w", client.ExecRequest{Source: "x", Egress: "allow"})
	if err != nil {
		t.Fatalf("an empty allow list is a valid (empty) policy: %v", err)
	}
	_, err = e.client(m.Secret).Exec(ctx, "w", client.ExecRequest{Source: "x", Egress: "sometimes"})
	wantCode(t, "a bad execution policy", err, 400, "invalid")
}

package api_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/run"
)

// TestAPI_TokenBackendsBoundAuto: a token allowed "lines" and "auto" gets
// auto routing only among "lines": the router never sees "other", through
// the executions endpoint and through the exec tool alike.
func TestAPI_TokenBackendsBoundAuto(t *testing.T) {
	router := func(source string, backends []string) (string, string, error) {
		if slices.Contains(backends, "other") {
			return "other", "other preferred", nil
		}
		return "lines", "only lines allowed", nil
	}
	e := newEnv(t, envOpts{run: run.Options{Router: router}})
	e.mkws("w")
	_, tok := e.mint("w", []string{"lines", "auto"}, "exec", "read")
	r, err := e.client(tok).Run(bg, "w", client.ExecRequest{Source: "echo ok", Backend: "auto"})
	if err != nil || r.Backend != "lines" || r.Requested != "auto" {
		t.Fatalf("token run through auto: backend %q requested %q, %v", r.Backend, r.Requested, err)
	}
	if r, err := e.c.Run(bg, "w", client.ExecRequest{Source: "echo ok", Backend: "auto"}); err != nil || r.Backend != "other" {
		t.Fatalf("admin run through auto: backend %q, %v", r.Backend, err)
	}
	st, body, _ := e.raw("POST", "/v1/workspaces/w/tools/exec", tok, strings.NewReader(`{"command":"echo ok","backend":"auto"}`))
	if st != 200 || !strings.Contains(string(body), `"lines"`) || strings.Contains(string(body), `"other"`) {
		t.Fatalf("exec tool through auto: %d %s", st, body)
	}
}

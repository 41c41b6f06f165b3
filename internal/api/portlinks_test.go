package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
)

// TestPortLinks_Revoke: a link has an id; listed (without its URL) and
// revoked by it, it is refused (410) from then on, after a restart of the
// server too (the record is a file); another workspace cannot revoke it,
// and links without an id (made before links had one) still work. The
// server has no sandbox: an authorised preview request is 501, a refused
// one 401/403/410, which is what this test looks at (TestPorts_Preview
// proxies to a real sandbox's service).
func TestPortLinks_Revoke(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("k", 32))
	dir := t.TempDir()
	file := filepath.Join(dir, "port-links.json")
	start := func() *env {
		links, err := api.OpenPortLinks(file)
		if err != nil {
			t.Fatal(err)
		}
		return newEnv(t, envOpts{dir: filepath.Join(dir, "data"), api: api.Options{Ports: api.PortConfig{LinkKey: key, Links: links}}})
	}
	e := start()
	e.mkws("w", "v")
	get := func(e *env, path string) int {
		t.Helper()
		res, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	a, err := e.c.SharePort(ctx, "w", client.PortLinkRequest{Port: 8000, ExpiresIn: 600})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.c.SharePort(ctx, "w", client.PortLinkRequest{Port: 8001})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.ID) != 16 || a.ID == b.ID || a.Created.IsZero() {
		t.Errorf("links: %+v %+v", a, b)
	}
	if code := get(e, a.Path); code != http.StatusNotImplemented {
		t.Errorf("a fresh link: %d, want 501 (authorised; no sandbox)", code)
	}
	l, err := e.c.PortLinks(ctx, "w")
	if err != nil || len(l.Links) != 2 || l.Links[0].ID != a.ID || l.Links[0].URL != "" || l.Links[0].Path != "" || l.Links[0].Revoked != nil {
		t.Fatalf("list: %+v %v", l, err)
	}
	raw, _ := os.ReadFile(file)
	if strings.Contains(string(raw), "desk_link") {
		t.Errorf("the record holds a link's token: %s", raw)
	}
	wantCode(t, "revoke from another workspace", e.c.RevokePortLink(ctx, "v", a.ID), 404, api.CodeNotFound)
	wantCode(t, "revoke an unknown id", e.c.RevokePortLink(ctx, "w", "0000000000000000"), 404, api.CodeNotFound)
	if err := e.c.RevokePortLink(ctx, "w", a.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.c.RevokePortLink(ctx, "w", a.ID); err != nil {
		t.Errorf("revoked twice: %v", err)
	}
	if code := get(e, a.Path); code != http.StatusGone {
		t.Errorf("a revoked link: %d, want 410", code)
	}
	if code := get(e, b.Path); code != http.StatusNotImplemented {
		t.Errorf("the other link: %d, want 501", code)
	}
	old := "/v1/workspaces/w/ports/8000/?desk_link=" + api.SignPortLink(key, "w", 8000, time.Now().Add(time.Hour))
	if code := get(e, old); code != http.StatusNotImplemented {
		t.Errorf("a link without an id: %d, want 501", code)
	}
	ro, err := e.c.MintToken(ctx, client.TokenRequest{Workspace: "w", Scopes: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "revoke with a read-only token", e.client(ro.Secret).RevokePortLink(ctx, "w", b.ID), 403, api.CodeForbidden)

	// A new server on the same record: still revoked.
	e.srv.Shutdown(ctx, nil)
	e.ts.Close()
	e.h.Close()
	e2 := start()
	if code := get(e2, a.Path); code != http.StatusGone {
		t.Errorf("a revoked link after a restart: %d, want 410", code)
	}
	if code := get(e2, b.Path); code != http.StatusNotImplemented {
		t.Errorf("the other link after a restart: %d, want 501", code)
	}
	l, err = e2.c.PortLinks(ctx, "w")
	if err != nil || len(l.Links) != 2 || l.Links[0].Revoked == nil || l.Links[1].Revoked != nil {
		t.Errorf("list after the restart: %+v %v", l, err)
	}
	// Without a record, links cannot be listed nor revoked.
	bare := newEnv(t, envOpts{api: api.Options{Ports: api.PortConfig{LinkKey: key}}})
	bare.mkws("w")
	_, err = bare.c.PortLinks(ctx, "w")
	wantCode(t, "list without a record", err, 501, api.CodeNotImplemented)
}

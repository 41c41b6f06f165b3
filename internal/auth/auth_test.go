package auth_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/auth"
)

func open(t *testing.T, dir string, o auth.Options) *auth.Store {
	t.Helper()
	s, err := auth.Open(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpen_AdminToken(t *testing.T) {
	t.Run("generated once, mode 0600", func(t *testing.T) {
		dir := t.TempDir()
		s := open(t, dir, auth.Options{})
		if !s.Generated() || len(s.AdminToken()) != 43 {
			t.Fatalf("generated=%v token=%q", s.Generated(), s.AdminToken())
		}
		fi, err := os.Stat(filepath.Join(dir, auth.AdminTokenFile))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("admin.token: %v %v", fi, err)
		}
		tok := s.AdminToken()
		s.Close()
		s2 := open(t, dir, auth.Options{})
		if s2.Generated() || s2.AdminToken() != tok {
			t.Fatalf("reopen: generated=%v same=%v", s2.Generated(), s2.AdminToken() == tok)
		}
		if p, err := s2.Authenticate(tok); err != nil || !p.Admin {
			t.Fatalf("Authenticate(admin) = %+v, %v", p, err)
		}
	})
	t.Run("given", func(t *testing.T) {
		dir := t.TempDir()
		s := open(t, dir, auth.Options{AdminToken: "0123456789abcdef-given"})
		if s.Generated() || s.AdminToken() != "0123456789abcdef-given" {
			t.Fatal("given token not used")
		}
		if _, err := os.Stat(filepath.Join(dir, auth.AdminTokenFile)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("admin.token written: %v", err)
		}
	})
	t.Run("too short", func(t *testing.T) {
		if _, err := auth.Open(context.Background(), t.TempDir(), auth.Options{AdminToken: "short"}); !errors.Is(err, auth.ErrInvalid) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestStore_MintAuthenticateRevoke(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir, auth.Options{})
	tok, secret, err := s.Mint(ctx, auth.MintOptions{Workspace: "w1", Scopes: []auth.Scope{"read", "exec", "read"}, Backends: []string{"shell"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "desk_"+tok.ID+"_") || len(tok.Scopes) != 2 {
		t.Fatalf("token %+v secret %q", tok, secret)
	}
	p, err := s.Authenticate(secret)
	if err != nil || p.Admin || p.Token.ID != tok.ID {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"read ok", p.Allow("w1", auth.ScopeRead)},
		{"backend ok", p.AllowBackend("shell")},
	} {
		if tc.err != nil {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"write denied", p.Allow("w1", auth.ScopeWrite)},
		{"other workspace", p.Allow("w2", auth.ScopeRead)},
		{"other backend", p.AllowBackend("sandbox")},
	} {
		if !errors.Is(tc.err, auth.ErrForbidden) {
			t.Errorf("%s: %v, want ErrForbidden", tc.name, tc.err)
		}
	}
	for _, bad := range []string{"", "nope", secret + "x", "desk_" + tok.ID + "_", "desk_zzzzzzzzzzzzzzzz_abc", s.AdminToken() + "x"} {
		if _, err := s.Authenticate(bad); !errors.Is(err, auth.ErrUnauthorized) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnauthorized", bad, err)
		}
	}
	// Durable, and the secret is not stored.
	s.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, auth.StoreFile))
	if strings.Contains(string(raw), strings.TrimPrefix(secret, "desk_"+tok.ID+"_")) {
		t.Fatal("secret stored in host.db")
	}
	s = open(t, dir, auth.Options{})
	if _, err := s.Authenticate(secret); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
	if err := s.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(secret); !errors.Is(err, auth.ErrUnauthorized) {
		t.Fatalf("revoked token: %v", err)
	}
	if err := s.Revoke(ctx, "0000000000000000"); !errors.Is(err, auth.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	s.Close()
	s = open(t, dir, auth.Options{})
	if _, err := s.Authenticate(secret); !errors.Is(err, auth.ErrUnauthorized) {
		t.Fatalf("revoked token after reopen: %v", err)
	}
	if l := s.List("", 0); len(l) != 1 || !l[0].Revoked {
		t.Fatalf("List = %+v", l)
	}
}

func TestStore_Mint_Invalid(t *testing.T) {
	s := open(t, t.TempDir(), auth.Options{})
	for name, o := range map[string]auth.MintOptions{
		"no workspace": {Scopes: []auth.Scope{"read"}},
		"no scopes":    {Workspace: "w"},
		"bad scope":    {Workspace: "w", Scopes: []auth.Scope{"admin"}},
		"bad backend":  {Workspace: "w", Scopes: []auth.Scope{"exec"}, Backends: []string{"a/b"}},
	} {
		if _, _, err := s.Mint(context.Background(), o); !errors.Is(err, auth.ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStore_MaxTokens(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), auth.Options{MaxTokens: 2})
	mint := func() (auth.Token, error) {
		tok, _, err := s.Mint(ctx, auth.MintOptions{Workspace: "w", Scopes: []auth.Scope{"read"}})
		return tok, err
	}
	a, _ := mint()
	if _, err := mint(); err != nil {
		t.Fatal(err)
	}
	if _, err := mint(); !errors.Is(err, auth.ErrTooMany) {
		t.Fatalf("third mint: %v", err)
	}
	if err := s.Revoke(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := mint(); err != nil {
		t.Fatalf("mint after revoke: %v", err)
	}
	if _, err := s.Get(a.ID); !errors.Is(err, auth.ErrNotFound) {
		t.Fatalf("revoked token not dropped: %v", err)
	}
	if n, err := s.RevokeWorkspace(ctx, "w"); err != nil || n != 2 {
		t.Fatalf("RevokeWorkspace = %d, %v", n, err)
	}
}

// TestDeleteWorkspace: a deleted workspace's tokens, active and revoked,
// leave the store and its files; another workspace's stay.
func TestDeleteWorkspace(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir, auth.Options{})
	var gone []auth.Token
	for range 2 {
		tok, _, err := s.Mint(ctx, auth.MintOptions{Workspace: "gone-ws-4c2b", Scopes: []auth.Scope{"read"}})
		if err != nil {
			t.Fatal(err)
		}
		gone = append(gone, tok)
	}
	if err := s.Revoke(ctx, gone[0].ID); err != nil {
		t.Fatal(err)
	}
	kept, _, err := s.Mint(ctx, auth.MintOptions{Workspace: "kept", Scopes: []auth.Scope{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteWorkspace(ctx, "gone-ws-4c2b"); err != nil || n != 2 {
		t.Fatalf("DeleteWorkspace = %d, %v", n, err)
	}
	for _, tok := range gone {
		if _, err := s.Get(tok.ID); !errors.Is(err, auth.ErrNotFound) {
			t.Fatalf("token %s remains: %v", tok.ID, err)
		}
	}
	if _, err := s.Get(kept.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), "gone-ws-4c2b") || strings.Contains(string(b), gone[1].ID) {
			t.Errorf("%s still holds the deleted workspace's tokens", e.Name())
		}
	}
	if again := open(t, dir, auth.Options{}); len(again.List("", 0)) != 1 {
		t.Fatalf("after reopening: %+v", again.List("", 0))
	}
}

package auth_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/sqlite"
)

// The fixture testdata/host-vfs.db.gz is a host.db in the layout desk wrote
// before the token store had a schema of its own (a whole vfs store, tokens as
// records of kind "token"), made by that code (commit d308b79) with
// auth.Open, two Mints and a Revoke. These are the two tokens it holds.
const (
	oldActiveID  = "a234bb22a2c3c656"
	oldActive    = "desk_a234bb22a2c3c656_Lux2MMp07cN1hsxEQY3AY4a10lJ57zXi8ih5-ZwmpoI" // demo: read, exec on shell
	oldRevokedID = "fc5b20b1cc96410c"
	oldRevoked   = "desk_fc5b20b1cc96410c_dHOvGrbg-lHR_KdHkjxJ4sXRLaaJ5LG8X1MJTWR03es" // other: write, revoked
)

// oldLayout writes the fixture as dir/host.db.
func oldLayout(t *testing.T, dir string) {
	t.Helper()
	in, err := os.Open("testdata/host-vfs.db.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.OpenFile(filepath.Join(dir, auth.StoreFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, zr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// tables returns the tables of dir/host.db and its application id.
func tables(t *testing.T, dir string) ([]string, int64) {
	t.Helper()
	c, err := sqlite.Open(filepath.Join(dir, auth.StoreFile), true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var names []string
	var app int64
	err = c.Query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", nil,
		func(st *sqlite.Stmt) { names = append(names, st.Text(0)) })
	if err == nil {
		err = c.Query("PRAGMA application_id", nil, func(st *sqlite.Stmt) { app = st.Int64(0) })
	}
	if err != nil {
		t.Fatal(err)
	}
	return names, app
}

// TestOpen_MigratesOldLayout: a host.db of the old layout is migrated on the
// first open: its tokens work as before (the revoked one stays revoked), the
// file holds only the token table afterwards, and later opens and writes
// find the tokens where the migration left them.
func TestOpen_MigratesOldLayout(t *testing.T) {
	dir := t.TempDir()
	oldLayout(t, dir)
	if names, _ := tables(t, dir); !slices.Contains(names, "inodes") || !slices.Contains(names, "records") {
		t.Fatalf("the fixture is not a vfs store: tables %v", names)
	}
	check := func(s *auth.Store) {
		t.Helper()
		p, err := s.Authenticate(oldActive)
		if err != nil || p.Token == nil || p.Token.ID != oldActiveID || p.Token.Workspace != "demo" ||
			!slices.Equal(p.Token.Scopes, []auth.Scope{auth.ScopeExec, auth.ScopeRead}) || !slices.Equal(p.Token.Backends, []string{"shell"}) {
			t.Fatalf("Authenticate(active) = %+v, %v", p.Token, err)
		}
		if _, err := s.Authenticate(oldRevoked); !errors.Is(err, auth.ErrUnauthorized) || !strings.Contains(err.Error(), "revoked") {
			t.Fatalf("Authenticate(revoked) = %v", err)
		}
		if r, err := s.Get(oldRevokedID); err != nil || !r.Revoked || r.RevokedAt.IsZero() || r.Workspace != "other" {
			t.Fatalf("Get(revoked) = %+v, %v", r, err)
		}
	}
	s, err := auth.Open(context.Background(), dir, auth.Options{AdminToken: "0123456789abcdef-fixture"})
	if err != nil {
		t.Fatal(err)
	}
	check(s)
	if n := len(s.List("", 0)); n != 2 {
		t.Fatalf("%d tokens after the migration, want 2", n)
	}
	_, fresh, err := s.Mint(context.Background(), auth.MintOptions{Workspace: "demo", Scopes: []auth.Scope{auth.ScopeWrite}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	names, app := tables(t, dir)
	if !slices.Equal(names, []string{"tokens"}) || app == 0 {
		t.Fatalf("after the migration: tables %v, application id %#x; want only tokens, marked", names, app)
	}
	for _, sfx := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(dir, auth.StoreFile+sfx)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s%s is left: %v", auth.StoreFile, sfx, err)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, auth.StoreFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("host.db: %v %v", fi, err)
	}
	s = open(t, dir, auth.Options{AdminToken: "0123456789abcdef-fixture"})
	check(s)
	if _, err := s.Authenticate(fresh); err != nil {
		t.Fatalf("a token minted after the migration: %v", err)
	}
}

// TestOpen_RefusesOtherFiles: a host.db that is neither a token store, nor
// empty, nor the old layout is refused with a message that says so, and left
// as it was.
func TestOpen_RefusesOtherFiles(t *testing.T) {
	for name, mk := range map[string]func(path string) error{
		"other database": func(path string) error {
			c, err := sqlite.Open(path, false)
			if err != nil {
				return err
			}
			if err := c.Exec("CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('keep')"); err != nil {
				return err
			}
			return c.Close()
		},
		"not a database": func(path string) error {
			return os.WriteFile(path, []byte(strings.Repeat("not sqlite\n", 200)), 0o600)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, auth.StoreFile)
			if err := mk(path); err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = auth.Open(context.Background(), dir, auth.Options{AdminToken: "0123456789abcdef-fixture"})
			if err == nil || !strings.Contains(err.Error(), "not") || !strings.Contains(err.Error(), path) {
				t.Fatalf("Open = %v, want a refusal naming %s", err, path)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Fatal("the refused file was changed")
			}
		})
	}
}

// TestOpen_OneProcess: the token store is locked while open.
func TestOpen_OneProcess(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, auth.Options{AdminToken: "0123456789abcdef-fixture"})
	_, err := auth.Open(context.Background(), dir, auth.Options{AdminToken: "0123456789abcdef-fixture"})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Open = %v, want in use", err)
	}
}

package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestFS_hostileNames: names that are not UTF-8, hold control characters or
// begin with a quote are listed quoted, one line each, by desk fs on a
// database (made directly in the store) and on a server; the listed form
// cats, stats, moves and removes them.
func TestFS_hostileNames(t *testing.T) {
	ctx := context.Background()
	names := []string{"a\nb", "caf\xe9", `"q"`, "\x1b[31mred"}
	db := filepath.Join(t.TempDir(), "local.db")
	fsys, err := vfs.Open(ctx, db, vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fsys.MkdirAll(ctx, "/d", 0o755)
	for _, n := range names {
		if err := fsys.WriteFile(ctx, "/d/"+n, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fsys.Close()
	srv := newTestServer(t)
	srv.use(t)
	mustDesk(t, nil, "ws", "create", "demo")
	c, err := client.New(srv.url, srv.admin, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, err := c.WriteFile(ctx, "demo", quote.Path("/d/"+n), strings.NewReader("data\n"), client.WriteOptions{Parents: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, where := range [][]string{{"-db", db}, {"-w", "demo"}} {
		fs := func(args ...string) string {
			t.Helper()
			return mustDesk(t, nil, append(append([]string{"fs"}, where...), args...)...)
		}
		ls := fs("ls", "/d")
		if strings.Count(ls, "\n") != len(names) || strings.ContainsAny(ls, "\x1b\r") {
			t.Errorf("%s ls: %q", where[0], ls)
		}
		for _, n := range names {
			shown := "/d/" + quote.Name(n)
			if !strings.Contains(ls, quote.Name(n)+"\n") {
				t.Errorf("%s ls lacks %s: %q", where[0], quote.Name(n), ls)
			}
			if got := fs("cat", shown); got != "data\n" {
				t.Errorf("%s cat %s: %q", where[0], shown, got)
			}
			if got := fs("stat", shown); !strings.Contains(got, shown) {
				t.Errorf("%s stat %s: %q", where[0], shown, got)
			}
			moved := "/d/" + quote.Name(n+"\tmoved")
			fs("mv", shown, moved)
			fs("rm", moved)
			_, errs, code := desk(t, nil, append(append([]string{"fs"}, where...), "cat", moved)...)
			if code != 1 || !strings.Contains(errs, moved) || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s cat after rm: %d %q", where[0], code, errs)
			}
		}
		if ls := fs("ls", "/d"); ls != "" {
			t.Errorf("%s: left %q", where[0], ls)
		}
	}
}

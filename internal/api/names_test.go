package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
)

// TestAPI_hostileNames: names made directly in the store (not UTF-8,
// control characters, a leading quote) are listed in their quoted form,
// and that form reads, stats, renames and deletes them; the journal and
// errors show it too, and no JSON carries U+FFFD.
func TestAPI_hostileNames(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	names := []string{"a\nb", "caf\xe9", `"q"`, "\xff"}
	l, err := e.h.Acquire(bg, "w")
	if err != nil {
		t.Fatal(err)
	}
	fsys := l.Workspace().FS()
	if err := fsys.MkdirAll(bg, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := fsys.WriteFile(bg, "/d/"+n, []byte("data "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l.Release()
	st, body, _ := e.raw("GET", "/v1/workspaces/w/files//d", e.admin, nil)
	if st != 200 || !utf8.Valid(body) || strings.ContainsRune(string(body), utf8.RuneError) {
		t.Fatalf("listing: %d %q", st, body)
	}
	list, err := e.c.ReadDir(bg, "w", "/d", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	more, err := e.c.ReadDir(bg, "w", "/d", list.Next, 0) // the cursor is a shown name
	if err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, de := range append(list.Entries, more.Entries...) {
		shown = append(shown, de.Name)
	}
	if len(shown) != len(names) {
		t.Fatalf("listed %q, want %d names", shown, len(names))
	}
	for _, n := range names {
		if !strings.Contains(strings.Join(shown, "\x00"), quote.Name(n)) {
			t.Errorf("listing lacks %s: %q", quote.Name(n), shown)
		}
		p := "/d/" + quote.Name(n)
		fi, err := e.c.Stat(bg, "w", p)
		if err != nil || fi.Path != p || fi.Name != quote.Name(n) {
			t.Errorf("stat %s: %+v, %v", p, fi, err)
		}
		if b, err := e.c.ReadFile(bg, "w", p); err != nil || string(b) != "data "+n {
			t.Errorf("read %s: %q, %v", p, b, err)
		}
		to := "/d/" + quote.Name(n+"\tmoved")
		if fi, err := e.c.Move(bg, "w", p, to, true); err != nil || fi.Path != to {
			t.Errorf("move %s: %+v, %v", p, fi, err)
		}
		if err := e.c.Remove(bg, "w", to, false); err != nil {
			t.Errorf("remove %s: %v", to, err)
		}
		_, err = e.c.Stat(bg, "w", to)
		wantCode(t, "stat after remove", err, 404, "ENOENT")
		if err == nil || !strings.Contains(err.Error(), quote.Path("/d/"+n+"\tmoved")) || strings.ContainsAny(err.Error(), "\n\t") {
			t.Errorf("error for %s: %v", to, err)
		}
	}
	if ents, err := e.c.ReadDir(bg, "w", "/d", "", 0); err != nil || len(ents.Entries) != 0 {
		t.Errorf("left in /d: %+v, %v", ents, err)
	}
	cl, err := e.c.Changes(bg, "w", 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cl)
	if !strings.Contains(string(b), mustQuoteJSON(quote.Path("/d/a\nb\tmoved"))) || strings.ContainsRune(string(b), utf8.RuneError) {
		t.Errorf("changes lack the quoted rename: %s", b)
	}
	st, _, code := e.raw("GET", "/v1/workspaces/w/files//d/%22unterminated", e.admin, nil)
	if st != 400 || code != "bad_path" {
		t.Errorf("a bad quoted element: %d %s", st, code)
	}
}

func mustQuoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

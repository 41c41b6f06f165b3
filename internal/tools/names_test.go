package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
)

// hostileNames are names a sandbox program can make: not UTF-8, control
// characters, a leading double quote.
var hostileNames = []string{"a\nb", "caf\xe9", `"q"`, "tab\there", "\xff\xfe", "cr\rfake\t99"}

// TestNames_hostile: names made directly in the store are listed, found and
// grepped in their quoted form, without a forged line, and every tool takes
// that form back: read, write, edit, delete; errors show it too.
func TestNames_hostile(t *testing.T) {
	e := newEnv(t, Options{})
	for _, n := range hostileNames {
		e.put("/workspace/d/"+n, "one needle\n")
	}
	if err := e.fs.Symlink(e.ctx, "to\nwhere", "/workspace/d/link"); err != nil {
		t.Fatal(err)
	}
	structured := func(r *Result) string {
		b, err := json.Marshal(r.Structured)
		if err != nil || !utf8.Valid(b) || strings.ContainsRune(string(b), utf8.RuneError) {
			t.Fatalf("structured output %q: %v", b, err)
		}
		return string(b)
	}
	text, res := e.ok("ls", `{"path":"d"}`)
	if lines := strings.Count(text, "\n"); lines != len(hostileNames)+1 {
		t.Errorf("ls printed %d lines for %d entries:\n%s", lines, len(hostileNames)+1, text)
	}
	js := structured(res)
	for _, n := range hostileNames {
		if !strings.Contains(text, quote.Name(n)+"\t") || !strings.Contains(js, mustJSON(quote.Name(n))) {
			t.Errorf("ls lacks %s:\n%s\n%s", quote.Name(n), text, js)
		}
	}
	if !strings.Contains(text, "link\t-> \"to\\nwhere\"\n") {
		t.Errorf("ls shows the symlink's target unquoted:\n%s", text)
	}
	text, res = e.ok("find", `{"path":"d","pattern":"*"}`)
	if strings.Count(text, "\n") < len(hostileNames)+1 || strings.Count(text, "/workspace/d/") != len(hostileNames)+1 {
		t.Errorf("find:\n%s", text)
	}
	structured(res)
	text, res = e.ok("grep", `{"path":"d","query":"needle"}`)
	for _, n := range hostileNames {
		if !strings.Contains(text, quote.Path("/workspace/d/"+n)+":1:one needle\n") {
			t.Errorf("grep lacks %s:\n%s", quote.Path("/workspace/d/"+n), text)
		}
	}
	structured(res)
	for _, n := range hostileNames {
		shown := "d/" + quote.Name(n)
		raw := "/workspace/d/" + n
		in := func(fields string) string { return `{"path":` + mustJSON(shown) + fields + `}` }
		text, res := e.ok("read", in(""))
		if !strings.Contains(text, "one needle") || !strings.Contains(structured(res), mustJSON(quote.Path(raw))) {
			t.Errorf("read %s: %s", shown, text)
		}
		e.ok("write", in(`,"content":"two needle\n"`))
		if got := e.get(raw); got != "two needle\n" {
			t.Errorf("write %s: the store has %q", shown, got)
		}
		text, _ = e.ok("edit", in(`,"edits":[{"old":"two","new":"three"}]`))
		if got := e.get(raw); got != "three needle\n" || !strings.Contains(text, "--- "+quote.Path(raw)+"\n") {
			t.Errorf("edit %s: the store has %q; diff:\n%s", shown, got, text)
		}
		e.ok("delete", in(""))
		if _, err := e.fs.Lstat(e.ctx, raw); err == nil {
			t.Errorf("delete %s left it", shown)
		}
		msg := e.fails("read", in(""), CodeNotFound).Message
		if !strings.Contains(msg, quote.Path(raw)) || strings.ContainsAny(msg, "\n\r\t") || !utf8.ValidString(msg) {
			t.Errorf("error for %s: %q", shown, msg)
		}
	}
	e.fails("read", `{"path":"d/\"unterminated"}`, CodeInvalid, "bad quoted name")
	e.fails("read", `{"path":"d/\"..\"/x"}`, CodeInvalid, "bad quoted name")
	// An execution's changes name what it made in the quoted form.
	text, res = e.ok("exec", `{"command":"printf x > $'new\\nname'"}`)
	if !strings.Contains(text, `[created: /workspace/"new\nname"]`) || !strings.Contains(structured(res), mustJSON(`/workspace/"new\nname"`)) {
		t.Errorf("exec changes:\n%s", text)
	}
}

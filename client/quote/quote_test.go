package quote_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client/quote"
)

func TestName(t *testing.T) {
	for _, c := range []struct{ name, shown string }{
		{"plain.txt", "plain.txt"},
		{"with space", "with space"},
		{"café ☕", "café ☕"},
		{`a"b\c`, `a"b\c`},
		{"a\nb", `"a\nb"`},
		{"tab\there", `"tab\there"`},
		{"caf\xe9", `"caf\xe9"`},
		{"\xff\xfe", `"\xff\xfe"`},
		{`"quoted"`, `"\"quoted\""`},
		{"bidi\u202egnp.exe", `"bidi\u202egnp.exe"`},
		{"del\x7f", `"del\x7f"`},
		{"esc\x1b[31m", `"esc\x1b[31m"`},
	} {
		if got := quote.Name(c.name); got != c.shown {
			t.Errorf("Name(%q) = %s, want %s", c.name, got, c.shown)
		}
		if back, err := quote.ParseName(c.shown); err != nil || back != c.name {
			t.Errorf("ParseName(%s) = %q, %v, want %q", c.shown, back, err, c.name)
		}
		if strings.ContainsAny(quote.Name(c.name), "\n\r\t\x00") {
			t.Errorf("Name(%q) holds a control character", c.name)
		}
	}
}

func TestPath(t *testing.T) {
	p := "/workspace/a\nb/caf\xe9/x.txt"
	shown := `/workspace/"a\nb"/"caf\xe9"/x.txt`
	if got := quote.Path(p); got != shown {
		t.Fatalf("Path = %s, want %s", got, shown)
	}
	if back, err := quote.ParsePath(shown); err != nil || back != p {
		t.Fatalf("ParsePath = %q, %v", back, err)
	}
	for _, bad := range []string{`/a/"b`, `/"a/b"`, `/"\x00"`, `/".."`, `/""`, `/"\q"`} {
		if _, err := quote.ParsePath(bad); !errors.Is(err, quote.ErrBadName) {
			t.Errorf("ParsePath(%s) = %v, want ErrBadName", bad, err)
		}
	}
	if back, err := quote.ParsePath(`plain/a"b`); err != nil || back != `plain/a"b` {
		t.Errorf("a quote inside an element is literal: %q %v", back, err)
	}
}

// FuzzQuote: every name (bytes without NUL or slash) round-trips, and its
// shown form is valid UTF-8 without control characters.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"a", "a\nb", "\xff", `"x"`, "café", "\u202e", `\x41`, `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		shown := quote.Name(name)
		for _, r := range shown {
			if r < 0x20 || r == 0x7f || r == 0xfffd && !strings.ContainsRune(name, 0xfffd) {
				t.Fatalf("Name(%q) = %q holds %U", name, shown, r)
			}
		}
		back, err := quote.ParseName(shown)
		valid := name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
		if valid && (err != nil || back != name) {
			t.Fatalf("ParseName(Name(%q)) = %q, %v", name, back, err)
		}
		if !valid {
			return
		}
		p := "/d/" + name + "/" + name
		if back, err := quote.ParsePath(quote.Path(p)); err != nil || back != p {
			t.Fatalf("ParsePath(Path(%q)) = %q, %v", p, back, err)
		}
	})
}

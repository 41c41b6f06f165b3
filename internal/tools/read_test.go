package tools

import (
	"fmt"
	"strings"
	"testing"
)

func numbered(from, to int, line func(int) string) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\t%s\n", i, line(i))
	}
	return b.String()
}

func TestRead(t *testing.T) {
	e := newEnv(t, Options{MaxReadLines: 5, MaxReadBytes: 64, MaxLineBytes: 10})
	e.put("/workspace/a.txt", "one\ntwo\nthree\n")
	e.put("/workspace/noeol.txt", "x\ny")
	e.put("/workspace/crlf.txt", "a\r\nb\r\n")
	e.put("/workspace/empty.txt", "")
	e.put("/workspace/long.txt", "0123456789abcdef\nshort\n")
	e.put("/workspace/utf8.txt", "aéééééé\n") // 13 bytes: cut at 9, on a rune boundary
	e.put("/workspace/seven.txt", "1\n2\n3\n4\n5\n6\n7\n")
	e.put("/workspace/wide.txt", strings.Repeat("abcdefgh\n", 10)) // 8-byte lines: the byte cap
	e.put("/abs.txt", "root file\n")
	e.put("/workspace/bin.dat", "\x00\x01\x02binary")
	e.put("/workspace/latin1.txt", "caf\xe9\n")
	e.put("/workspace/pic.png", "\x89PNG\r\n\x1a\n0000IHDR")
	if err := e.fs.Symlink(e.ctx, "a.txt", "/workspace/link"); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, in, want string
	}{
		{"whole file", `{"path":"a.txt"}`, "1\tone\n2\ttwo\n3\tthree\n"},
		{"absolute path", `{"path":"/workspace/a.txt"}`, "1\tone\n2\ttwo\n3\tthree\n"},
		{"outside /workspace", `{"path":"/abs.txt"}`, "1\troot file\n"},
		{"offset", `{"path":"a.txt","offset":2}`, "2\ttwo\n3\tthree\n"},
		{"offset and limit", `{"path":"a.txt","offset":2,"limit":1}`, "2\ttwo\n[truncated: showed lines 2-2 of /workspace/a.txt (limit=1); call read with offset=3 to continue]\n"},
		{"no final newline", `{"path":"noeol.txt"}`, "1\tx\n2\ty\n"},
		{"crlf shown without cr", `{"path":"crlf.txt"}`, "1\ta\n2\tb\n"},
		{"empty", `{"path":"empty.txt"}`, "(empty file)"},
		{"long line cut", `{"path":"long.txt"}`, "1\t0123456789 … [line cut: 6 more bytes]\n2\tshort\n[1 line longer than 10 bytes shown cut; use grep or exec (cut -c, fold) to see the rest]\n"},
		{"cut on rune boundary", `{"path":"utf8.txt"}`, "1\taéééé … [line cut: 4 more bytes]\n"},
		{"line cap", `{"path":"seven.txt"}`, numbered(1, 5, func(i int) string { return fmt.Sprint(i) }) + "[truncated: showed lines 1-5 of /workspace/seven.txt (the 5-line cap); call read with offset=6 to continue]\n"},
		{"limit above cap", `{"path":"seven.txt","limit":100}`, "5\t5\n[truncated"},
		{"continuation", `{"path":"seven.txt","offset":6}`, "6\t6\n7\t7\n"},
		{"byte cap", `{"path":"wide.txt"}`, "5\tabcdefgh\n[truncated: showed lines 1-5"},
		{"symlink followed", `{"path":"link"}`, "1\tone\n"},
		{"binary", `{"path":"bin.dat"}`, "binary file, 9 bytes, type application/octet-stream"},
		{"not utf-8 is binary", `{"path":"latin1.txt"}`, "binary file, 5 bytes, type text/plain; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := e.ok("read", tt.in)
			if !strings.Contains(got, tt.want) {
				t.Errorf("got\n%q\nwant it to contain\n%q", got, tt.want)
			}
		})
	}

	// The byte cap: 8-byte lines + "N\t" + newline = 11 bytes; 64 bytes hold 5.
	_, res := e.ok("read", `{"path":"wide.txt"}`)
	out := res.Structured.(*ReadOutput)
	if !out.Truncated || out.NextOffset != 6 || out.EndLine != 5 || len(out.Text) > 64 {
		t.Errorf("byte cap: %+v", out)
	}
	_, res = e.ok("read", `{"path":"a.txt"}`)
	if out := res.Structured.(*ReadOutput); out.TotalLines != 3 || out.Truncated || out.Revision == 0 || out.Kind != "text" || out.Size != 14 {
		t.Errorf("whole file: %+v", out)
	}

	// Images come back as image content.
	_, res = e.ok("read", `{"path":"pic.png"}`)
	if c := res.Content[0]; c.Type != "image" || c.MIMEType != "image/png" || string(c.Data) != "\x89PNG\r\n\x1a\n0000IHDR" {
		t.Errorf("image content: %+v", res.Content)
	}

	errs := []struct{ name, in, code, want string }{
		{"missing", `{"path":"nope.txt"}`, CodeNotFound, "/workspace/nope.txt does not exist"},
		{"directory", `{"path":"/workspace"}`, CodeIsDirectory, "use ls"},
		{"no path", `{}`, CodeInvalid, "read: path is required"},
		{"negative offset", `{"path":"a.txt","offset":-1}`, CodeInvalid, "must be positive"},
		{"offset past end", `{"path":"a.txt","offset":5}`, CodeInvalid, "the file has 3 lines"},
		{"offset past end, no final newline", `{"path":"noeol.txt","offset":4}`, CodeInvalid, "the file has 2 lines"},
		{"offset in empty", `{"path":"empty.txt","offset":2}`, CodeInvalid, "the file is empty"},
		{"unknown field", `{"path":"a.txt","lines":3}`, CodeInvalid, `read has no input field "lines"; its fields are limit, offset, path`},
		{"wrong type", `{"path":3}`, CodeInvalid, `field "path" must be a string`},
		{"not an object", `[1]`, CodeInvalid, "must be a JSON object"},
		{"file as directory", `{"path":"a.txt/x"}`, CodeNotDirectory, "not a directory"},
		{"nul", `{"path":"a\u0000b"}`, CodeInvalid, "NUL"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) { e.fails("read", tt.in, tt.code, tt.want) })
	}
}

func TestRead_imageCap(t *testing.T) {
	e := newEnv(t, Options{MaxImageBytes: 16})
	e.put("/workspace/big.gif", "GIF89a"+strings.Repeat("x", 20))
	e.fails("read", `{"path":"big.gif"}`, CodeTooLarge, "image/gif image of 26 bytes, over the 16-byte cap")
	for _, magic := range []string{"\xff\xd8\xff\xe0", "RIFF0000WEBPVP8 ", "GIF87a"} {
		e.put("/workspace/i", magic)
		if _, res := e.ok("read", `{"path":"i"}`); res.Content[0].Type != "image" {
			t.Errorf("%q: not an image: %+v", magic, res.Content)
		}
	}
}

// TestRead_continuationSkipsPrefix checks that continuing a truncated read
// does not read the file's beginning again, and that the line index is
// dropped when the file changes.
func TestRead_continuationSkipsPrefix(t *testing.T) {
	e := newEnv(t, Options{})
	var b strings.Builder
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&b, "line %05d %s\n", i, strings.Repeat("x", 100))
	}
	content := b.String() // ~1.1 MB
	e.put("/workspace/big.txt", content)
	var next int
	for page := 0; ; page++ {
		before := e.set.st.bytesRead.Load()
		in := `{"path":"big.txt"}`
		if next > 0 {
			in = fmt.Sprintf(`{"path":"big.txt","offset":%d}`, next)
		}
		_, res := e.ok("read", in)
		out := res.Structured.(*ReadOutput)
		read := e.set.st.bytesRead.Load() - before
		if want := fmt.Sprintf("%d\tline %05d", max(next, 1), max(next, 1)); !strings.HasPrefix(out.Text, want) {
			t.Fatalf("page %d starts %q, want %q", page, out.Text[:30], want)
		}
		// A page reads the sniffed head (8000 bytes) and about one page of
		// text (2000 lines of 112 bytes, plus the bufio read-ahead).
		if read > sniffBytes+2000*112+128<<10 {
			t.Fatalf("page %d (offset %d) read %d bytes: the prefix was read again", page, next, read)
		}
		if !out.Truncated {
			if out.EndLine != 10000 || out.TotalLines != 10000 {
				t.Fatalf("last page: %+v", out)
			}
			break
		}
		next = out.NextOffset
	}
	// A changed file is read from its start: the remembered offset is stale.
	e.put("/workspace/big.txt", "short\n"+content)
	_, res := e.ok("read", `{"path":"big.txt","offset":2001}`)
	if out := res.Structured.(*ReadOutput); !strings.HasPrefix(out.Text, "2001\tline 02000") {
		t.Fatalf("after a change: %q", out.Text[:30])
	}
}

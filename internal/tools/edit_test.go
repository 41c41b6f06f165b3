package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

func TestEdit(t *testing.T) {
	e := newEnv(t, Options{})
	tests := []struct {
		name, file string
		edits      []Edit
		want       string
		tolerant   bool
	}{
		{"one", "a\nb\nc\n", []Edit{{"b", "B"}}, "a\nB\nc\n", false},
		{"several in order", "x = 1\ny = 2\n", []Edit{{"x = 1", "x = 10"}, {"x = 10\ny", "x = 10\nz"}}, "x = 10\nz = 2\n", false},
		{"delete text", "keep\ndrop\nkeep2\n", []Edit{{"drop\n", ""}}, "keep\nkeep2\n", false},
		{"crlf kept", "a\r\nb\r\nc\r\n", []Edit{{"b\nc", "B\nC\nD"}}, "a\r\nB\r\nC\r\nD\r\n", false},
		{"crlf in old", "a\r\nb\r\n", []Edit{{"a\r\nb", "x"}}, "x\r\n", false},
		{"bom kept", "\ufeffhello\n", []Edit{{"hello", "bye"}}, "\ufeffbye\n", false},
		{"mixed endings untouched", "a\r\nb\nc\n", []Edit{{"b", "B"}}, "a\r\nB\nc\n", false},
		{"tolerant: trailing blanks", "func f() {   \n\treturn 1\n}\n", []Edit{{"func f() {\n\treturn 1", "func f() {\n\treturn 2"}}, "func f() {\n\treturn 2\n}\n", true},
		{"tolerant: indentation", "if x {\n\tfoo()\n}\n", []Edit{{"    foo()", "    bar()"}}, "if x {\n    bar()\n}\n", true},
		{"tolerant: quotes", "say(\u201chello\u201d)\n", []Edit{{`say("hello")`, `say("bye")`}}, "say(\"bye\")\n", true},
		{"tolerant: inner blanks", "a  =   1\n", []Edit{{"a = 1", "a = 2"}}, "a = 2\n", true},
		{"tolerant: whole lines", "x\n\tone  \n\ttwo\ny\n", []Edit{{"  one\n  two\n", "  three\n"}}, "x\n  three\ny\n", true},
		{"unicode", "héllo wörld\n", []Edit{{"wörld", "welt"}}, "héllo welt\n", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fmt.Sprintf("/workspace/e%d.txt", i)
			e.put(p, tt.file)
			_, res := e.ok("edit", mustJSON(EditInput{Path: p, Edits: tt.edits}))
			if got := e.get(p); got != tt.want {
				t.Errorf("content %q, want %q", got, tt.want)
			}
			out := res.Structured.(*EditOutput)
			if (len(out.Tolerant) > 0) != tt.tolerant {
				t.Errorf("tolerant = %v, want %v", out.Tolerant, tt.tolerant)
			}
			if out.Revision == 0 || !strings.HasPrefix(out.Diff, "--- "+p+"\n+++ "+p+"\n@@ ") {
				t.Errorf("output %+v", out)
			}
		})
	}
}

func TestEdit_diffAndRevision(t *testing.T) {
	e := newEnv(t, Options{})
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	e.put("/workspace/f.txt", b.String())
	_, res := e.ok("read", `{"path":"f.txt"}`)
	rev := res.Structured.(*ReadOutput).Revision
	text, res := e.ok("edit", mustJSON(EditInput{Path: "f.txt", ExpectedRevision: rev, Edits: []Edit{{"line 5\n", "line five\n"}, {"line 16\n", ""}}}))
	want := `--- /workspace/f.txt
+++ /workspace/f.txt
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+line five
 line 6
 line 7
 line 8
@@ -13,7 +13,6 @@
 line 13
 line 14
 line 15
-line 16
 line 17
 line 18
 line 19
`
	out := res.Structured.(*EditOutput)
	if out.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out.Diff, want)
	}
	if out.Added != 1 || out.Removed != 2 || !strings.Contains(text, "+1 -2 lines") {
		t.Errorf("counts: %+v / %q", out, text)
	}
	// The revision edit returns is the one to pass next.
	if out.Revision <= rev {
		t.Errorf("revision %d after %d", out.Revision, rev)
	}
	e.ok("edit", mustJSON(EditInput{Path: "f.txt", ExpectedRevision: out.Revision, Edits: []Edit{{"line 1\n", "line one\n"}}}))
	// A stale revision is a conflict, naming the change.
	e.fails("edit", mustJSON(EditInput{Path: "f.txt", ExpectedRevision: out.Revision, Edits: []Edit{{"line 2\n", "line two\n"}}}),
		CodeConflict, "changed after revision", "write by tool", "read it again")
	// A write by someone else (an execution) is a conflict too.
	_, res = e.ok("read", `{"path":"f.txt"}`)
	rev = res.Structured.(*ReadOutput).Revision
	e.ok("exec", `{"command":"echo 'line 21' >> f.txt"}`)
	e.fails("edit", mustJSON(EditInput{Path: "f.txt", ExpectedRevision: rev, Edits: []Edit{{"line 3\n", "x\n"}}}), CodeConflict, "changed after revision")
	// A chmod is not.
	_, res = e.ok("read", `{"path":"f.txt"}`)
	rev = res.Structured.(*ReadOutput).Revision
	if err := e.fs.Chmod(e.ctx, "/workspace/f.txt", 0o600); err != nil {
		t.Fatal(err)
	}
	e.ok("edit", mustJSON(EditInput{Path: "f.txt", ExpectedRevision: rev, Edits: []Edit{{"line 3\n", "x\n"}}}))
	if fi, _ := e.fs.Stat(e.ctx, "/workspace/f.txt"); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	// Renaming a directory above the file is a conflict.
	e.put("/workspace/d/g.txt", "g\n")
	_, res = e.ok("read", `{"path":"d/g.txt"}`)
	rev = res.Structured.(*ReadOutput).Revision
	e.ok("exec", `{"command":"mv d d2 && mv d2 d"}`)
	e.fails("edit", mustJSON(EditInput{Path: "d/g.txt", ExpectedRevision: rev, Edits: []Edit{{"g", "h"}}}), CodeConflict)
	e.fails("edit", mustJSON(EditInput{Path: "d/g.txt", ExpectedRevision: 1 << 40, Edits: []Edit{{"g", "h"}}}), CodeInvalid, "newer than")
}

func TestEdit_errors(t *testing.T) {
	e := newEnv(t, Options{MaxEditFileBytes: 1000, MaxRevisionScan: 5})
	src := "package main\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n\nfunc main() {\n\tprintln(add(1, 2))\n\tprintln(add(1, 2))\n}\n"
	e.put("/workspace/main.go", src)
	e.put("/workspace/bin", "\x00\x01")
	e.put("/workspace/big", strings.Repeat("x", 1001))
	tests := []struct {
		name  string
		in    EditInput
		code  string
		wants []string
	}{
		{"ambiguous", EditInput{Path: "main.go", Edits: []Edit{{"println(add(1, 2))", "x"}}}, CodeAmbiguousMatch, []string{"matches 2 times", "lines 8 and 9", "more surrounding lines"}},
		{"no match, closest lines", EditInput{Path: "main.go", Edits: []Edit{{"func add(a, b int) int {\n\treturn a - b\n}", "x"}}}, CodeNoMatch, []string{"not found", "3\tfunc add(a, b int) int {\n4\t\treturn a + b\n"}},
		{"no match, nothing similar", EditInput{Path: "main.go", Edits: []Edit{{"zzzzqqqq", "x"}}}, CodeNoMatch, []string{"nothing similar"}},
		{"line numbers copied", EditInput{Path: "main.go", Edits: []Edit{{"4\t\treturn a + b", "x"}}}, CodeNoMatch, []string{"line-number prefixes"}},
		{"second edit fails", EditInput{Path: "main.go", Edits: []Edit{{"package main", "package x"}, {"nothing like it at all", "y"}}}, CodeNoMatch, []string{"edit #2"}},
		{"empty old", EditInput{Path: "main.go", Edits: []Edit{{"", "x"}}}, CodeInvalid, []string{"old is empty", "use write"}},
		{"same", EditInput{Path: "main.go", Edits: []Edit{{"main", "main"}}}, CodeInvalid, []string{"the same"}},
		{"no edits", EditInput{Path: "main.go"}, CodeInvalid, []string{"at least one"}},
		{"net no change", EditInput{Path: "main.go", Edits: []Edit{{"package main", "package x"}, {"package x", "package main"}}}, CodeInvalid, []string{"unchanged"}},
		{"missing", EditInput{Path: "nope.go", Edits: []Edit{{"a", "b"}}}, CodeNotFound, []string{"use write to create it"}},
		{"directory", EditInput{Path: "/workspace", Edits: []Edit{{"a", "b"}}}, CodeIsDirectory, nil},
		{"binary", EditInput{Path: "bin", Edits: []Edit{{"a", "b"}}}, CodeBinary, []string{"exec"}},
		{"too large", EditInput{Path: "big", Edits: []Edit{{"x", "y"}}}, CodeTooLarge, []string{"1001 bytes", "exec"}},
		{"too many edits", EditInput{Path: "main.go", Edits: manyEdits(MaxEdits + 1)}, CodeTooLarge, []string{"at most 100 edits", "got 101", "several calls"}},
		{"new over the cap", EditInput{Path: "main.go", Edits: []Edit{{"package main", strings.Repeat("y", 1001)}}}, CodeTooLarge, []string{"edit #1", "over edit's cap of 1000 bytes"}},
		{"result over the cap", EditInput{Path: "main.go", Edits: []Edit{{"package main", strings.Repeat("y", 600)}, {"func main", strings.Repeat("z", 600)}}}, CodeTooLarge, []string{"edit #2 would make", "over edit's cap of 1000 bytes"}},
		{"revision too old", EditInput{Path: "main.go", ExpectedRevision: 1, Edits: []Edit{{"package main", "package x"}}}, CodeConflict, []string{"too old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.fails("edit", mustJSON(tt.in), tt.code, tt.wants...)
			if got := e.get("/workspace/main.go"); got != src {
				t.Fatalf("a failed edit changed the file:\n%s", got)
			}
		})
	}
	e.fails("edit", `{"path":"main.go","edits":[{"old":"a"}]}`, CodeInvalid, "edit: edits[0].new is required")
	e.fails("edit", `{"edits":[{"old":"a","new":"b"}]}`, CodeInvalid, "edit: path is required")
	e.fails("edit", `{"path":"main.go","edits":[{"old":"a","new":"b","all":true}]}`, CodeInvalid, `no input field "all"`)
}

// manyEdits returns n edits that each replace a different missing line.
func manyEdits(n int) []Edit {
	out := make([]Edit, n)
	for i := range out {
		out[i] = Edit{fmt.Sprintf("no such line %d", i), "x"}
	}
	return out
}

// TestEdit_hostile makes the most expensive edit call the limits admit:
// MaxEdits edits that each match only tolerantly (so each folds the whole
// file) on a 1 MiB file. Its allocations stay within MaxEdits times a small
// multiple of the file (the folded copy and its offset maps, 9 bytes a
// byte, and the next text), and the result is right.
func TestEdit_hostile(t *testing.T) {
	e := newEnv(t, Options{})
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, "v%d  =  %d\n", i, i)
	}
	src := b.String()
	e.put("/workspace/big.txt", src)
	edits := make([]Edit, MaxEdits)
	for i := range edits {
		edits[i] = Edit{fmt.Sprintf("v%d = %d\n", i*100, i*100), fmt.Sprintf("w%d = %d\n", i, i)}
	}
	in := mustJSON(EditInput{Path: "big.txt", Edits: edits})
	var res *Result
	got := testenv.Allocated(func() { _, res = e.ok("edit", in) })
	bound := uint64(MaxEdits*12*len(src)) + 32<<20
	t.Logf("%d edits on %d bytes: %d bytes allocated (bound %d)", MaxEdits, len(src), got, bound)
	if got > bound {
		t.Errorf("allocated %d bytes, over %d", got, bound)
	}
	out := res.Structured.(*EditOutput)
	if len(out.Tolerant) != MaxEdits || out.Added != MaxEdits || out.Removed != MaxEdits {
		t.Errorf("tolerant %d, +%d -%d", len(out.Tolerant), out.Added, out.Removed)
	}
	if text := e.get("/workspace/big.txt"); !strings.Contains(text, "w99 = 99\nv9901  =  9901\n") || strings.Contains(text, "v100  =  100\n") {
		t.Errorf("edits not applied")
	}
}

package tools

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tree fills a small project.
func tree(e *env) {
	e.put("/workspace/README.md", "# demo\nTODO: write docs\n")
	e.put("/workspace/go.mod", "module demo\n")
	e.put("/workspace/src/a.go", "package src\n\n// TODO: a\nfunc A() int { return 1 }\n")
	e.put("/workspace/src/b_test.go", "package src\n\nfunc TestB() {}\n")
	e.put("/workspace/src/sub/c.go", "package sub\n// todo lower\nvar C = \"c\"\n")
	e.put("/workspace/web/app.ts", "const todo = 1; // TODO ts\n")
	e.put("/workspace/web/app.tsx", "export default 1\n")
	e.put("/workspace/bin.dat", "TODO\x00binary")
	if err := e.fs.Symlink(e.ctx, "src", "/workspace/srclink"); err != nil {
		e.t.Fatal(err)
	}
}

func TestLs(t *testing.T) {
	e := newEnv(t, Options{})
	tree(e)
	got, res := e.ok("ls", `{}`)
	want := "README.md\t24\nbin.dat\t11\ngo.mod\t12\nsrc/\nsrclink\t-> src\nweb/\n"
	if got != want {
		t.Errorf("ls:\n%s\nwant\n%s", got, want)
	}
	if out := res.Structured.(*LsOutput); out.Path != "/workspace" || len(out.Entries) != 6 || out.Entries[0].Mode != "0644" {
		t.Errorf("%+v", out)
	}
	got, res = e.ok("ls", `{"offset":1,"limit":2}`)
	if got != "bin.dat\t11\ngo.mod\t12\n[more entries follow: call ls with cursor="+strconv.Quote(cursor{"ls", "/workspace", "go.mod", 0, 3}.String())+"]\n" {
		t.Errorf("page: %q", got)
	}
	if out := res.Structured.(*LsOutput); !out.Truncated || out.NextOffset != 3 {
		t.Errorf("%+v", out)
	}
	if got, _ := e.ok("ls", `{"offset":3,"limit":3}`); got != "src/\nsrclink\t-> src\nweb/\n" {
		t.Errorf("last page: %q", got)
	}
	if got, _ := e.ok("ls", `{"path":"src/a.go"}`); got != "a.go\t50\n" {
		t.Errorf("file: %q", got)
	}
	if got, _ := e.ok("ls", `{"path":"srclink"}`); !strings.HasPrefix(got, "a.go\t50\nb_test.go") {
		t.Errorf("symlink to dir: %q", got)
	}
	e.fs.Mkdir(e.ctx, "/workspace/emptydir", 0o755)
	if got, _ := e.ok("ls", `{"path":"emptydir"}`); got != "(empty directory)\n" {
		t.Errorf("empty: %q", got)
	}
	e.fails("ls", `{"path":"nope"}`, CodeNotFound)
	e.fails("ls", `{"offset":8}`, CodeInvalid, "past the end", "7 entries")
	e.fails("ls", `{"limit":-1}`, CodeInvalid)

	// Without /workspace the default listing is empty, not an error.
	e.fs.RemoveAll(e.ctx, "/workspace")
	if got, _ := e.ok("ls", `{}`); !strings.Contains(got, "does not exist yet") {
		t.Errorf("no root: %q", got)
	}
}

func TestFind(t *testing.T) {
	e := newEnv(t, Options{})
	tree(e)
	tests := []struct{ in, want string }{
		{`{"pattern":"*.go"}`, "/workspace/src/a.go\n/workspace/src/b_test.go\n/workspace/src/sub/c.go\n"},
		{`{"pattern":"src/*.go"}`, "/workspace/src/a.go\n/workspace/src/b_test.go\n"},
		{`{"pattern":"src/**/*.go"}`, "/workspace/src/a.go\n/workspace/src/b_test.go\n/workspace/src/sub/c.go\n"},
		{`{"pattern":"**/*_test.go"}`, "/workspace/src/b_test.go\n"},
		{`{"pattern":"*.{ts,tsx}"}`, "/workspace/web/app.ts\n/workspace/web/app.tsx\n"},
		{`{"pattern":"app.ts?"}`, "/workspace/web/app.tsx\n"},
		{`{"pattern":"[ab]*.go"}`, "/workspace/src/a.go\n/workspace/src/b_test.go\n"},
		{`{"pattern":"s*"}`, "/workspace/src/\n/workspace/src/sub/\n/workspace/srclink\n"},
		{`{"pattern":"*.go","path":"src/sub"}`, "/workspace/src/sub/c.go\n"},
		{`{"pattern":"*.rs"}`, "no paths under /workspace match \"*.rs\"\n"},
		{`{"pattern":"*.go","limit":2}`, "/workspace/src/a.go\n/workspace/src/b_test.go\n[more matches follow: call find with cursor=" + strconv.Quote(cursor{"find", "/workspace", "/workspace/src/b_test.go", 0, 2}.String()) + "]\n"},
		{`{"pattern":"*.go","offset":2}`, "/workspace/src/sub/c.go\n"},
	}
	for _, tt := range tests {
		if got, _ := e.ok("find", tt.in); got != tt.want {
			t.Errorf("find %s:\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
	_, res := e.ok("find", `{"pattern":"*.go"}`)
	if m := res.Structured.(*FindOutput).Matches; m[0].Size != 50 || m[0].Type != "file" {
		t.Errorf("%+v", m)
	}
	e.fails("find", `{}`, CodeInvalid, "pattern is required")
	e.fails("find", `{"pattern":""}`, CodeInvalid, "needs a pattern")
	e.fails("find", `{"pattern":"[z-a]"}`, CodeInvalid, "not a valid glob")
	e.fails("find", `{"pattern":"{a,b"}`, CodeInvalid, "unclosed {")
	e.fails("find", `{"pattern":"*","path":"go.mod"}`, CodeNotDirectory)
	e.fails("find", `{"pattern":"*","path":"nope"}`, CodeNotFound)
	e.fails("find", fmt.Sprintf(`{"pattern":%q}`, strings.Repeat("a", 2000)), CodeInvalid, "longer than")

	small := newEnv(t, Options{MaxWalk: 3})
	tree(small)
	if got, _ := small.ok("find", `{"pattern":"*"}`); !strings.Contains(got, "stopped after visiting 3 entries") {
		t.Errorf("walk cap: %q", got)
	}
}

func TestGrep(t *testing.T) {
	e := newEnv(t, Options{MaxGrepLineBytes: 30})
	tree(e)
	e.put("/workspace/long.txt", "x TODO "+strings.Repeat("y", 50)+"\n")
	e.put("/workspace/crlf.txt", "end TODO\r\n")
	tests := []struct{ in, want string }{
		{`{"query":"TODO"}`, "/workspace/README.md:2:TODO: write docs\n/workspace/crlf.txt:1:end TODO\n/workspace/long.txt:1:x TODO yyyyyyyyyyyyyyyyyyyyyyy … [+27 bytes]\n/workspace/src/a.go:3:// TODO: a\n/workspace/web/app.ts:1:const todo = 1; // TODO ts\n[1 file skipped: binary or too large]\n"},
		{`{"query":"todo","ignore_case":true,"include":"*.go"}`, "/workspace/src/a.go:3:// TODO: a\n/workspace/src/sub/c.go:2:// todo lower\n"},
		{`{"query":"^func \\w+\\(","regex":true}`, "/workspace/src/a.go:4:func A() int { return 1 }\n/workspace/src/b_test.go:3:func TestB() {}\n[1 file skipped: binary or too large]\n"},
		{`{"query":"TODO$","regex":true}`, "/workspace/crlf.txt:1:end TODO\n[1 file skipped: binary or too large]\n"},
		{`{"query":"func","path":"src/a.go"}`, "/workspace/src/a.go:4:func A() int { return 1 }\n"},
		{`{"query":"A()","path":"src"}`, "/workspace/src/a.go:4:func A() int { return 1 }\n"},
		{`{"query":"package","include":"src/**/*.go","limit":2}`, "/workspace/src/a.go:1:package src\n/workspace/src/b_test.go:1:package src\n[more matches follow: call grep with cursor=" + strconv.Quote(cursor{"grep", "/workspace", "/workspace/src/sub/c.go", 0, 2}.String()) + "]\n"},
		{`{"query":"package","include":"src/**/*.go","offset":2}`, "/workspace/src/sub/c.go:1:package sub\n"},
		{`{"query":"TODO: a","context":1}`, "/workspace/src/a.go-2-\n/workspace/src/a.go:3:// TODO: a\n/workspace/src/a.go-4-func A() int { return 1 }\n[1 file skipped: binary or too large]\n"},
		{`{"query":"nothing here"}`, "no matches for \"nothing here\" (9 files searched)\n[1 file skipped: binary or too large]\n"},
	}
	for _, tt := range tests {
		if got, _ := e.ok("grep", tt.in); got != tt.want {
			t.Errorf("grep %s:\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
	// Overlapping context is printed once, with separators between groups.
	e.put("/workspace/ctx.txt", "a\nm1\nb\nm2\nc\nd\ne\nf\nm3\ng\n")
	got, res := e.ok("grep", `{"query":"m","path":"ctx.txt","context":1}`)
	want := "/workspace/ctx.txt-1-a\n/workspace/ctx.txt:2:m1\n/workspace/ctx.txt-3-b\n/workspace/ctx.txt:4:m2\n/workspace/ctx.txt-5-c\n--\n/workspace/ctx.txt-8-f\n/workspace/ctx.txt:9:m3\n/workspace/ctx.txt-10-g\n"
	if got != want {
		t.Errorf("context:\n%s\nwant\n%s", got, want)
	}
	if out := res.Structured.(*GrepOutput); len(out.Matches) != 3 || len(out.Matches[1].Before) != 1 || out.Files != 1 {
		t.Errorf("%+v", out)
	}
	e.fails("grep", `{}`, CodeInvalid, "query is required")
	e.fails("grep", `{"query":"a(","regex":true}`, CodeInvalid, "not a valid RE2", "missing closing )")
	e.fails("grep", `{"query":"(?<=a)b","regex":true}`, CodeInvalid, "RE2")
	e.fails("grep", `{"query":"a","context":11}`, CodeInvalid, "between 0 and 10")
	e.fails("grep", `{"query":"a","include":"[z-a]"}`, CodeInvalid, "glob")
	e.fails("grep", `{"query":"a","path":"nope"}`, CodeNotFound)

	// Files over the cap are skipped and counted.
	small := newEnv(t, Options{MaxGrepFileBytes: 10})
	small.put("/workspace/big", strings.Repeat("TODO\n", 10))
	if got, _ := small.ok("grep", `{"query":"TODO"}`); !strings.Contains(got, "1 file skipped") {
		t.Errorf("size cap: %q", got)
	}
}

func TestGrep_largeFilesAndPaging(t *testing.T) {
	e := newEnv(t, Options{})
	// Files larger than a chunk are read apart from the directory page.
	e.put("/workspace/big.txt", strings.Repeat("filler line\n", 10000)+"needle\n")
	for i := 0; i < 30; i++ {
		e.put(fmt.Sprintf("/workspace/d/f%02d.txt", i), "needle\n")
	}
	var all []string
	for off := 0; ; {
		_, res := e.ok("grep", fmt.Sprintf(`{"query":"needle","limit":7,"offset":%d}`, off))
		out := res.Structured.(*GrepOutput)
		for _, m := range out.Matches {
			all = append(all, fmt.Sprintf("%s:%d", m.Path, m.Line))
		}
		if !out.Truncated {
			break
		}
		off = out.NextOffset
	}
	if len(all) != 31 || all[0] != "/workspace/big.txt:10001" || all[30] != "/workspace/d/f29.txt:1" {
		t.Errorf("%d matches: %v", len(all), all)
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t, Options{})
	tree(e)
	tests := []struct{ in, want string }{
		{`{"path":"go.mod"}`, "deleted file /workspace/go.mod"},
		{`{"path":"srclink"}`, "deleted symlink /workspace/srclink"},
		{`{"path":"src","recursive":true}`, "deleted directory /workspace/src"},
	}
	for _, tt := range tests {
		if got, _ := e.ok("delete", tt.in); got != tt.want {
			t.Errorf("delete %s: %q, want %q", tt.in, got, tt.want)
		}
	}
	if _, err := e.fs.Stat(e.ctx, "/workspace/src"); err == nil {
		t.Error("src still there")
	}
	e.fs.Mkdir(e.ctx, "/workspace/empty", 0o755)
	e.ok("delete", `{"path":"empty"}`)
	e.fails("delete", `{"path":"web"}`, CodeNotEmpty, "recursive: true")
	e.fails("delete", `{"path":"nope"}`, CodeNotFound)
	e.fails("delete", `{"path":"/"}`, CodeInvalid, "refusing")
	e.fails("delete", `{"path":"/","recursive":true}`, CodeInvalid, "refusing")
	e.fails("delete", `{}`, CodeInvalid, "path is required")
}

// TestSearchLimits: the search limits reach the tools as the definitions
// say: a query over MaxRegexpInsts is invalid, MaxGrepBytes and
// MaxSearchTime make the result incomplete with what was found.
func TestSearchLimits(t *testing.T) {
	e := newEnv(t, Options{MaxGrepBytes: 100})
	for i := range 5 {
		e.put(fmt.Sprintf("/workspace/f%d.txt", i), strings.Repeat("needle\n", 10))
	}
	e.fails("grep", `{"query":"[a-y]{0,1000}z","regex":true}`, CodeInvalid, "too large")
	got, res := e.ok("grep", `{"query":"needle"}`)
	out := res.Structured.(*GrepOutput)
	if !out.Incomplete || len(out.Matches) != 10 || !strings.Contains(got, "stopped after reading 100 bytes") {
		t.Errorf("MaxGrepBytes: %d matches, incomplete %v:\n%s", len(out.Matches), out.Incomplete, got)
	}
	slow := newEnv(t, Options{MaxSearchTime: time.Nanosecond})
	slow.put("/workspace/a/b", "x")
	if got, _ := slow.ok("find", `{"pattern":"*"}`); !strings.Contains(got, "stopped at its time limit") {
		t.Errorf("MaxSearchTime: %q", got)
	}
}

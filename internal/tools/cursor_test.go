package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/vfs"
)

// fill creates files in one batch: name → content.
func (e *env) fill(files map[string]string) {
	e.t.Helper()
	err := e.fs.Batch(e.ctx, func(b *vfs.Batch) error {
		for p, c := range files {
			if err := b.MkdirAll(p[:strings.LastIndexByte(p, '/')], 0o755); err != nil {
				return err
			}
			if err := b.WriteFile(p, []byte(c), 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

// lsAll pages through a listing with the cursor, calling between after
// each page, and returns every name in the order returned.
func (e *env) lsAll(in string, between func(page int, names []string)) []string {
	e.t.Helper()
	var names []string
	cur := ""
	for page := 0; ; page++ {
		req := in
		if cur != "" {
			req = strings.TrimSuffix(in, "}") + `,"cursor":` + mustJSON(cur) + "}"
		}
		_, res := e.ok("ls", req)
		out := res.Structured.(*LsOutput)
		for _, en := range out.Entries {
			names = append(names, en.Name)
		}
		if !out.Truncated {
			if out.NextCursor != "" {
				e.t.Fatalf("page %d: next_cursor %q without truncated", page, out.NextCursor)
			}
			return names
		}
		if out.NextCursor == "" || out.NextOffset != len(names) {
			e.t.Fatalf("page %d: truncated with next_cursor %q, next_offset %d after %d names", page, out.NextCursor, out.NextOffset, len(names))
		}
		if page > 100_000 {
			e.t.Fatal("the listing does not end")
		}
		if between != nil {
			between(page, names)
		}
		cur = out.NextCursor
	}
}

// TestLs_cursor pages a directory of 5,000 entries with cursors of several
// page sizes: every entry exactly once, in name order, as ReadDir gives it.
func TestLs_cursor(t *testing.T) {
	e := newEnv(t, Options{})
	files := map[string]string{}
	for i := range 5000 {
		files[fmt.Sprintf("/workspace/big/f%05d", i)] = ""
	}
	e.fill(files)
	// Names that only a byte-exact cursor gets right.
	for _, n := range []string{"a\nb", "\xff\xfe", `"q"`, "f00001\x01"} {
		e.put("/workspace/big/"+n, "x")
	}
	ents, err := e.fs.ReadDir(e.ctx, "/workspace/big")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, en := range ents {
		want = append(want, quote.Name(en.Name))
	}
	for _, limit := range []int{1, 7, 500, 5000} {
		if limit == 1 {
			// 5,004 calls: only over a slice of the names.
			got := e.lsAll(`{"path":"big","limit":1}`, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("limit 1: %d names, want %d; first differences %v", len(got), len(want), firstDiff(got, want))
			}
			continue
		}
		got := e.lsAll(fmt.Sprintf(`{"path":"big","limit":%d}`, limit), nil)
		if !slices.Equal(got, want) {
			t.Fatalf("limit %d: %d names, want %d; first differences %v", limit, len(got), len(want), firstDiff(got, want))
		}
	}
	// The last page costs one page: its cursor goes straight there.
	_, res := e.ok("ls", `{"path":"big","limit":4999}`)
	out := res.Structured.(*LsOutput)
	_, res = e.ok("ls", `{"path":"big","cursor":`+mustJSON(out.NextCursor)+`}`)
	if last := res.Structured.(*LsOutput); len(last.Entries) != 5 || last.Truncated {
		t.Errorf("last page: %+v", last)
	}
}

func firstDiff(a, b []string) []string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return []string{fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])}
		}
	}
	return []string{fmt.Sprintf("lengths %d vs %d", len(a), len(b))}
}

// TestLs_cursorChanged: a directory changed between pages. The cursor is a
// position in name order: names created before it are not returned, after
// it are; names removed before they were reached are not; the cursor's own
// name may be removed; nothing is returned twice.
func TestLs_cursorChanged(t *testing.T) {
	e := newEnv(t, Options{})
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("/workspace/d/f%03d", i*2)] = "" // f000 f002 ... f598
	}
	e.fill(files)
	got := e.lsAll(`{"path":"d","limit":100}`, func(page int, names []string) {
		if page != 0 {
			return
		}
		// names ends at f198, the cursor's name.
		if names[len(names)-1] != "f198" {
			t.Fatalf("page 0 ends at %s", names[len(names)-1])
		}
		e.put("/workspace/d/f001", "")          // before the cursor: not seen
		e.put("/workspace/d/f199", "")          // after it: seen
		e.put("/workspace/d/zzz", "")           // at the end: seen
		e.fs.Remove(e.ctx, "/workspace/d/f198") // the cursor's own name
		e.fs.Remove(e.ctx, "/workspace/d/f200") // not yet listed: not seen
		e.fs.Remove(e.ctx, "/workspace/d/f000") // already listed
	})
	seen := map[string]int{}
	for _, n := range got {
		seen[n]++
		if seen[n] > 1 {
			t.Errorf("%s returned twice", n)
		}
	}
	for n, want := range map[string]int{"f000": 1, "f001": 0, "f198": 1, "f199": 1, "f200": 0, "f202": 1, "f598": 1, "zzz": 1} {
		if seen[n] != want {
			t.Errorf("%s returned %d times, want %d", n, seen[n], want)
		}
	}
	if len(got) != 300+2-1 {
		t.Errorf("%d names, want 301", len(got))
	}
	if !slices.IsSorted(got) {
		t.Error("names not in order")
	}
}

// TestCursor_bad: cursors that are not one, or belong to another tool or
// path, or come with an offset, are refused as invalid with a message
// saying what to pass.
func TestCursor_bad(t *testing.T) {
	e := newEnv(t, Options{})
	tree(e)
	_, res := e.ok("ls", `{"limit":1}`)
	lsCur := res.Structured.(*LsOutput).NextCursor
	_, res = e.ok("find", `{"pattern":"*","limit":1}`)
	findCur := res.Structured.(*FindOutput).NextCursor
	e.fails("ls", `{"cursor":"nope"}`, CodeInvalid, "is not a cursor", "next_cursor")
	e.fails("ls", `{"cursor":"c1.!!"}`, CodeInvalid, "is not a cursor")
	e.fails("ls", `{"cursor":`+mustJSON(cursor{"ls", "/workspace", "a/b", 0, 0}.String())+`}`, CodeInvalid, "is not a cursor")
	e.fails("ls", `{"cursor":`+mustJSON(findCur)+`}`, CodeInvalid, "is a cursor of find")
	e.fails("ls", `{"path":"src","cursor":`+mustJSON(lsCur)+`}`, CodeInvalid, "was given for /workspace, not /workspace/src")
	e.fails("ls", `{"offset":1,"cursor":`+mustJSON(lsCur)+`}`, CodeInvalid, "either offset or cursor")
	e.fails("find", `{"pattern":"*","cursor":`+mustJSON(lsCur)+`}`, CodeInvalid, "is a cursor of ls")
	e.fails("find", `{"pattern":"*","cursor":`+mustJSON(cursor{"find", "/workspace", "/etc/passwd", 0, 0}.String())+`}`, CodeInvalid, "is not a cursor")
	e.fails("grep", `{"query":"x","cursor":`+mustJSON(findCur)+`}`, CodeInvalid, "is a cursor of find")
}

// bigTree makes dirs directories of files files each; every third file
// holds two matching lines ("needle").
func bigTree(e *env, dirs, files int) (paths []string, hits []string) {
	m := map[string]string{}
	for d := range dirs {
		for f := range files {
			p := fmt.Sprintf("/workspace/t/d%03d/f%03d.txt", d, f)
			body := "one\ntwo\n"
			if (d*files+f)%3 == 0 {
				body = "needle 1\nno\nneedle 2\n"
				hits = append(hits, p+":1", p+":3")
			}
			m[p] = body
			paths = append(paths, p)
		}
	}
	e.fill(m)
	slices.Sort(paths)
	slices.Sort(hits)
	return paths, hits
}

// TestFind_walkBound: a find over more entries than MaxWalk stops
// incomplete with a cursor; going on from each cursor finds every match
// exactly once, also when the match limit ends pages in between.
func TestFind_walkBound(t *testing.T) {
	e := newEnv(t, Options{MaxWalk: 97})
	paths, _ := bigTree(e, 20, 30) // 620 entries
	for _, limit := range []int{5000, 13} {
		var got []string
		cur, calls, incomplete := "", 0, 0
		for {
			in := fmt.Sprintf(`{"path":"t","pattern":"*.txt","limit":%d}`, limit)
			if cur != "" {
				in = strings.TrimSuffix(in, "}") + `,"cursor":` + mustJSON(cur) + "}"
			}
			text, res := e.ok("find", in)
			out := res.Structured.(*FindOutput)
			for _, m := range out.Matches {
				got = append(got, m.Path)
			}
			if out.Incomplete {
				incomplete++
				if out.NextCursor == "" || !strings.Contains(text, "after visiting 97 entries") || !strings.Contains(text, "cursor=") {
					t.Fatalf("incomplete without a cursor to go on: %q", text)
				}
				if out.NextOffset != 0 && out.Truncated {
					t.Fatalf("both truncated and incomplete: %+v", out)
				}
			}
			if out.NextCursor == "" {
				break
			}
			if calls++; calls > 1000 {
				t.Fatal("the search does not end")
			}
			cur = out.NextCursor
		}
		if !slices.Equal(got, paths) {
			t.Fatalf("limit %d: %d paths, want %d: %v", limit, len(got), len(paths), firstDiff(got, paths))
		}
		if limit == 5000 && incomplete < 6 {
			t.Errorf("limit %d: %d incomplete results, want at least 620/97", limit, incomplete)
		}
	}
}

// TestGrep_walkBound: a grep over more entries than MaxWalk says it
// stopped, how many files it searched, and gives a cursor; the
// continuation finds every match exactly once, with pages ended by the
// match limit in between (a page may end between two lines of one file).
func TestGrep_walkBound(t *testing.T) {
	e := newEnv(t, Options{MaxWalk: 101})
	paths, hits := bigTree(e, 20, 30)
	for _, limit := range []int{1000, 7, 1} {
		var got []string
		cur, calls, files := "", 0, 0
		for {
			in := fmt.Sprintf(`{"path":"t","query":"needle","limit":%d}`, limit)
			if cur != "" {
				in = strings.TrimSuffix(in, "}") + `,"cursor":` + mustJSON(cur) + "}"
			}
			text, res := e.ok("grep", in)
			out := res.Structured.(*GrepOutput)
			for _, m := range out.Matches {
				got = append(got, fmt.Sprintf("%s:%d", m.Path, m.Line))
			}
			if out.Incomplete && (out.NextCursor == "" || !strings.Contains(text, "after visiting 101 entries") || !strings.Contains(text, "files searched")) {
				t.Fatalf("incomplete without a cursor to go on: %q", text)
			}
			if out.Truncated && out.NextCursor == "" {
				t.Fatalf("truncated without a cursor: %q", text)
			}
			files += out.Files
			if out.NextCursor == "" {
				break
			}
			if calls++; calls > 5000 {
				t.Fatal("the search does not end")
			}
			cur = out.NextCursor
		}
		if !slices.Equal(got, hits) {
			t.Fatalf("limit %d: %d hits, want %d: %v", limit, len(got), len(hits), firstDiff(got, hits))
		}
		if limit == 1000 && files != len(paths) {
			t.Errorf("searched %d files over all pages, want %d", files, len(paths))
		}
	}
}

// TestGrep_cursorContext: a page boundary between two matches of one file
// keeps each match's context whole on the next page.
func TestGrep_cursorContext(t *testing.T) {
	e := newEnv(t, Options{})
	e.put("/workspace/f.txt", "a\nx1\nb\nx2\nc\n")
	_, res := e.ok("grep", `{"path":"f.txt","query":"x","context":1,"limit":1}`)
	out := res.Structured.(*GrepOutput)
	if !out.Truncated || out.NextCursor == "" || len(out.Matches) != 1 {
		t.Fatalf("%+v", out)
	}
	_, res = e.ok("grep", `{"path":"f.txt","query":"x","context":1,"cursor":`+mustJSON(out.NextCursor)+`}`)
	out = res.Structured.(*GrepOutput)
	if len(out.Matches) != 1 || out.Matches[0].Line != 4 || len(out.Matches[0].Before) != 1 || out.Matches[0].Before[0].Text != "b" || out.Truncated {
		t.Errorf("%+v", out)
	}
}

// TestFind_cursorChanged: the directory a cursor is inside is replaced by
// a file between pages; the search goes on after it.
func TestFind_cursorChanged(t *testing.T) {
	e := newEnv(t, Options{})
	tree(e)
	_, res := e.ok("find", `{"pattern":"*.go","limit":1}`)
	out := res.Structured.(*FindOutput)
	if len(out.Matches) != 1 || out.Matches[0].Path != "/workspace/src/a.go" {
		t.Fatalf("%+v", out)
	}
	if err := e.fs.RemoveAll(e.ctx, "/workspace/src"); err != nil {
		t.Fatal(err)
	}
	e.put("/workspace/src", "now a file")
	e.put("/workspace/web/z.go", "")
	got, _ := e.ok("find", `{"pattern":"*.go","cursor":`+mustJSON(out.NextCursor)+`}`)
	if got != "/workspace/web/z.go\n" {
		t.Errorf("after the change: %q", got)
	}
}

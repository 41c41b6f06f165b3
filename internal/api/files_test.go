package api_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
)

func TestAPI_Workspaces(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("alpha", "beta", "gamma")
	l, err := e.c.ListWorkspaces(bg, "", 2)
	if err != nil || len(l.Workspaces) != 2 || l.Next != "beta" {
		t.Fatalf("list page 1 = %+v, %v", l, err)
	}
	l, err = e.c.ListWorkspaces(bg, l.Next, 2)
	if err != nil || len(l.Workspaces) != 1 || l.Workspaces[0].Name != "gamma" || l.Next != "" {
		t.Fatalf("list page 2 = %+v, %v", l, err)
	}
	if w, err := e.c.GetWorkspace(bg, "alpha"); err != nil || w.Name != "alpha" {
		t.Fatalf("get = %+v, %v", w, err)
	}
	st, err := e.c.WorkspaceStats(bg, "alpha")
	if err != nil || st.Name != "alpha" || st.Store.Dirs < 1 || !slices.Contains(st.Backends, "lines") {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	_, err = e.c.CreateWorkspace(bg, "alpha")
	wantCode(t, "create existing", err, 409, api.CodeExists)
	for _, bad := range []string{"Alpha", "..", "a..b", "-x", "con", strings.Repeat("a", 64), "a b"} {
		_, err = e.c.CreateWorkspace(bg, bad)
		wantCode(t, "create "+bad, err, 400, api.CodeBadName)
	}
	for _, p := range []string{"/v1/workspaces/%2e%2e/stats", "/v1/workspaces/a%2Fb/stats", "/v1/workspaces/..%2F..%2Fetc/files/passwd"} {
		if st, _, code := e.raw("GET", p, e.admin, nil); st != 400 || code != api.CodeBadName {
			t.Errorf("GET %s = %d %s, want 400 bad_name", p, st, code)
		}
	}
	_, err = e.c.GetWorkspace(bg, "nope")
	wantCode(t, "get missing", err, 404, api.CodeNotFound)
	if err := e.c.DeleteWorkspace(bg, "beta"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "delete again", e.c.DeleteWorkspace(bg, "beta"), 404, api.CodeNotFound)
	if st, _, code := e.raw("POST", "/v1/workspaces", e.admin, strings.NewReader(`{"name": "x",}`)); st != 400 || code != api.CodeBadJSON {
		t.Errorf("invalid JSON: %d %s", st, code)
	}
	if st, _, code := e.raw("POST", "/v1/workspaces", e.admin, strings.NewReader(`{"nam": "x"}`)); st != 400 || code != api.CodeBadJSON {
		t.Errorf("unknown field: %d %s", st, code)
	}
	big := `{"name": "` + strings.Repeat("x", 2<<20) + `"}`
	if st, _, code := e.raw("POST", "/v1/workspaces", e.admin, strings.NewReader(big)); st != 413 || code != api.CodeTooLarge {
		t.Errorf("oversized JSON: %d %s", st, code)
	}
	if st, _, code := e.raw("GET", "/v1/nothing", e.admin, nil); st != 404 || code != api.CodeNotFound {
		t.Errorf("unknown route: %d %s", st, code)
	}
	if st, _, _ := e.raw("GET", "/healthz", "", nil); st != 200 {
		t.Errorf("healthz: %d", st)
	}
	if l, _ := e.c.ListWorkspaces(bg, "", 0); len(l.Workspaces) != 2 {
		t.Errorf("bad requests changed the workspaces: %+v", l)
	}
}

func TestAPI_Files(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{MaxUploadBytes: 1 << 20}})
	e.mkws("w")
	c := e.c
	content := []byte("hello, world\n")
	fi, err := c.WriteFile(bg, "w", "/src/main.go", bytes.NewReader(content), client.WriteOptions{Parents: true, Mode: 0o600})
	if err != nil || fi.Size != int64(len(content)) || fi.Mode != "0600" || fi.Type != client.TypeFile {
		t.Fatalf("write = %+v, %v", fi, err)
	}
	if got, err := c.ReadFile(bg, "w", "/src/main.go"); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("read = %q, %v", got, err)
	}
	t.Run("range", func(t *testing.T) {
		rc, err := c.OpenRange(bg, "w", "/src/main.go", 7, 5)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "world" {
			t.Fatalf("range = %q", b)
		}
		for _, tc := range []struct {
			rng    string
			status int
			body   string
		}{
			{"bytes=0-4", 206, "hello"},
			{"bytes=-6", 206, "world\n"},
			{"bytes=7-", 206, "world\n"},
			{"bytes=7-1000", 206, "world\n"},
			{"bytes=0-1,3-4", 200, string(content)},
			{"bytes=13-", 416, ""},
			{"bytes=5-2", 416, ""},
			{"chars=0-1", 416, ""},
			{"bytes=x-", 416, ""},
		} {
			st, b, code := e.raw("GET", "/v1/workspaces/w/files//src/main.go", e.admin, nil, "Range", tc.rng)
			if st != tc.status || (st < 400 && string(b) != tc.body) || (st == 416 && code != api.CodeBadRange) {
				t.Errorf("Range %s = %d %q %s, want %d %q", tc.rng, st, b, code, tc.status, tc.body)
			}
		}
		_, err = c.OpenRange(bg, "w", "/src/main.go", 100, 1)
		wantCode(t, "range past end", err, 416, api.CodeBadRange)
	})
	t.Run("stat and list", func(t *testing.T) {
		st, err := c.Stat(bg, "w", "/src")
		if err != nil || st.Type != client.TypeDir {
			t.Fatalf("stat = %+v, %v", st, err)
		}
		for _, n := range []string{"a", "b", "c"} {
			if _, err := c.WriteFile(bg, "w", "/src/"+n, strings.NewReader(n), client.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		var names []string
		after := ""
		for {
			l, err := c.ReadDir(bg, "w", "/src", after, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, de := range l.Entries {
				names = append(names, de.Name)
			}
			if l.Next == "" {
				break
			}
			after = l.Next
		}
		if !slices.Equal(names, []string{"a", "b", "c", "main.go"}) {
			t.Fatalf("list = %v", names)
		}
		_, err = c.Stat(bg, "w", "/nope")
		wantCode(t, "stat missing", err, 404, "ENOENT")
		_, err = c.ReadFile(bg, "w", "/src/a/x")
		wantCode(t, "read through a file", err, 400, "ENOTDIR")
	})
	t.Run("ops", func(t *testing.T) {
		if _, err := c.Mkdir(bg, "w", "/d/e/f", 0, true); err != nil {
			t.Fatal(err)
		}
		_, err := c.Mkdir(bg, "w", "/d", 0, false)
		wantCode(t, "mkdir existing", err, 409, "EEXIST")
		if _, err := c.Copy(bg, "w", "/src", "/d/e/f/src"); err != nil {
			t.Fatal(err)
		}
		if b, err := c.ReadFile(bg, "w", "/d/e/f/src/main.go"); err != nil || !bytes.Equal(b, content) {
			t.Fatalf("copied = %q, %v", b, err)
		}
		_, err = c.Copy(bg, "w", "/src", "/src/inner")
		wantCode(t, "copy into itself", err, 400, "EINVAL")
		_, err = c.Copy(bg, "w", "/src", "/d")
		wantCode(t, "copy onto existing", err, 409, "EEXIST")
		if fi, err := c.Move(bg, "w", "/d/e/f/src/a", "/d/moved", false); err != nil || fi.Path != "/d/moved" {
			t.Fatalf("move = %+v, %v", fi, err)
		}
		_, err = c.Move(bg, "w", "/d/moved", "/src/b", true)
		wantCode(t, "move no-replace", err, 409, "EEXIST")
		if fi, err := c.Chmod(bg, "w", "/d/moved", 0o751); err != nil || fi.Mode != "0751" {
			t.Fatalf("chmod = %+v, %v", fi, err)
		}
		wantCode(t, "rm non-empty", c.Remove(bg, "w", "/d", false), 409, "ENOTEMPTY")
		if err := c.Remove(bg, "w", "/d", true); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "rm missing", c.Remove(bg, "w", "/d", true), 404, "ENOENT")
		if st, _, code := e.raw("POST", "/v1/workspaces/w/files/x?op=explode", e.admin, nil); st != 400 || code != api.CodeInvalid {
			t.Errorf("bad op: %d %s", st, code)
		}
		if st, _, code := e.raw("POST", "/v1/workspaces/w/files/src/a?op=chmod", e.admin, strings.NewReader(`{"mode": "999"}`)); st != 400 || code != api.CodeInvalid {
			t.Errorf("bad mode: %d %s", st, code)
		}
		if st, _, code := e.raw("POST", "/v1/workspaces/w/files/src/a?op=move", e.admin, strings.NewReader(`{"to": 5}`)); st != 400 || code != api.CodeBadJSON {
			t.Errorf("bad body: %d %s", st, code)
		}
		wantCode(t, "rm root", c.Remove(bg, "w", "/", true), 400, api.CodeInvalid)
	})
	t.Run("special files", func(t *testing.T) {
		for _, tc := range []struct {
			path, typ, device string
			mode              fs.FileMode
		}{
			{"/sp/fifo", client.TypeFIFO, "", 0o640},
			{"/sp/sock", client.TypeSocket, "", 0o755},
			{"/sp/null", client.TypeChar, "1:3", 0o666},
			{"/sp/disk", client.TypeBlock, "259:70000", 0o600},
		} {
			if _, err := c.Mkdir(bg, "w", "/sp", 0, true); err != nil {
				t.Fatal(err)
			}
			fi, err := c.Mknod(bg, "w", tc.path, tc.typ, tc.mode, tc.device)
			if err != nil {
				t.Fatalf("mknod %s: %v", tc.path, err)
			}
			if fi.Type != tc.typ || fi.Mode != fmt.Sprintf("%04o", tc.mode) || fi.Device != tc.device || fi.Size != 0 {
				t.Errorf("mknod %s = %+v", tc.path, fi)
			}
			if st, err := c.Stat(bg, "w", tc.path); err != nil || st != fi {
				t.Errorf("stat %s = %+v, %v; want %+v", tc.path, st, err, fi)
			}
			_, err = c.ReadFile(bg, "w", tc.path)
			wantCode(t, "read "+tc.typ, err, 400, "ENXIO")
		}
		_, err := c.Mknod(bg, "w", "/sp/fifo", client.TypeFIFO, 0o644, "")
		wantCode(t, "mknod existing", err, 409, "EEXIST")
		_, err = c.Mknod(bg, "w", "/sp/x", "dir", 0o644, "")
		wantCode(t, "mknod dir", err, 400, api.CodeInvalid)
		_, err = c.Mknod(bg, "w", "/sp/x", client.TypeChar, 0o644, "")
		wantCode(t, "mknod char without device", err, 400, api.CodeInvalid)
		_, err = c.Mknod(bg, "w", "/sp/x", client.TypeFIFO, 0o644, "1:2")
		wantCode(t, "mknod fifo with a device", err, 400, api.CodeInvalid)
		_, err = c.Mknod(bg, "w", "/sp/x", client.TypeChar, 0o644, "1-2")
		wantCode(t, "mknod bad device", err, 400, api.CodeInvalid)
		list, err := c.ReadDir(bg, "w", "/sp", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range list.Entries {
			types = append(types, e.Name+"="+e.Type)
		}
		if got := strings.Join(types, " "); got != "disk=block fifo=fifo null=char sock=socket" {
			t.Errorf("list: %s", got)
		}
		// A copy of the tree copies them as what they are.
		if _, err := c.Copy(bg, "w", "/sp", "/sp2"); err != nil {
			t.Fatal(err)
		}
		if st, err := c.Stat(bg, "w", "/sp2/disk"); err != nil || st.Type != client.TypeBlock || st.Device != "259:70000" || st.Mode != "0600" {
			t.Errorf("copied disk = %+v, %v", st, err)
		}
	})
	t.Run("traversal", func(t *testing.T) {
		for _, p := range []string{
			"/v1/workspaces/w/files/src/%2e%2e/%2e%2e/etc/passwd",
			"/v1/workspaces/w/files/..%2F..%2Fhost.lock",
			"/v1/workspaces/w/files/a%00b",
		} {
			if st, _, code := e.raw("GET", p, e.admin, nil); st != 400 || code != api.CodeBadPath {
				t.Errorf("GET %s = %d %s, want 400 bad_path", p, st, code)
			}
			if st, _, code := e.raw("PUT", p, e.admin, strings.NewReader("x")); st != 400 || code != api.CodeBadPath {
				t.Errorf("PUT %s = %d %s, want 400 bad_path", p, st, code)
			}
		}
		_, err := c.Move(bg, "w", "/src/a", "../../x", false)
		wantCode(t, "move to ..", err, 400, api.CodeBadPath)
		// A literal ../ is cleaned by the router (a redirect), never reaching a handler.
		if st, _, _ := e.raw("GET", "/v1/workspaces/w/files/../../../etc/passwd", e.admin, nil); (st < 300 || st > 308) && st != 404 {
			t.Errorf("raw ../: %d", st)
		}
		if b, err := c.ReadFile(bg, "w", "/src/a"); err != nil || string(b) != "a" {
			t.Fatalf("data changed: %q, %v", b, err)
		}
	})
	t.Run("oversized body", func(t *testing.T) {
		big := bytes.Repeat([]byte("z"), 2<<20)
		_, err := c.WriteFile(bg, "w", "/src/a", bytes.NewReader(big), client.WriteOptions{})
		wantCode(t, "oversized (length known)", err, 413, api.CodeTooLarge)
		// Without a Content-Length the bound applies while streaming.
		_, err = c.WriteFile(bg, "w", "/src/a", io.MultiReader(bytes.NewReader(big)), client.WriteOptions{})
		wantCode(t, "oversized (streamed)", err, 413, api.CodeTooLarge)
		if b, err := c.ReadFile(bg, "w", "/src/a"); err != nil || string(b) != "a" {
			t.Fatalf("file changed by a refused write: %d bytes, %v", len(b), err)
		}
	})
	t.Run("find", func(t *testing.T) {
		for _, p := range []string{"/proj/a.go", "/proj/sub/b.go", "/proj/sub/c.txt", "/proj/sub/deep/d.go", "/proj/e.md"} {
			if _, err := c.WriteFile(bg, "w", p, strings.NewReader("package x\nfunc Hello() {}\n"), client.WriteOptions{Parents: true}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			pattern string
			want    []string
		}{
			{"**/*.go", []string{"/proj/a.go", "/proj/sub/b.go", "/proj/sub/deep/d.go"}},
			{"*.go", []string{"/proj/a.go"}},
			{"sub/*.{go,txt}", []string{"/proj/sub/b.go", "/proj/sub/c.txt"}},
			{"**/?.md", []string{"/proj/e.md"}},
			{"sub/[bc].*", []string{"/proj/sub/b.go", "/proj/sub/c.txt"}},
			{"sub/**", []string{"/proj/sub", "/proj/sub/b.go", "/proj/sub/c.txt", "/proj/sub/deep", "/proj/sub/deep/d.go"}},
		} {
			r, err := c.Find(bg, "w", client.FindOptions{Pattern: tc.pattern, Path: "/proj"})
			var got []string
			for _, m := range r.Matches {
				got = append(got, m.Path)
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("find %q = %v, %v; want %v", tc.pattern, got, err, tc.want)
			}
		}
		r, err := c.Find(bg, "w", client.FindOptions{Pattern: "**", Path: "/proj", Limit: 2})
		if err != nil || len(r.Matches) != 2 || !r.Truncated {
			t.Errorf("find limit = %+v, %v", r, err)
		}
		_, err = c.Find(bg, "w", client.FindOptions{Pattern: "[z-a]", Path: "/proj"})
		wantCode(t, "bad glob", err, 400, api.CodeInvalid)
	})
	t.Run("grep", func(t *testing.T) {
		if _, err := c.WriteFile(bg, "w", "/proj/bin", bytes.NewReader([]byte("Hello\x00binary")), client.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		r, err := c.Grep(bg, "w", client.GrepOptions{Query: "func Hello", Path: "/proj"})
		if err != nil || len(r.Matches) != 5 || r.Skipped != 1 || r.NextPath != "" {
			t.Fatalf("grep = %+v, %v", r, err)
		}
		if r.Matches[0].Line != 2 || r.Matches[0].Text != "func Hello() {}" {
			t.Errorf("match = %+v", r.Matches[0])
		}
		// Paged, one match a page: the same matches in the same order.
		var paged []client.GrepMatch
		o := client.GrepOptions{Query: `^func \w+`, Regex: true, Path: "/proj", Limit: 1}
		for range 10 {
			r, err := c.Grep(bg, "w", o)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, r.Matches...)
			if r.NextPath == "" {
				break
			}
			o.After, o.AfterLine = r.NextPath, r.NextLine
		}
		all, _ := c.Grep(bg, "w", client.GrepOptions{Query: `^func \w+`, Regex: true, Path: "/proj"})
		if !slices.Equal(paged, all.Matches) {
			t.Errorf("paged grep %v != %v", paged, all.Matches)
		}
		r, err = c.Grep(bg, "w", client.GrepOptions{Query: "HELLO", IgnoreCase: true, Path: "/proj", Glob: "sub/**/*.go"})
		if err != nil || len(r.Matches) != 2 {
			t.Errorf("grep glob = %+v, %v", r, err)
		}
		_, err = c.Grep(bg, "w", client.GrepOptions{Query: "(", Regex: true})
		wantCode(t, "bad regex", err, 400, api.CodeInvalid)
	})
}

func TestAPI_PlainHTTP(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	st, b, _ := e.raw("PUT", "/v1/workspaces/w/files/x.txt?mode=0640", e.admin, strings.NewReader("abc"))
	if st != http.StatusCreated || !strings.Contains(string(b), `"mode":"0640"`) {
		t.Fatalf("PUT = %d %s", st, b)
	}
	if st, _, _ := e.raw("PUT", "/v1/workspaces/w/files/x.txt", e.admin, strings.NewReader("abcd"), "X-Desk-Mode", "0600"); st != http.StatusOK {
		t.Fatalf("PUT again = %d", st)
	}
	if st, b, _ := e.raw("GET", "/v1/workspaces/w/files/x.txt", e.admin, nil); st != 200 || string(b) != "abcd" {
		t.Fatalf("GET = %d %q", st, b)
	}
	if st, b, _ := e.raw("GET", "/v1/workspaces/w/files/", e.admin, nil); st != 200 || !strings.Contains(string(b), `"name":"x.txt"`) {
		t.Fatalf("GET root = %d %s", st, b)
	}
	if st, _, code := e.raw("POST", "/v1/workspaces/w/files/dir?op=mkdir", e.admin, nil); st != 201 {
		t.Fatalf("mkdir = %d %s", st, code)
	}
	if st, _, _ := e.raw("DELETE", "/v1/workspaces/w/files/dir", e.admin, nil); st != 204 {
		t.Fatalf("DELETE = %d", st)
	}
	if st, _, code := e.raw("GET", "/v1/workspaces/w/files/x.txt?stat=maybe", e.admin, nil); st != 400 || code != api.CodeInvalid {
		t.Fatalf("bad bool = %d %s", st, code)
	}
	if st, _, code := e.raw("GET", "/v1/workspaces/w/changes?limit=-1", e.admin, nil); st != 400 || code != api.CodeInvalid {
		t.Fatalf("bad limit = %d %s", st, code)
	}
}

// TestAPI_CopyTooLarge: a copy of a tree of more than MaxWalk entries is
// too_large and makes nothing; one of exactly MaxWalk entries (the root
// included) is copied whole, with the modes of the source.
func TestAPI_CopyTooLarge(t *testing.T) {
	e := newEnv(t, envOpts{api: api.Options{MaxWalk: 5}})
	e.mkws("w")
	c := e.c
	for _, p := range []string{"/t/a", "/t/b", "/t/d/c"} {
		if _, err := c.WriteFile(bg, "w", p, strings.NewReader(p), client.WriteOptions{Parents: true, Mode: 0o640}); err != nil {
			t.Fatal(err)
		}
	}
	// /t, a, b, d, c: five entries.
	if _, err := c.Copy(bg, "w", "/t", "/t2"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Stat(bg, "w", "/t2/d/c"); err != nil || st.Mode != "0640" {
		t.Fatalf("copied = %+v, %v", st, err)
	}
	if _, err := c.WriteFile(bg, "w", "/t/e", strings.NewReader("e"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := c.Copy(bg, "w", "/t", "/t3")
	wantCode(t, "copy of six entries", err, 413, api.CodeTooLarge)
	_, err = c.Stat(bg, "w", "/t3")
	wantCode(t, "stat of the refused copy", err, 404, "ENOENT")
}

package api_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/client"
)

// get sends a bodiless request with the admin token and returns the
// response with its body read.
func (e *env) get(method, path string, hdr ...string) (*http.Response, []byte) {
	e.t.Helper()
	resp, b, err := e.send(method, path, e.admin, nil, hdr...)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, b
}

// TestAPI_PathModel: a relative path in a file URL, a move target, a find
// base and an execution's cwd is taken from /workspace, which a new
// workspace has; an absolute one keeps its slash in the URL, doubled or
// escaped.
func TestAPI_PathModel(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	c := e.c
	// A new workspace has /workspace, before anything ran in it.
	if fi, err := c.Stat(bg, "w", "/workspace"); err != nil || fi.Type != client.TypeDir || fi.Mode != "0755" {
		t.Fatalf("a new workspace's /workspace: %+v, %v", fi, err)
	}
	if st, b, _ := e.raw("PUT", "/v1/workspaces/w/files/rel.txt", e.admin, strings.NewReader("rel")); st != http.StatusCreated || !strings.Contains(string(b), `"path":"/workspace/rel.txt"`) {
		t.Fatalf("PUT files/rel.txt = %d %s", st, b)
	}
	for _, p := range []string{"files/rel.txt", "files//workspace/rel.txt", "files/%2Fworkspace/rel.txt", "files///workspace/rel.txt"} {
		if resp, b := e.get("GET", "/v1/workspaces/w/"+p); resp.StatusCode != 200 || string(b) != "rel" {
			t.Errorf("GET %s = %d %q", p, resp.StatusCode, b)
		}
	}
	if b, err := c.ReadFile(bg, "w", "rel.txt"); err != nil || string(b) != "rel" {
		t.Errorf("client ReadFile of a relative path: %q, %v", b, err)
	}
	// An absolute path keeps its slash: /top.txt is outside /workspace.
	if st, b, _ := e.raw("PUT", "/v1/workspaces/w/files//top.txt", e.admin, strings.NewReader("top")); st != http.StatusCreated || !strings.Contains(string(b), `"path":"/top.txt"`) {
		t.Fatalf("PUT files//top.txt = %d %s", st, b)
	}
	if b, err := c.ReadFile(bg, "w", "/top.txt"); err != nil || string(b) != "top" {
		t.Errorf("/top.txt: %q, %v", b, err)
	}
	_, err := c.Stat(bg, "w", "top.txt")
	wantCode(t, "top.txt is /workspace/top.txt", err, 404, "ENOENT")
	// files/ is /workspace; files// the root.
	var l client.DirList
	if resp, b := e.get("GET", "/v1/workspaces/w/files/"); resp.StatusCode != 200 || resp.Header.Get("X-Desk-Type") != client.TypeDir || !strings.Contains(string(b), `"path":"/workspace"`) {
		t.Errorf("GET files/ = %d %s %s", resp.StatusCode, resp.Header.Get("X-Desk-Type"), b)
	}
	if l, err = c.ReadDir(bg, "w", "/", "", 0); err != nil || len(l.Entries) != 3 || l.Entries[0].Name != "tmp" || l.Entries[1].Name != "top.txt" || l.Entries[2].Name != "workspace" {
		t.Errorf("the root: %+v, %v", l, err)
	}
	// A move target, a find base and a cwd are relative to /workspace too.
	if fi, err := c.Move(bg, "w", "rel.txt", "moved.txt", false); err != nil || fi.Path != "/workspace/moved.txt" {
		t.Errorf("move to a relative target: %+v, %v", fi, err)
	}
	if _, err := c.Mkdir(bg, "w", "sub/deeper", 0, true); err != nil {
		t.Fatal(err)
	}
	r, err := c.Find(bg, "w", client.FindOptions{Pattern: "**"})
	var found []string
	for _, m := range r.Matches {
		found = append(found, m.Path)
	}
	if err != nil || !slices.Equal(found, []string{"/workspace/moved.txt", "/workspace/sub", "/workspace/sub/deeper"}) {
		t.Errorf("find without a path (/workspace): %v, %v", found, err)
	}
	if r, err := c.Find(bg, "w", client.FindOptions{Pattern: "*", Path: "sub"}); err != nil || len(r.Matches) != 1 || r.Matches[0].Path != "/workspace/sub/deeper" {
		t.Errorf("find in sub: %+v, %v", r, err)
	}
	if g, err := c.Grep(bg, "w", client.GrepOptions{Query: "top"}); err != nil || len(g.Matches) != 0 {
		t.Errorf("grep without a path searched outside /workspace: %+v, %v", g, err)
	}
	if x, err := c.Exec(bg, "w", client.ExecRequest{Source: "echo", Cwd: "sub/deeper"}); err != nil || x.Cwd != "/workspace/sub/deeper" {
		t.Errorf("exec with a relative cwd: %+v, %v", x, err)
	}
	// Trees too: tree/unpacked is /workspace/unpacked, tree//abs is /abs.
	if _, err := c.PutTree(bg, "w", "unpacked", bytes.NewReader(tarOf(t, reg("a", "1"))), client.TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	if st, b, _ := e.raw("PUT", "/v1/workspaces/w/tree//abs", e.admin, bytes.NewReader(tarOf(t, reg("b", "2")))); st != http.StatusCreated {
		t.Fatalf("PUT tree//abs = %d %s", st, b)
	}
	for p, want := range map[string]string{"/workspace/unpacked/a": "1", "/abs/b": "2"} {
		if b, err := c.ReadFile(bg, "w", p); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", p, b, err)
		}
	}
}

// TestAPI_ContentType: a file's GET carries its media type, by extension
// and else by its content, with ranges and HEAD answered as before.
func TestAPI_ContentType(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.mkws("w")
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 600)...)
	files := []struct {
		name, data, ctype string
	}{
		{"data.json", `{"a": 1}`, "application/json"},
		{"notes.md", "# hi\n", "text/markdown; charset=utf-8"},
		{"page.html", "<p>x</p>", "text/html; charset=utf-8"},
		{"picture", string(png), "image/png"},
		{"report.pdf", "not really a pdf", "application/pdf"},
		{"README", "plain words\n", "text/plain; charset=utf-8"},
		{"blob", "\x00\x01\x02\x03binary", "application/octet-stream"},
		{"empty", "", "text/plain; charset=utf-8"},
	}
	for _, f := range files {
		if _, err := e.c.WriteFile(bg, "w", f.name, strings.NewReader(f.data), client.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		resp, b := e.get("GET", "/v1/workspaces/w/files/"+f.name)
		h := resp.Header
		if resp.StatusCode != 200 || string(b) != f.data || h.Get("Content-Type") != f.ctype || h.Get("X-Desk-Type") != client.TypeFile ||
			h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Security-Policy") != "sandbox" {
			t.Errorf("GET %s = %d %q, headers %v; want type %q", f.name, resp.StatusCode, b, h, f.ctype)
		}
		if resp.ContentLength != int64(len(f.data)) {
			t.Errorf("GET %s: Content-Length %d, want %d", f.name, resp.ContentLength, len(f.data))
		}
		// HEAD: the same headers, no body.
		resp, b = e.get("HEAD", "/v1/workspaces/w/files/"+f.name)
		if resp.StatusCode != 200 || len(b) != 0 || resp.Header.Get("Content-Type") != f.ctype || resp.ContentLength != int64(len(f.data)) {
			t.Errorf("HEAD %s = %d, %d bytes, type %q, length %d", f.name, resp.StatusCode, len(b), resp.Header.Get("Content-Type"), resp.ContentLength)
		}
	}
	// A range of a sniffed file: the type of the whole file, the range's
	// bytes and length (sniffing read the start; the range starts past it).
	resp, b := e.get("GET", "/v1/workspaces/w/files/picture", "Range", "bytes=600-")
	if resp.StatusCode != 206 || !bytes.Equal(b, png[600:]) || resp.ContentLength != int64(len(png)-600) || resp.Header.Get("Content-Type") != "image/png" ||
		resp.Header.Get("Content-Range") != "bytes 600-615/616" {
		t.Errorf("range of picture = %d, %d bytes, %v", resp.StatusCode, len(b), resp.Header)
	}
	resp, b = e.get("GET", "/v1/workspaces/w/files/README", "Range", "bytes=6-")
	if resp.StatusCode != 206 || string(b) != "words\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("range of README = %d %q %v", resp.StatusCode, b, resp.Header)
	}
	// The client still tells a file from a directory, whatever the type.
	if b, err := e.c.ReadFile(bg, "w", "data.json"); err != nil || string(b) != `{"a": 1}` {
		t.Errorf("client ReadFile of a JSON file: %q, %v", b, err)
	}
	_, err := e.c.ReadFile(bg, "w", "")
	wantCode(t, "ReadFile of /workspace", err, 400, "EISDIR")
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/api"
	"github.com/desk-dev/desk/internal/share"
	"github.com/desk-dev/desk/internal/testenv"
)

func shareEnv(t *testing.T, so share.Options) (*env, *testenv.Clock) {
	t.Helper()
	clk := testenv.NewClock(time.Now())
	so.Now = clk.Now
	e := newEnv(t, envOpts{shares: &so})
	e.mkws("demo")
	return e, clk
}

// curl runs curl (the oracle of range semantics) on u and returns the
// status and the body.
func curl(t *testing.T, u string, args ...string) (int, []byte) {
	t.Helper()
	b := testenv.Tool(t, "", nil, "curl", append(append([]string{"-sS", "-o", "-", "-w", "\n%{http_code}"}, args...), u)...)
	i := bytes.LastIndexByte(b, '\n')
	var code int
	fmt.Sscan(string(b[i+1:]), &code)
	return code, b[:i]
}

func TestShares_Link(t *testing.T) {
	e, clk := shareEnv(t, share.Options{})
	tokID, tok := e.mint("demo", nil, "read", "write")
	_ = tokID
	c := e.client(tok)
	rng := rand.New(rand.NewPCG(1, 2))
	content := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for range 100_000 {
		content = append(content, byte(rng.IntN(256)))
	}
	if _, err := c.WriteFile(bg, "demo", "/workspace/out/pic.png", bytes.NewReader(content), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	sh, err := c.CreateShare(bg, "demo", client.ShareRequest{Path: "out/pic.png"}) // relative to /workspace
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sh.URL, e.url+"/s/") || sh.Path != "/workspace/out/pic.png" || sh.Size != int64(len(content)) ||
		sh.State != "active" || sh.Store != "local" || sh.ContentType != "image/png" || sh.Disposition != "inline" {
		t.Fatalf("share %+v", sh)
	}
	if got := sh.Expires.Sub(sh.Created); got != time.Hour {
		t.Errorf("default life %v, want 1h", got)
	}

	// No token needed; the right type, an ETag, the name.
	res, body := testenv.Fetch(t, "GET", sh.URL)
	if res.StatusCode != 200 || !bytes.Equal(body, content) {
		t.Fatalf("GET: %s, %d bytes", res.Status, len(body))
	}
	etag := res.Header.Get("ETag")
	for k, want := range map[string]string{
		"Content-Type": "image/png", "Content-Disposition": "inline; filename=pic.png", "Accept-Ranges": "bytes",
		"ETag": `"` + sh.SHA256 + `"`, "X-Content-Type-Options": "nosniff",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if res, body := testenv.Fetch(t, "HEAD", sh.URL); res.StatusCode != 200 || len(body) != 0 || res.ContentLength != int64(len(content)) {
		t.Errorf("HEAD: %s, %d bytes, length %d", res.Status, len(body), res.ContentLength)
	}

	// Ranges, as curl asks for them.
	n := len(content)
	for _, tc := range []struct {
		r    string
		want []byte
	}{
		{"0-99", content[:100]},
		{"1000-", content[1000:]},
		{"-500", content[n-500:]},
		{"99990-200000", content[99990:]},
		{fmt.Sprint(n-1) + "-" + fmt.Sprint(n-1), content[n-1:]},
	} {
		code, got := curl(t, sh.URL, "-r", tc.r)
		if code != http.StatusPartialContent || !bytes.Equal(got, tc.want) {
			t.Errorf("curl -r %s: %d, %d bytes, want 206 and %d bytes", tc.r, code, len(got), len(tc.want))
		}
	}
	if code, _ := curl(t, sh.URL, "-r", fmt.Sprint(n)+"-"); code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("a range past the end: %d, want 416", code)
	}
	// Several ranges: multipart/byteranges, each part the right bytes.
	res, body = testenv.Fetch(t, "GET", sh.URL, "Range", "bytes=0-9,50-59,-5")
	mt, params, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if res.StatusCode != http.StatusPartialContent || mt != "multipart/byteranges" {
		t.Fatalf("several ranges: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for i, want := range [][]byte{content[0:10], content[50:60], content[n-5:]} {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, _ := io.ReadAll(p)
		if !bytes.Equal(got, want) || p.Header.Get("Content-Type") != "image/png" {
			t.Errorf("part %d: %d bytes, type %q", i, len(got), p.Header.Get("Content-Type"))
		}
	}
	// Conditional requests on the ETag.
	if res, body := testenv.Fetch(t, "GET", sh.URL, "If-None-Match", etag); res.StatusCode != http.StatusNotModified || len(body) != 0 {
		t.Errorf("If-None-Match: %s, %d bytes", res.Status, len(body))
	}
	if res, body := testenv.Fetch(t, "GET", sh.URL, "Range", "bytes=0-3", "If-Range", etag); res.StatusCode != http.StatusPartialContent || len(body) != 4 {
		t.Errorf("If-Range with the ETag: %s, %d bytes", res.Status, len(body))
	}
	if res, body := testenv.Fetch(t, "GET", sh.URL, "Range", "bytes=0-3", "If-Range", `"other"`); res.StatusCode != 200 || len(body) != n {
		t.Errorf("If-Range with another ETag: %s, %d bytes", res.Status, len(body))
	}

	// Frozen: an edit of the file does not change the link.
	if _, err := c.WriteFile(bg, "demo", "/workspace/out/pic.png", strings.NewReader("new"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, body := testenv.Fetch(t, "GET", sh.URL); res.StatusCode != 200 || !bytes.Equal(body, content) || res.Header.Get("ETag") != etag {
		t.Fatalf("after an edit: %s, %d bytes", res.Status, len(body))
	}

	// Listing: no URL; a read token may list, another workspace's may not.
	_, ro := e.mint("demo", nil, "read")
	l, err := e.client(ro).ListShares(bg, "demo", "", 0)
	if err != nil || len(l.Shares) != 1 || l.Shares[0].ID != sh.ID || l.Shares[0].URL != "" || l.Shares[0].State != "active" {
		t.Fatalf("list: %+v %v", l, err)
	}
	_, err = e.client(ro).CreateShare(bg, "demo", client.ShareRequest{Path: "/workspace/out/pic.png"})
	wantCode(t, "create with a read token", err, 403, "forbidden")
	e.mkws("other")
	_, otherTok := e.mint("other", nil, "read", "write")
	_, err = e.client(otherTok).ListShares(bg, "demo", "", 0)
	wantCode(t, "list with another workspace's token", err, 403, "forbidden")
	wantCode(t, "revoke in another workspace", e.client(otherTok).RevokeShare(bg, "other", sh.ID), 404, "not_found")

	// Revoked: 410 at once, still listed as revoked.
	if err := c.RevokeShare(bg, "demo", sh.ID); err != nil {
		t.Fatal(err)
	}
	if code, _, ec := e.raw("GET", strings.TrimPrefix(sh.URL, e.url), "", nil); code != http.StatusGone || ec != "gone" {
		t.Errorf("revoked link: %d %s, want 410 gone", code, ec)
	}
	if l, _ := c.ListShares(bg, "demo", "", 0); len(l.Shares) != 1 || l.Shares[0].State != "revoked" || l.Shares[0].RevokedAt.IsZero() {
		t.Errorf("list after revoke: %+v", l)
	}

	// Expiry, on the store's clock.
	sh2, err := c.CreateShare(bg, "demo", client.ShareRequest{Path: "/workspace/out/pic.png", ExpiresIn: 60, Disposition: "attachment"})
	if err != nil {
		t.Fatal(err)
	}
	res, body = testenv.Fetch(t, "GET", sh2.URL)
	if res.StatusCode != 200 || string(body) != "new" || res.Header.Get("Content-Disposition") != "attachment; filename=pic.png" {
		t.Fatalf("second share: %s %q %q", res.Status, body, res.Header.Get("Content-Disposition"))
	}
	clk.Add(59 * time.Second)
	if res, _ := testenv.Fetch(t, "GET", sh2.URL); res.StatusCode != 200 {
		t.Errorf("a second before expiry: %s", res.Status)
	}
	clk.Add(time.Second)
	if code, _, ec := e.raw("GET", strings.TrimPrefix(sh2.URL, e.url), "", nil); code != http.StatusGone || ec != "gone" {
		t.Errorf("expired link: %d %s, want 410 gone", code, ec)
	}
	if code, _, ec := e.raw("GET", "/s/"+strings.Repeat("A", 32), "", nil); code != 404 || ec != "not_found" {
		t.Errorf("unknown token: %d %s", code, ec)
	}
	if code, _, ec := e.raw("GET", "/s/nonsense", "", nil); code != 404 || ec != "not_found" {
		t.Errorf("malformed token: %d %s", code, ec)
	}

	// Deleting the workspace revokes its shares.
	sh3, err := c.CreateShare(bg, "demo", client.ShareRequest{Path: "/workspace/out/pic.png"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.c.DeleteWorkspace(bg, "demo"); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := e.raw("GET", strings.TrimPrefix(sh3.URL, e.url), "", nil); code != http.StatusNotFound {
		t.Errorf("a deleted workspace's link: %d, want 404", code)
	}
}

// TestShares_LogRedacted: the request log never holds a link's token.
func TestShares_LogRedacted(t *testing.T) {
	var logs testenv.SyncBuffer
	so := share.Options{}
	e := newEnv(t, envOpts{shares: &so, api: api.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}})
	e.mkws("demo")
	if _, err := e.c.WriteFile(bg, "demo", "/workspace/a.txt", strings.NewReader("a"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	sh, err := e.c.CreateShare(bg, "demo", client.ShareRequest{Path: "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := testenv.Fetch(t, "GET", sh.URL); res.StatusCode != 200 {
		t.Fatal(res.Status)
	}
	tok := sh.URL[strings.LastIndexByte(sh.URL, '/')+1:]
	if got := logs.String(); !strings.Contains(got, "route=getShare") || strings.Contains(got, tok) {
		t.Fatalf("log (token %s):\n%s", tok, got)
	}
}

func TestShares_BadRequests(t *testing.T) {
	e, _ := shareEnv(t, share.Options{MaxFileBytes: 1000})
	if _, err := e.c.WriteFile(bg, "demo", "/workspace/a.txt", strings.NewReader("a"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.c.WriteFile(bg, "demo", "/workspace/big", bytes.NewReader(make([]byte, 1001)), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req          client.ShareRequest
		status       int
		code         string
		wantInStatus string
	}{
		{client.ShareRequest{Path: "a.txt", ExpiresIn: 604801}, 400, "invalid", "7 days"},
		{client.ShareRequest{Path: "a.txt", ExpiresIn: -1}, 400, "invalid", ""},
		{client.ShareRequest{Path: "a.txt", Disposition: "download"}, 400, "invalid", "inline or attachment"},
		{client.ShareRequest{Path: ""}, 400, "invalid", ""},
		{client.ShareRequest{Path: "../etc/passwd"}, 400, "bad_path", ""},
		{client.ShareRequest{Path: "/workspace"}, 400, "EISDIR", ""},
		{client.ShareRequest{Path: "/workspace/missing"}, 404, "ENOENT", ""},
		{client.ShareRequest{Path: "big"}, 413, "too_large", "1000"},
	} {
		_, err := e.c.CreateShare(bg, "demo", tc.req)
		wantCode(t, fmt.Sprintf("%+v", tc.req), err, tc.status, tc.code)
		if tc.wantInStatus != "" && (err == nil || !strings.Contains(err.Error(), tc.wantInStatus)) {
			t.Errorf("%+v: %v, want it to say %q", tc.req, err, tc.wantInStatus)
		}
	}
	// Without a share store the routes say so.
	plain := newEnv(t, envOpts{})
	plain.mkws("demo")
	_, err := plain.c.CreateShare(bg, "demo", client.ShareRequest{Path: "/x"})
	wantCode(t, "no share store", err, 501, "unavailable")
}

// TestShares_PublishTool: the publish tool over the HTTP tool route returns
// a link that works without a token.
func TestShares_PublishTool(t *testing.T) {
	e, _ := shareEnv(t, share.Options{MaxFileBytes: 4096})
	_, tok := e.mint("demo", nil, "read", "write")
	c := e.client(tok)
	if _, err := c.WriteFile(bg, "demo", "/workspace/report.md", strings.NewReader("# Report\n"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	tl, err := c.Tools(bg, "demo")
	if err != nil {
		t.Fatal(err)
	}
	var desc string
	for _, x := range tl {
		if x.Name == "publish" {
			desc = x.Description
		}
	}
	if !strings.Contains(desc, "Files up to 4096 bytes") {
		t.Fatalf("publish's description does not state the store's limit: %q", desc)
	}
	res, err := c.CallTool(bg, "demo", "publish", json.RawMessage(`{"path": "report.md", "expires_in": 600}`), nil)
	if err != nil || res.IsError {
		t.Fatalf("publish: %+v %v", res, err)
	}
	var out struct {
		URL         string    `json:"url"`
		ContentType string    `json:"content_type"`
		ExpiresAt   time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(res.Structured, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content[0].Text, out.URL) || out.ContentType != "text/markdown; charset=utf-8" {
		t.Fatalf("publish result %+v", res)
	}
	r, body := testenv.Fetch(t, "GET", out.URL)
	if r.StatusCode != 200 || string(body) != "# Report\n" || r.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
		t.Fatalf("GET %s: %s %q", out.URL, r.Status, body)
	}
	// Failures are tool results for the model.
	for in, code := range map[string]string{
		`{"path": "missing.md"}`:                   "not_found",
		`{"path": "report.md", "expires_in": 1e7}`: "invalid",
		`{"path": "/workspace"}`:                   "is_directory",
	} {
		res, err := c.CallTool(bg, "demo", "publish", json.RawMessage(in), nil)
		if err != nil || !res.IsError || res.Error.Code != code {
			t.Errorf("publish %s: %+v %v, want %s", in, res, err, code)
		}
	}
	// A read-only token is not offered publish, and may not call it.
	_, ro := e.mint("demo", nil, "read")
	tl, _ = e.client(ro).Tools(bg, "demo")
	for _, x := range tl {
		if x.Name == "publish" {
			t.Error("a read-only token is offered publish")
		}
	}
	_, err = e.client(ro).CallTool(context.Background(), "demo", "publish", json.RawMessage(`{"path": "report.md"}`), nil)
	wantCode(t, "publish with a read token", err, 403, "forbidden")
}

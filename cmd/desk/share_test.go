package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/share/s3remote/s3test"
	"github.com/desk-dev/desk/internal/testenv"
)

// getLink GETs a share link without any credentials.
func getLink(t *testing.T, u string) (*http.Response, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// publishOverMCP calls the publish tool through desk serve's MCP endpoint
// with a workspace token and returns the URL.
func publishOverMCP(t *testing.T, url, ws, token string, args map[string]any) string {
	t.Helper()
	hc := &http.Client{Transport: testenv.Headers(nil, "Authorization", "Bearer "+token)}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(bg,
		&sdk.StreamableClientTransport{Endpoint: url + "/mcp/" + ws, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(bg, &sdk.CallToolParams{Name: "publish", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("publish over MCP: %+v %v", res, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.URL == "" {
		t.Fatalf("publish over MCP: structured %s: %v", b, err)
	}
	return out.URL
}

// TestShare_DeskServe shares files of a real desk serve with a worker
// per workspace: the link is served by the front (no token, and no worker
// woken for it), frozen, listed, revoked; the publish tool, which runs in
// the worker, returns working links over the HTTP tool route and MCP.
func TestShare_DeskServe(t *testing.T) {
	s := startTenantServer(t, "--idle", "1s")
	pid := s.cmd.Process.Pid
	admin, err := client.New(s.url, s.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateWorkspace(bg, "demo"); err != nil {
		t.Fatal(err)
	}
	page := "<!doctype html><h1>report</h1>\n"
	if _, err := admin.WriteFile(bg, "demo", "/workspace/out/report.html", strings.NewReader(page), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}

	// desk share WS PATH prints the link alone.
	out := mustDeskAt(t, s, "share", "demo", "out/report.html", "--expires", "2h")
	link := strings.TrimSpace(out)
	if !strings.HasPrefix(link, s.url+"/s/") || strings.Contains(link, "\n") {
		t.Fatalf("desk share printed %q", out)
	}
	res, body := getLink(t, link)
	if res.StatusCode != 200 || body != page || res.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("GET link: %s %q %v", res.Status, body, res.Header)
	}
	// Frozen at share time.
	if _, err := admin.WriteFile(bg, "demo", "/workspace/out/report.html", strings.NewReader("edited"), client.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, body := getLink(t, link); body != page {
		t.Fatalf("after an edit the link serves %q", body)
	}

	// The front serves links without the workspace's worker.
	pollUntil(t, time.Minute, "the worker of demo to hibernate", func() bool { return findWorker(pid, "demo") == 0 })
	if res, body := getLink(t, link); res.StatusCode != 200 || body != page {
		t.Fatalf("GET with the worker gone: %s %q", res.Status, body)
	}
	if w := findWorker(pid, "demo"); w != 0 {
		t.Fatalf("GET of a link woke the worker (pid %d)", w)
	}

	// Listing and revoking go through the front too.
	ls := mustDeskAt(t, s, "share", "ls", "demo")
	lines := strings.Split(strings.TrimSpace(ls), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "/workspace/out/report.html") || !strings.HasSuffix(lines[1], "active") {
		t.Fatalf("share ls:\n%s", ls)
	}
	id := strings.Fields(lines[1])[0]
	if got := mustDeskAt(t, s, "share", "rm", "demo", id); got != "revoked share "+id+"\n" {
		t.Fatalf("share rm: %q", got)
	}
	if res, _ := getLink(t, link); res.StatusCode != http.StatusGone {
		t.Fatalf("revoked link: %s, want 410", res.Status)
	}
	if w := findWorker(pid, "demo"); w != 0 {
		t.Fatalf("list and revoke woke the worker (pid %d)", w)
	}

	// The publish tool runs in the worker; its links are the front's.
	m, err := admin.MintToken(bg, client.TokenRequest{Workspace: "demo", Scopes: []string{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := client.New(s.url, m.Secret, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := agent.CallTool(bg, "demo", "publish", json.RawMessage(`{"path": "out/report.html", "disposition": "attachment"}`), nil)
	if err != nil || tr.IsError {
		t.Fatalf("publish: %+v %v", tr, err)
	}
	var po struct {
		URL string `json:"url"`
	}
	json.Unmarshal(tr.Structured, &po)
	res, body = getLink(t, po.URL)
	if res.StatusCode != 200 || body != "edited" || res.Header.Get("Content-Disposition") != "attachment; filename=report.html" {
		t.Fatalf("published link: %s %q %q", res.Status, body, res.Header.Get("Content-Disposition"))
	}
	mcpLink := publishOverMCP(t, s.url, "demo", m.Secret, map[string]any{"path": "/workspace/out/report.html", "expires_in": 60})
	if res, body := getLink(t, mcpLink); res.StatusCode != 200 || body != "edited" {
		t.Fatalf("link published over MCP: %s %q", res.Status, body)
	}

	// Deleting the workspace ends its links.
	if err := admin.DeleteWorkspace(bg, "demo"); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{po.URL, mcpLink} {
		if res, _ := getLink(t, u); res.StatusCode != http.StatusNotFound {
			t.Errorf("a deleted workspace's link: %s, want 404", res.Status)
		}
	}

	// Bad input.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"share", "demo", "x", "--expires", "8d"}, "over the limit of 7d"},
		{[]string{"share", "demo", "x", "--expires", "soon"}, "--expires"},
		{[]string{"share", "demo", "x", "--inline", "--attachment"}, "exclude each other"},
		{[]string{"share", "demo"}, "missing argument"},
	} {
		t.Setenv(envURL, s.url)
		t.Setenv(envToken, s.token)
		wantFail(t, 2, tc.msg, tc.args...)
	}
}

// TestShare_DeskServeS3 runs desk serve with --store on a versitygw: the
// links desk share and the worker's publish tool print are presigned S3
// URLs that a plain GET fetches; revoking deletes the object.
func TestShare_DeskServeS3(t *testing.T) {
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	gw := s3test.Start(t)
	gw.Bucket(t, "desk")
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(s3test.Secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTenantServer(t, "--store", "s3://desk/shares", "--store-endpoint", gw.URL, "--store-region", s3test.Region,
		"--store-access-key", s3test.Access, "--store-secret-key-file", secret)
	admin, err := client.New(s.url, s.token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateWorkspace(bg, "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.WriteFile(bg, "demo", "/workspace/data.csv", strings.NewReader("a,b\n1,2\n"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	link := strings.TrimSpace(mustDeskAt(t, s, "share", "demo", "data.csv", "--attachment"))
	if !strings.HasPrefix(link, gw.URL+"/desk/shares/demo/") || !strings.Contains(link, "X-Amz-Signature=") {
		t.Fatalf("not a presigned URL of the bucket: %q", link)
	}
	res, body := getLink(t, link)
	if res.StatusCode != 200 || body != "a,b\n1,2\n" || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		res.Header.Get("Content-Disposition") != "attachment; filename=data.csv" {
		t.Fatalf("GET: %s %q %v", res.Status, body, res.Header)
	}
	m, err := admin.MintToken(bg, client.TokenRequest{Workspace: "demo", Scopes: []string{"read", "write"}})
	if err != nil {
		t.Fatal(err)
	}
	pub := publishOverMCP(t, s.url, "demo", m.Secret, map[string]any{"path": "data.csv"})
	if res, body := getLink(t, pub); res.StatusCode != 200 || body != "a,b\n1,2\n" {
		t.Fatalf("published over MCP: %s %q", res.Status, body)
	}
	l, err := admin.ListShares(bg, "demo", "", 0)
	if err != nil || len(l.Shares) != 2 || l.Shares[0].Store != "s3" {
		t.Fatalf("list: %+v %v", l, err)
	}
	mustDeskAt(t, s, "share", "rm", "demo", l.Shares[0].ID)
	if res, _ := getLink(t, link); res.StatusCode != http.StatusNotFound {
		t.Errorf("revoked S3 link: %s, want 404", res.Status)
	}
	if res, _ := getLink(t, pub); res.StatusCode != 200 {
		t.Errorf("the other link after a revoke: %s", res.Status)
	}
}

// TestShare_InProcess: with --workers=false the MCP sessions' tool sets
// (in the server's process) offer publish with the same store.
func TestShare_InProcess(t *testing.T) {
	const token = "share-inprocess-admin-token-0123"
	p := startDeskProcess(t, filepath.Join(t.TempDir(), "data"), token, "--workers=false", "--sandbox", "off")
	t.Cleanup(p.stop)
	admin, err := client.New(p.url, token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateWorkspace(bg, "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.WriteFile(bg, "demo", "/workspace/a.txt", strings.NewReader("in process\n"), client.WriteOptions{Parents: true}); err != nil {
		t.Fatal(err)
	}
	link := publishOverMCP(t, p.url, "demo", token, map[string]any{"path": "a.txt"})
	if res, body := getLink(t, link); res.StatusCode != 200 || body != "in process\n" || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET %s: %s %q", link, res.Status, body)
	}
}

// BenchmarkShareLink measures a share link's GET (served by desk serve's
// front from the share store) against a GET of the same 64 KiB file
// through the API (forwarded to the workspace's worker), on one real
// server in the same run: ns/op each, and link/file as a ratio.
func BenchmarkShareLink(b *testing.B) {
	testenv.NeedRoot(b)
	const token = "bench-share-admin-token-0123456789"
	p := startDeskProcess(b, filepath.Join(b.TempDir(), "data"), token, "--sandbox", "off")
	admin, err := client.New(p.url, token, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := admin.CreateWorkspace(bg, "bench"); err != nil {
		b.Fatal(err)
	}
	content := strings.Repeat("0123456789abcdef", 4096)
	if _, err := admin.WriteFile(bg, "bench", "/workspace/f.bin", strings.NewReader(content), client.WriteOptions{Parents: true}); err != nil {
		b.Fatal(err)
	}
	sh, err := admin.CreateShare(bg, "bench", client.ShareRequest{Path: "f.bin"})
	if err != nil {
		b.Fatal(err)
	}
	get := func(b *testing.B, u string, auth bool) {
		req, _ := http.NewRequest("GET", u, nil)
		if auth {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n != int64(len(content)) {
			b.Fatalf("GET %s: %d, %d bytes", u, res.StatusCode, n)
		}
	}
	var file float64
	b.Run("file-via-worker", func(b *testing.B) {
		get(b, p.url+"/v1/workspaces/bench/files/workspace/f.bin", true)
		for b.Loop() {
			get(b, p.url+"/v1/workspaces/bench/files/workspace/f.bin", true)
		}
		file = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("link-via-front", func(b *testing.B) {
		get(b, sh.URL, false)
		for b.Loop() {
			get(b, sh.URL, false)
		}
		if file > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/file, "link/file")
		}
	})
}

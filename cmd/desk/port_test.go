package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/desk-dev/desk/internal/testenv"
)

// TestServe_Ports: through desk serve with workers (the front forwards the
// preview and port-forward requests to the workspace's worker), a python
// http.server and a WebSocket echo service in the sandbox are listed by desk
// ps and desk port ls, reached through a link of desk port share without a
// token (and refused without one), and through desk port-forward.
func TestServe_Ports(t *testing.T) {
	base, _, _ := serveSandboxDemo(t)
	echo, err := os.ReadFile("../../internal/sandbox/testdata/ws_echo.py")
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "ws_echo.py"), echo, 0o644)
	os.WriteFile(filepath.Join(src, "index.html"), []byte("<p>from the sandbox</p>\n"), 0o644)
	mustDesk(t, nil, "cp", filepath.Join(src, "ws_echo.py"), "demo:/workspace/")
	mustDesk(t, nil, "cp", filepath.Join(src, "index.html"), "demo:/workspace/")
	mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--service", "--", "exec python3 -u -m http.server 8000 --bind 127.0.0.1")
	mustDesk(t, nil, "exec", "demo", "--backend", "sandbox", "--service", "--", "exec python3 -u ws_echo.py 9000")
	// Both listen once they have printed so: desk attach follows a service's
	// output until it ends, so read it only as far as needed.
	for _, id := range strings.Fields(mustDesk(t, nil, "ps", "-q", "demo")) {
		waitAttach(t, id)
	}

	if got := mustDesk(t, nil, "ps", "demo"); !regexp.MustCompile(`(?m) 8000 +exec python3 -u -m http.server`).MatchString(got) ||
		!regexp.MustCompile(`(?m) 9000 +exec python3 -u ws_echo.py`).MatchString(got) {
		t.Errorf("desk ps:\n%s", got)
	}
	if got := mustDesk(t, nil, "port", "ls", "demo"); !regexp.MustCompile(`(?m)^8000 +127\.0\.0\.1 +\d+ +python3 +\S+ +/v1/workspaces/demo/ports/8000/$`).MatchString(got) {
		t.Errorf("desk port ls:\n%s", got)
	}

	// A link: no token needed; without one the preview is refused.
	link := strings.TrimSpace(mustDesk(t, nil, "port", "share", "demo", "8000", "--expires", "10m"))
	if !strings.HasPrefix(link, base+"/v1/workspaces/demo/ports/8000/?desk_link=") {
		t.Fatalf("link %q", link)
	}
	if code, body := httpGet(t, link); code != 200 || body != "<p>from the sandbox</p>\n" {
		t.Errorf("GET the link: %d %q", code, body)
	}
	if code, _ := httpGet(t, base+"/v1/workspaces/demo/ports/8000/index.html"); code != 401 {
		t.Errorf("GET without a token: %d", code)
	}
	// Revoked by its id (desk port share prints it, desk port links lists
	// it), the link is refused; the record is the data directory's.
	out, errs, code := desk(t, nil, "port", "share", "demo", "8000")
	m := regexp.MustCompile(`link ([0-9a-f]{16}) to port 8000`).FindStringSubmatch(errs)
	if code != 0 || m == nil {
		t.Fatalf("port share: %d %q %q", code, out, errs)
	}
	if got := mustDesk(t, nil, "port", "links", "demo"); !regexp.MustCompile(`(?m)^`+m[1]+` +8000 .* -$`).MatchString(got) || strings.Contains(got, "desk_link") {
		t.Errorf("desk port links:\n%s", got)
	}
	mustDesk(t, nil, "port", "unshare", "demo", m[1])
	if code, _ := httpGet(t, strings.TrimSpace(out)); code != 410 {
		t.Errorf("GET a revoked link: %d", code)
	}
	if code, _ := httpGet(t, link); code != 200 {
		t.Errorf("GET the other link after a revocation: %d", code)
	}
	if _, errs, code := desk(t, nil, "port", "unshare", "demo", m[1]+"0"); code == 0 || !strings.Contains(errs, "no unexpired port link") {
		t.Errorf("unshare an unknown id: %d %q", code, errs)
	}
	if _, errs, code := desk(t, nil, "port", "share", "demo", "8000", "--expires", "8d"); code != exitUsage || !strings.Contains(errs, "over the limit") {
		t.Errorf("port share --expires 8d: exit %d, %q", code, errs)
	}

	// desk port-forward: a local port to the sandbox's 8000, then 9000.
	for _, port := range []string{"8000", "9000"} {
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan int, 1)
		var errb testenv.SyncBuffer
		go func() {
			done <- runPortForward(ctx, []string{"demo", port, "0"}, streams{in: strings.NewReader(""), out: pw, err: &errb})
			pw.Close()
		}()
		line, err := bufio.NewReader(pr).ReadString('\n')
		go io.Copy(io.Discard, pr)
		m := regexp.MustCompile(`^Forwarding from (127\.0\.0\.1:\d+) -> ` + port + `\n$`).FindStringSubmatch(line)
		if err != nil || m == nil {
			cancel()
			t.Fatalf("port-forward said %q, %v; stderr %s", line, err, errb.String())
		}
		if port == "8000" {
			if code, body := httpGet(t, "http://"+m[1]+"/index.html"); code != 200 || body != "<p>from the sandbox</p>\n" {
				t.Errorf("GET through port-forward: %d %q", code, body)
			}
		} else {
			wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
			wsc, _, err := websocket.Dial(wctx, "ws://"+m[1]+"/echo", nil)
			if err != nil {
				t.Fatalf("websocket through port-forward: %v", err)
			}
			wsc.Write(wctx, websocket.MessageText, []byte("hi through port-forward"))
			if _, got, err := wsc.Read(wctx); err != nil || string(got) != "hi through port-forward" {
				t.Errorf("echo through port-forward: %q %v", got, err)
			}
			wsc.Close(websocket.StatusNormalClosure, "")
			wcancel()
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("port-forward %s: exit %d, stderr %s", port, code, errb.String())
		}
	}

	// A WebSocket echo through the preview URL and the front, with a link.
	elink := strings.TrimSpace(mustDesk(t, nil, "port", "share", "demo", "9000"))
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	wsc, _, err := websocket.Dial(wctx, "ws"+strings.TrimPrefix(strings.Replace(elink, "/ports/9000/?", "/ports/9000/echo?", 1), "http"), nil)
	if err != nil {
		t.Fatalf("websocket through the preview URL: %v", err)
	}
	wsc.Write(wctx, websocket.MessageText, []byte("hi through the preview"))
	if _, got, err := wsc.Read(wctx); err != nil || string(got) != "hi through the preview" {
		t.Errorf("echo through the preview URL: %q %v", got, err)
	}
	wsc.Close(websocket.StatusNormalClosure, "")
}

// waitAttach follows execution id's output (desk attach's stream, through
// the API) until it printed a line saying it listens.
func waitAttach(t *testing.T, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		runAttach(ctx, []string{"demo", id}, streams{in: strings.NewReader(""), out: pw, err: pw})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "Serving HTTP") || strings.Contains(sc.Text(), "listening") {
			cancel()
			go io.Copy(io.Discard, pr)
			return
		}
	}
	t.Fatalf("%s never said it listens", id)
}

// httpGet GETs u and returns the status and body.
func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

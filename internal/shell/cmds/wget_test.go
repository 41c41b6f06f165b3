package cmds

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
)

var wgetCases = []netCase{
	{name: "stdout", args: []string{"wget", "-q", "-O-", "{B}/hello"}},
	{name: "stdout spaced", args: []string{"wget", "-q", "-O", "-", "{B}/hello"}},
	{name: "file named from the url", args: []string{"wget", "-q", "{B}/files/a.txt"}},
	{name: "index.html", args: []string{"wget", "-q", "{B}/files/"}},
	{name: "numbered when taken", args: []string{"wget", "-q", "{B}/files/a.txt"}, files: map[string]string{"a.txt": "old\n", "a.txt.1": "older\n"}},
	{name: "output file", args: []string{"wget", "-q", "-O", "out", "{B}/hello"}},
	{name: "output file attached", args: []string{"wget", "-qOout", "{B}/hello"}},
	{name: "output long option", args: []string{"wget", "-q", "--output-document=out", "{B}/hello"}},
	{name: "two urls one output", args: []string{"wget", "-q", "-O", "out", "{B}/files/1", "{B}/files/2"}},
	{name: "directory prefix", args: []string{"wget", "-q", "-P", "dl", "{B}/files/x"}, files: map[string]string{"dl/keep": "k\n"}},
	{name: "not found", args: []string{"wget", "-q", "{B}/status/404"}},
	{name: "not found with -O", args: []string{"wget", "-q", "-O", "out", "{B}/status/404"}},
	{name: "not found to stdout", args: []string{"wget", "-q", "-O-", "{B}/status/500"}},
	{name: "content on error", args: []string{"wget", "-q", "--content-on-error", "-O-", "{B}/status/404"}},
	{name: "server response quiet", args: []string{"wget", "-q", "-S", "-O-", "{B}/hello"}},
	{name: "headers", args: []string{"wget", "-q", "-O-", "--header=X-One: 1", "--header", "Accept: text/html", "{B}/echo"}},
	{name: "user agent", args: []string{"wget", "-q", "-O-", "-U", "agent/2", "{B}/echo"}},
	{name: "post data", args: []string{"wget", "-q", "-O-", "--post-data=a=1&b=2", "{B}/echo"}},
	{name: "post file", args: []string{"wget", "-q", "-O-", "--post-file=body", "{B}/echo"}, files: map[string]string{"body": "from a file\n"}},
	{name: "method and body", args: []string{"wget", "-q", "-O-", "--method=PUT", "--body-data=put it", "{B}/echo"}},
	{name: "redirect", args: []string{"wget", "-q", "-O-", "{B}/redirect/302/3"}},
	{name: "redirect post", args: []string{"wget", "-q", "-O-", "--post-data=x", "{B}/redirect/302/1"}},
	{name: "redirect post 307", args: []string{"wget", "-q", "-O-", "--post-data=x", "{B}/redirect/307/1"}},
	{name: "too many redirects", args: []string{"wget", "-q", "-O-", "--max-redirect=2", "{B}/redirect/302/5"}},
	{name: "basic auth unchallenged", args: []string{"wget", "-q", "-O-", "--user=u", "--password=p", "{B}/echo"}},
	{name: "basic auth challenged", args: []string{"wget", "-q", "-O-", "--user=u", "--password=p", "{B}/auth"}},
	{name: "no auth", args: []string{"wget", "-q", "-O-", "{B}/auth"}},
	{name: "refused", args: []string{"wget", "-q", "-O-", "http://127.0.0.1:{P}/"}},
	{name: "timeout", args: []string{"wget", "-q", "-t", "1", "-T", "0.3", "-O-", "{B}/hang"}},
	{name: "no url", args: []string{"wget", "-q"}},
	{name: "bad option", args: []string{"wget", "-Z", "{B}/hello"}},
	{name: "bad long option", args: []string{"wget", "--bogus", "{B}/hello"}},
	{name: "no check certificate", args: []string{"wget", "-q", "--no-check-certificate", "-O-", "{B}/hello"}},
	{name: "chunked", args: []string{"wget", "-q", "-O-", "{B}/chunked"}},
	{name: "big", args: []string{"wget", "-q", "-O", "big", "{B}/big?n=1000000"}},
}

// TestWget_real runs wgetCases with the real wget 1.21 and here, against
// one loopback server, and compares stdout, the status, the files written
// and (under -q) stderr.
func TestWget_real(t *testing.T) {
	requireVersion(t, "wget", "GNU Wget 1.21.")
	srv := netServer(t)
	port := strconv.Itoa(testenv.ClosedPort(t))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	rc := filepath.Join(t.TempDir(), "wgetrc")
	if err := os.WriteFile(rc, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range wgetCases {
		t.Run(c.name, func(t *testing.T) {
			args := expand(c.args, srv.URL, port)
			real := runReal(t, c, args, []string{"WGETRC=" + rc, "SYSTEM_WGETRC=" + rc, "no_proxy=*"})
			ours := runOurs(t, c, args, tr, nil)
			quiet := false
			for _, a := range c.args {
				quiet = quiet || a == "-q" || strings.HasPrefix(a, "-q")
			}
			compareNet(t, real, ours, quiet)
		})
	}
}

// TestWget_network checks no network and the egress policy's refusal.
func TestWget_network(t *testing.T) {
	srv := netServer(t)
	r := runOurs(t, netCase{}, []string{"wget", "-q", "-O-", srv.URL + "/hello"}, nil, nil)
	want := fmt.Sprintf("wget: GET %s/hello: %v\n", srv.URL, deskrun.ErrNoNetwork)
	if r.status != 4 || r.stderr != want {
		t.Fatalf("no network: status %d stderr %q, want 4 and %q", r.status, r.stderr, want)
	}
	r = runOurs(t, netCase{}, []string{"wget", "-O-", "--content-on-error", "http://blocked.example/"}, refusing{}, nil)
	if r.status != 8 || r.stdout != "desk egress: blocked.example is not allowed\n" || !strings.Contains(r.stderr, "403 Forbidden") {
		t.Fatalf("refused: %d %q %q", r.status, r.stdout, r.stderr)
	}
}

package cmds

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// netServer is the loopback upstream of the curl and wget tests. Handlers
// set Content-Type and Content-Length themselves and drop Date, so that the
// header block -i prints is the same for the real tools and these.
func netServer(t testing.TB) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	mux := http.NewServeMux()
	plain := func(w http.ResponseWriter, status int, ctype, body string) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		plain(w, 200, "text/plain", "hello, world\n")
	})
	mux.HandleFunc("/files/", func(w http.ResponseWriter, r *http.Request) {
		plain(w, 200, "application/octet-stream", "file "+r.URL.Path+"\n")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var hs []string
		for k, v := range r.Header {
			k = strings.ToLower(k)
			if k == "accept-encoding" || k == "connection" {
				continue // Go's transport's business; see the package doc
			}
			hs = append(hs, k+": "+strings.Join(v, " | "))
		}
		sort.Strings(hs)
		plain(w, 200, "text/plain", fmt.Sprintf("%s %s host=%s len=%d\n%s\nbody=%q\n", r.Method, r.URL.RequestURI(), r.Host, r.ContentLength, strings.Join(hs, "\n"), b))
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		plain(w, code, "text/plain", "status "+strconv.Itoa(code)+" body\n")
	})
	mux.HandleFunc("/redirect/", func(w http.ResponseWriter, r *http.Request) {
		// /redirect/CODE/N: N more redirects with status CODE, then /echo.
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/redirect/"), "/")
		code, _ := strconv.Atoi(parts[0])
		n, _ := strconv.Atoi(parts[1])
		to := "/echo"
		if n > 1 {
			to = fmt.Sprintf("/redirect/%d/%d", code, n-1)
		}
		w.Header().Set("Location", to)
		plain(w, code, "text/plain", "moved\n")
	})
	mux.HandleFunc("/auth", func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			plain(w, 401, "text/plain", "who are you?\n")
			return
		}
		plain(w, 200, "text/plain", "user="+user+" pass="+pass+"\n")
	})
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
		out := fmt.Sprintf("%s %s expect=%q\n", r.Method, mt, r.Header.Get("Expect"))
		mr, err := r.MultipartReader()
		if err != nil {
			plain(w, 400, "text/plain", err.Error()+"\n")
			return
		}
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			out += fmt.Sprintf("part %q disposition=%q type=%q body=%q\n", p.FormName(), p.Header.Get("Content-Disposition"), p.Header.Get("Content-Type"), b)
		}
		plain(w, 200, "text/plain", out)
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "text/plain")
		for i := range 3 {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		io.WriteString(z, strings.Repeat("compressed text\n", 20))
		z.Close()
		w.Header().Set("Content-Encoding", "gzip")
		plain(w, 200, "text/plain", b.String())
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(n))
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// netCase is one row of the curl and wget tables: args with {B} for the
// server's URL and {P} for a closed port, the files of the working
// directory before, stdin.
type netCase struct {
	name  string
	args  []string
	files map[string]string
	stdin string
	// looseStderr: stderr is not compared (what -v shows differs: see
	// the package doc).
	looseStderr bool
}

// netResult is what a run of a command gave: outputs, status, and every
// file of the working directory after.
type netResult struct {
	stdout, stderr string
	status         int
	files          map[string]string
}

// expand replaces {B} and {P} in args.
func expand(args []string, base, port string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.NewReplacer("{B}", base, "{P}", port).Replace(a)
	}
	return out
}

// runReal runs the real tool in a fresh directory holding c.files.
func runReal(t *testing.T, c netCase, args []string, env []string) netResult {
	t.Helper()
	dir := t.TempDir()
	for n, v := range c.files {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + dir, "PATH=/usr/bin:/bin", "LANG=C"}, env...)
	cmd.Stdin = strings.NewReader(c.stdin)
	stdout, stderr, status := runGNU(t, cmd)
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(b)
		}
		return nil
	})
	return netResult{stdout, stderr, status, files}
}

// runOurs runs the command here, on a store whose /work holds c.files,
// with nt as Env.Net.
func runOurs(t *testing.T, c netCase, args []string, nt http.RoundTripper, mem Memory) netResult {
	t.Helper()
	f := newStore(t, c.files)
	fn, ok := Lookup(args[0])
	if !ok {
		t.Fatalf("command %q is not registered", args[0])
	}
	vars, list := harnessVars(nil)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := &Env{
		Ctx: vfs.WithActor(ctx, "test"), FS: f, Dir: "/work",
		Stdin: strings.NewReader(c.stdin), NoStdin: c.stdin == "", Stdout: &out, Stderr: &errb,
		Getenv:  func(name string) string { return vars[name] },
		Environ: func() []string { return list },
		Limits:  Limits{MaxReadBytes: 64 << 20},
		Net:     nt,
		Mem:     mem,
	}
	status := fn(env, args)
	files := map[string]string{}
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := f.ReadDir(ctx, dir)
		if err != nil {
			t.Fatalf("read %s: %v", dir, err)
		}
		for _, e := range ents {
			p := dir + "/" + e.Name
			if fuIsDirMode(e.Mode) {
				walk(p)
				continue
			}
			b, err := f.ReadFile(ctx, p)
			if err != nil {
				t.Fatalf("read %s: %v", p, err)
			}
			files[strings.TrimPrefix(p, "/work/")] = string(b)
		}
	}
	walk("/work")
	return netResult{out.String(), errb.String(), status, files}
}

// timing matches what differs from run to run in messages: elapsed times.
var timing = regexp.MustCompile(`after \d+ (ms|milliseconds)`)

// compareNet compares a real tool's result with ours; stderr is compared
// when checkStderr (the tools' progress output is not reproduced).
func compareNet(t *testing.T, real, ours netResult, checkStderr bool) {
	t.Helper()
	if ours.stdout != real.stdout {
		t.Errorf("stdout:\n ours: %q\n real: %q", ours.stdout, real.stdout)
	}
	if ours.status != real.status {
		t.Errorf("status: ours %d, real %d\n ours stderr: %q\n real stderr: %q", ours.status, real.status, ours.stderr, real.stderr)
	}
	if checkStderr {
		o, r := timing.ReplaceAllString(ours.stderr, "after N $1"), timing.ReplaceAllString(real.stderr, "after N $1")
		if o != r {
			t.Errorf("stderr:\n ours: %q\n real: %q", o, r)
		}
	}
	if fmt.Sprint(ours.files) != fmt.Sprint(real.files) {
		t.Errorf("files:\n ours: %q\n real: %q", ours.files, real.files)
	}
}

// silent reports whether curl's args silence its progress meter.
func silent(args []string) bool {
	for _, a := range args {
		if a == "--silent" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "s") && len(a) <= 6) {
			return true
		}
	}
	return false
}

var curlCases = []netCase{
	{name: "get", args: []string{"curl", "-s", "{B}/hello"}},
	{name: "no scheme", args: []string{"curl", "-sS", "{B}/hello"}},
	{name: "include", args: []string{"curl", "-si", "{B}/hello"}},
	{name: "head", args: []string{"curl", "-sI", "{B}/hello"}},
	{name: "chunked include", args: []string{"curl", "-s", "-i", "{B}/chunked"}},
	{name: "write-out code", args: []string{"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "{B}/status/404"}},
	{name: "write-out many", args: []string{"curl", "-s", "-o", "out.txt", "-w", `code=%{http_code} type=%{content_type} size=%{size_download} method=%{method} ver=%{http_version} scheme=%{scheme} hops=%{num_redirects} exit=%{exitcode} 100%%\n`, "{B}/hello"}},
	{name: "write-out header", args: []string{"curl", "-s", "-w", `[%header{content-type}] [%{response_code}]\t%{size_header}\n`, "{B}/hello"}},
	{name: "write-out unknown", args: []string{"curl", "-s", "-w", `%{nope}|%{http_code}\n`, "{B}/hello"}},
	{name: "write-out from a file", args: []string{"curl", "-s", "-w", "@fmt", "{B}/hello"}, files: map[string]string{"fmt": "got %{http_code}\n"}},
	{name: "fail", args: []string{"curl", "-sS", "-f", "{B}/status/404"}},
	{name: "fail silent", args: []string{"curl", "-sf", "{B}/status/500"}},
	{name: "fail with body", args: []string{"curl", "-sS", "--fail-with-body", "{B}/status/404"}},
	{name: "fail include", args: []string{"curl", "-sSfi", "{B}/status/403"}},
	{name: "fail write-out", args: []string{"curl", "-sSf", "-w", "%{http_code} %{exitcode} %{errormsg}\n", "{B}/status/502"}},
	{name: "no fail", args: []string{"curl", "-sS", "{B}/status/404"}},
	{name: "output file", args: []string{"curl", "-sS", "-o", "out.txt", "{B}/hello"}},
	{name: "output dash", args: []string{"curl", "-sS", "-o", "-", "{B}/hello"}},
	{name: "output in a missing dir", args: []string{"curl", "-sS", "-o", "nodir/x", "{B}/hello"}},
	{name: "output not created on fail", args: []string{"curl", "-sSf", "-o", "out.txt", "{B}/status/404"}},
	{name: "output overwritten", args: []string{"curl", "-sS", "-o", "out.txt", "{B}/hello"}, files: map[string]string{"out.txt": "old old old old old old\n"}},
	{name: "remote name", args: []string{"curl", "-sSO", "{B}/files/a.txt"}},
	{name: "remote name with a query", args: []string{"curl", "-sS", "-O", "{B}/files/b.bin?x=1"}},
	{name: "remote name empty", args: []string{"curl", "-sSO", "{B}/files/"}},
	{name: "two urls two outputs", args: []string{"curl", "-sS", "-o", "one", "{B}/files/1", "-o", "two", "{B}/files/2"}},
	{name: "two urls one output", args: []string{"curl", "-sS", "-o", "one", "{B}/files/1", "{B}/files/2"}},
	{name: "post data", args: []string{"curl", "-sS", "-d", "a=1", "-d", "b=2", "{B}/echo"}},
	{name: "post data file", args: []string{"curl", "-sS", "-d", "@body", "{B}/echo"}, files: map[string]string{"body": "line one\r\nline two\n"}},
	{name: "post data-binary file", args: []string{"curl", "-sS", "--data-binary", "@body", "{B}/echo"}, files: map[string]string{"body": "line one\r\nline two\n"}},
	{name: "post data stdin", args: []string{"curl", "-sS", "--data-binary", "@-", "{B}/echo"}, stdin: "from stdin\n"},
	{name: "post data raw", args: []string{"curl", "-sS", "--data-raw", "@notafile", "{B}/echo"}},
	{name: "post data missing file", args: []string{"curl", "-sS", "-d", "@missing", "{B}/echo"}},
	{name: "data-urlencode", args: []string{"curl", "-sS", "--data-urlencode", "q=a b&c", "--data-urlencode", "=é/x", "--data-urlencode", "plain text", "--data-urlencode", "f@body", "{B}/echo"}, files: map[string]string{"body": "x y\n"}},
	{name: "get with data", args: []string{"curl", "-sS", "-G", "-d", "a=1", "--data-urlencode", "b=x y", "{B}/echo?z=0"}},
	{name: "form", args: []string{"curl", "-sS", "-F", "k=v", "-F", "f=@a.txt", "-F", "g=@b.bin", "-F", "h=<a.txt", "-F", "t=@a.txt;type=text/x-mine;filename=other.name", "-F", "u=x;type=text/csv", "{B}/form"},
		files: map[string]string{"a.txt": "abc\n", "b.bin": "\x00\x01"}},
	{name: "form string", args: []string{"curl", "-sS", "--form-string", "k=@not-a-file;type=x", "{B}/form"}},
	{name: "form stdin", args: []string{"curl", "-sS", "-F", "f=@-", "{B}/form"}, stdin: "from stdin\n"},
	{name: "form missing file", args: []string{"curl", "-sS", "-F", "f=@missing", "{B}/form"}},
	{name: "form bad", args: []string{"curl", "-sS", "-F", "novalue", "{B}/form"}},
	{name: "json", args: []string{"curl", "-sS", "--json", `{"a":1}`, "{B}/echo"}},
	{name: "method", args: []string{"curl", "-sS", "-X", "DELETE", "{B}/echo"}},
	{name: "method attached", args: []string{"curl", "-sS", "-XPATCH", "-d", "x", "{B}/echo"}},
	{name: "headers", args: []string{"curl", "-sS", "-H", "X-One: 1", "-H", "X-Two:  spaced  ", "-H", "Accept: text/html", "-H", "User-Agent:", "-H", "X-Empty;", "{B}/echo"}},
	{name: "header twice", args: []string{"curl", "-sS", "-H", "X-A: 1", "-H", "X-A: 2", "{B}/echo"}},
	{name: "user agent and referer", args: []string{"curl", "-sS", "-A", "agent/1.0", "-e", "http://from.example/", "{B}/echo"}},
	{name: "basic auth", args: []string{"curl", "-sS", "-u", "user:secret", "{B}/echo"}},
	{name: "basic auth challenged", args: []string{"curl", "-sS", "-u", "user:secret", "{B}/auth"}},
	{name: "no auth", args: []string{"curl", "-sS", "-w", "%{http_code}\n", "{B}/auth"}},
	{name: "cluster fsSL", args: []string{"curl", "-fsSL", "{B}/redirect/302/1"}},
	{name: "include to a file", args: []string{"curl", "-s", "-i", "-o", "out", "{B}/hello"}},
	{name: "head follow", args: []string{"curl", "-sIL", "{B}/redirect/302/2"}},
	{name: "url option", args: []string{"curl", "-s", "--url", "{B}/hello"}},
	{name: "verbose", args: []string{"curl", "-s", "-v", "-o", "/dev/null", "-w", "%{http_code}\n", "{B}/hello"}, looseStderr: true},
	{name: "upload", args: []string{"curl", "-sS", "-T", "up.txt", "{B}/echo"}, files: map[string]string{"up.txt": "uploaded\n"}},
	{name: "upload to a directory URL", args: []string{"curl", "-sS", "-T", "up.txt", "{B}/files/"}, files: map[string]string{"up.txt": "uploaded\n"}},
	{name: "upload missing", args: []string{"curl", "-sS", "-T", "missing", "{B}/echo"}},
	{name: "redirect not followed", args: []string{"curl", "-sS", "-w", "%{http_code} %{redirect_url}\n", "{B}/redirect/302/1"}},
	{name: "redirect followed", args: []string{"curl", "-sSL", "-w", "%{http_code} %{num_redirects} %{url_effective}\n", "{B}/redirect/302/3"}},
	{name: "redirect include", args: []string{"curl", "-sSLi", "{B}/redirect/301/2"}},
	{name: "redirect post 302", args: []string{"curl", "-sSL", "-d", "x=1", "{B}/redirect/302/1"}},
	{name: "redirect post 303", args: []string{"curl", "-sSL", "-d", "x=1", "{B}/redirect/303/1"}},
	{name: "redirect post 307", args: []string{"curl", "-sSL", "-d", "x=1", "{B}/redirect/307/1"}},
	{name: "redirect put 308", args: []string{"curl", "-sSL", "-T", "up.txt", "{B}/redirect/308/1"}, files: map[string]string{"up.txt": "uploaded\n"}},
	{name: "too many redirects", args: []string{"curl", "-sSL", "--max-redirs", "2", "{B}/redirect/302/5"}},
	{name: "compressed", args: []string{"curl", "-sS", "--compressed", "{B}/gzip"}},
	{name: "insecure accepted", args: []string{"curl", "-sSk", "{B}/hello"}},
	{name: "max-time", args: []string{"curl", "-sS", "--max-time", "0.3", "{B}/hang"}},
	{name: "max-time short", args: []string{"curl", "-sS", "-m", "0.3", "-w", "%{http_code}\n", "{B}/hang"}},
	{name: "refused", args: []string{"curl", "-sS", "http://127.0.0.1:{P}/"}},
	{name: "refused silent", args: []string{"curl", "-s", "-w", "%{http_code} %{exitcode}\n", "http://127.0.0.1:{P}/"}},
	{name: "bad option", args: []string{"curl", "--bogus", "{B}/hello"}},
	{name: "bad short option", args: []string{"curl", "-sW", "{B}/hello"}},
	{name: "missing value", args: []string{"curl", "{B}/hello", "-o"}},
	{name: "equals not accepted", args: []string{"curl", "--max-time=5", "{B}/hello"}},
	{name: "no url", args: []string{"curl", "-s"}},
	{name: "bad url", args: []string{"curl", "-sS", "http://"}},
	{name: "big download", args: []string{"curl", "-sS", "-o", "big", "-w", "%{size_download}\n", "{B}/big?n=1000000"}},
}

// requireVersion skips (fails under DESK_REQUIRE_SHELLS) unless the tool's
// --version output starts with prefix: the messages compared are that
// release's.
func requireVersion(t *testing.T, tool, prefix string) {
	t.Helper()
	out, err := exec.Command(tool, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), prefix) {
		requireTool(t, prefix+"x")
	}
}

// TestCurl_real runs curlCases with the real curl 7.88 and here, against
// one loopback server (Env.Net is a plain http.Transport), and compares
// stdout, the status, the files written and (when silenced) stderr.
func TestCurl_real(t *testing.T) {
	requireVersion(t, "curl", "curl 7.88.")
	srv := netServer(t)
	port := strconv.Itoa(testenv.ClosedPort(t))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	for _, c := range curlCases {
		t.Run(c.name, func(t *testing.T) {
			args := expand(c.args, srv.URL, port)
			if c.name == "no scheme" {
				args[len(args)-1] = strings.TrimPrefix(args[len(args)-1], "http://")
			}
			real := runReal(t, c, append([]string{args[0], "-q"}, args[1:]...), nil)
			ours := runOurs(t, c, args, tr, nil)
			compareNet(t, real, ours, silent(c.args) && !c.looseStderr)
		})
	}
}

// TestCurl_network checks what has no real counterpart: no network, the
// egress policy's refusal as curl shows it, and the memory budget.
func TestCurl_network(t *testing.T) {
	srv := netServer(t)
	t.Run("no network", func(t *testing.T) {
		r := runOurs(t, netCase{}, []string{"curl", "-sS", srv.URL + "/hello"}, nil, nil)
		host := strings.TrimPrefix(srv.URL, "http://")
		h, p, _ := net.SplitHostPort(host)
		want := fmt.Sprintf("curl: (7) Failed to connect to %s port %s: GET %s/hello: %v\n", h, p, srv.URL, deskrun.ErrNoNetwork)
		if r.status != 7 || r.stderr != want || r.stdout != "" {
			t.Fatalf("got status %d stderr %q stdout %q, want 7 and %q", r.status, r.stderr, r.stdout, want)
		}
	})
	t.Run("refused by the policy", func(t *testing.T) {
		r := runOurs(t, netCase{}, []string{"curl", "-sS", "-w", "%{http_code}\n", "http://blocked.example/"}, refusing{}, nil)
		if r.status != 0 || r.stdout != "desk egress: blocked.example is not allowed\n403\n" {
			t.Fatalf("got %d %q %q", r.status, r.stdout, r.stderr)
		}
		r = runOurs(t, netCase{}, []string{"curl", "-sSf", "http://blocked.example/"}, refusing{}, nil)
		if r.status != 22 || r.stderr != "curl: (22) The requested URL returned error: 403\n" {
			t.Fatalf("-f: got %d %q %q", r.status, r.stdout, r.stderr)
		}
	})
	t.Run("memory budget", func(t *testing.T) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		big := strings.Repeat("x", 4<<20)
		b := &budget{limit: 1 << 40}
		r := runOurs(t, netCase{files: map[string]string{"body": big}}, []string{"curl", "-sS", "-o", "/dev/null", "--data-binary", "@body", "-w", "%{size_upload}", srv.URL + "/echo"}, tr, b)
		if r.status != 0 || r.stdout != strconv.Itoa(len(big)) || b.peak < int64(len(big)) {
			t.Fatalf("with room: %d %q %q, peak %d", r.status, r.stdout, r.stderr, b.peak)
		}
		small := &budget{limit: 1 << 20}
		r = runOurs(t, netCase{files: map[string]string{"body": big}}, []string{"curl", "-sS", "--data-binary", "@body", srv.URL + "/echo"}, tr, small)
		if r.status == 0 || !small.refused {
			t.Fatalf("under 1 MiB: %d %q, refused %v", r.status, r.stderr, small.refused)
		}
		// A download streams through a charged buffer: 1 MiB of budget is
		// enough for any size.
		r = runOurs(t, netCase{}, []string{"curl", "-sS", "-o", "big", "-w", "%{size_download}", srv.URL + "/big?n=8000000"}, tr, &budget{limit: 1 << 20})
		if r.status != 0 || r.stdout != "8000000" || len(r.files["big"]) != 8000000 {
			t.Fatalf("download under 1 MiB: %d %q %q", r.status, r.stdout, r.stderr)
		}
	})
}

// refusing answers every request as the egress policy answers a refused
// one: 403, and a body saying why.
type refusing struct{}

func (refusing) RoundTrip(r *http.Request) (*http.Response, error) {
	body := "desk egress: " + r.URL.Hostname() + " is not allowed\n"
	return &http.Response{StatusCode: 403, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/plain"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

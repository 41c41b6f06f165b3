package sandbox

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
)

// newNetEnv is newEnv whose executions get network from net (run.Options.
// Network): nil for an execution whose environment has NONET=1.
func newNetEnv(t testing.TB, opts Options, net *egress.Client) *env {
	t.Helper()
	e := newEnv(t, opts)
	e.r.Close()
	var err error
	e.r, err = run.Open(context.Background(), e.fs, map[string]run.Backend{ID: e.b}, run.Options{DefaultBackend: ID,
		Network: func(_ context.Context, job *run.Job) http.RoundTripper {
			if job.Env["NONET"] == "1" {
				return nil
			}
			return net
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.r.Close() })
	return e
}

// serve starts an HTTP server on the host's loopback for the test.
func serve(t testing.TB, h http.Handler) (port string) {
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	return u.Port()
}

// netPolicy allows each name=127.0.0.1:port given.
func netPolicy(t testing.TB, pins ...string) *egress.Client {
	t.Helper()
	n, err := egress.New(egress.Options{Workspace: "ws"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	p, err := egress.Parse("allow " + strings.Join(pins, "; "))
	if err != nil {
		t.Fatal(err)
	}
	return n.Client(egress.Layer{Source: "the workspace's policy", Policy: p})
}

func TestEgress_Tools(t *testing.T) {
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s %s", r.Method, r.URL.Path)
	})
	web := serve(t, hello)
	other := serve(t, hello)
	tlsSrv := httptest.NewTLSServer(hello)
	defer tlsSrv.Close()
	tu, _ := url.Parse(tlsSrv.URL)
	// httptest's certificate is for example.com: the rule pins that name.
	net := netPolicy(t, "web.test=127.0.0.1:"+web, "example.com=127.0.0.1:"+tu.Port(), "other-tls.test=127.0.0.1:"+other+"/only/ GET")
	e := newNetEnv(t, Options{}, net)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(e.wsDir, "ca.pem"), ca, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("curl", func(t *testing.T) {
		tool(t, "curl")
		if out := e.ok("curl -sS -f http://web.test:" + web + "/a"); out != "hello GET /a" {
			t.Fatalf("plain: %q", out)
		}
		if out := e.ok("curl -sS -f --cacert /workspace/ca.pem https://example.com:" + tu.Port() + "/b"); out != "hello GET /b" {
			t.Fatalf("https: %q", out)
		}
		// Another host: 403 with the explanation.
		out := e.ok("curl -sS -w '%{http_code}' http://other.test:" + other + "/")
		if !strings.HasSuffix(out, "403") || !strings.Contains(out, "host other.test is not allowed") || !strings.Contains(out, "desk ws policy ws --allow 'other.test:"+other+"'") {
			t.Fatalf("other host: %q", out)
		}
		// A rule with methods and paths: only what it names, and no tunnel.
		if out := e.ok("curl -sS -w ' %{http_code}' http://other-tls.test:" + other + "/only/x"); out != "hello GET /only/x 200" {
			t.Fatalf("path rule: %q", out)
		}
		if out := e.ok("curl -sS -o /dev/null -w '%{http_code}' -X POST http://other-tls.test:" + other + "/only/x"); out != "403" {
			t.Fatalf("method: %q", out)
		}
		res := e.fail("curl -sS https://other-tls.test:"+other+"/only/", run.ExecOptions{})
		if !strings.Contains(res.Stderr, "403") {
			t.Fatalf("tunnel under a path rule: %q", res.Stderr)
		}
	})
	t.Run("python", func(t *testing.T) {
		tool(t, "python3")
		out := e.ok(`python3 -c 'import urllib.request as u; print(u.urlopen("http://web.test:` + web + `/py").read().decode())'`)
		if out != "hello GET /py\n" {
			t.Fatalf("python: %q", out)
		}
	})
	t.Run("node", func(t *testing.T) {
		tool(t, "node")
		// Node 20 ignores the proxy variables: the program reads HTTP_PROXY.
		js := `const u = new URL(process.env.HTTP_PROXY); const auth = Buffer.from(u.username + ":" + u.password).toString("base64");
require("http").get({host: u.hostname, port: u.port, path: "http://web.test:` + web + `/node", headers: {"Proxy-Authorization": "Basic " + auth}},
  r => { let b = ""; r.on("data", d => b += d); r.on("end", () => console.log(r.statusCode, b)); });`
		if err := os.WriteFile(filepath.Join(e.wsDir, "get.js"), []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		if out := e.ok("node /workspace/get.js"); out != "200 hello GET /node\n" {
			t.Fatalf("node: %q", out)
		}
	})
	t.Run("raw socket", func(t *testing.T) {
		tool(t, "python3")
		// Only lo: an address outside has no route; the host's loopback is not the sandbox's.
		out := e.ok(`python3 -c '
import socket, errno
for a in (("192.0.2.1", 80), ("127.0.0.1", ` + web + `)):
    try:
        socket.create_connection(a, timeout=10); print("connected")
    except OSError as e:
        print(errno.errorcode[e.errno])'`)
		if out != "ENETUNREACH\nECONNREFUSED\n" {
			t.Fatalf("raw sockets: %q", out)
		}
	})
	t.Run("none", func(t *testing.T) {
		tool(t, "curl")
		out := e.run("echo \"[$HTTP_PROXY]\"; curl -sS -w ' %{http_code}' -x http://127.0.0.1:3128 http://web.test:"+web+"/", run.ExecOptions{Env: map[string]string{"NONET": "1"}}).Stdout
		if !strings.HasPrefix(out, "[]\n") || !strings.HasSuffix(out, " 407") || !strings.Contains(out, "running executions only") {
			t.Fatalf("no network: %q", out)
		}
		// A credential outlives nothing: the last execution's is forgotten.
		out = e.run("curl -sS -o /dev/null -w '%{http_code}' -x \"$OLD\" http://web.test:"+web+"/", run.ExecOptions{Env: map[string]string{"NONET": "1", "OLD": e.ok("echo -n $HTTP_PROXY")}}).Stdout
		if out != "407" {
			t.Fatalf("an ended execution's credential: %q", out)
		}
	})
}

// gitServer serves the bare repositories below root over smart HTTP (git
// http-backend through CGI).
func gitServer(t *testing.T, root string) string {
	backend := "/usr/lib/git-core/git-http-backend"
	if _, err := os.Stat(backend); err != nil {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("no %s (make test-setup installs git)", backend))
	}
	return serve(t, &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
}

func TestEgress_PackageManagers(t *testing.T) {
	dir := t.TempDir()
	reg := newNPMRegistry(t)
	pypi := newPyPI(t)
	gomod := newGoProxy(t, filepath.Join(dir, "goproxy"))
	// A bare repository with one commit.
	gitRoot := filepath.Join(dir, "git")
	work := filepath.Join(dir, "work")
	for _, c := range [][]string{
		{"git", "init", "-q", "-b", "main", work},
		{"git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"},
		{"git", "clone", "-q", "--bare", work, filepath.Join(gitRoot, "repo.git")},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(work, "README"), []byte("cloned through desk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"git", "-C", work, "add", "README"},
		{"git", "-C", work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "readme"},
		{"git", "-C", work, "push", "-q", filepath.Join(gitRoot, "repo.git"), "main"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	gitPort := gitServer(t, gitRoot)
	net := netPolicy(t, "npm.test=127.0.0.1:"+reg.port, "pypi.test=127.0.0.1:"+pypi.port, "goproxy.test=127.0.0.1:"+gomod, "git.test=127.0.0.1:"+gitPort)
	e := newNetEnv(t, Options{Memory: 2 << 30}, net)

	t.Run("npm", func(t *testing.T) {
		tool(t, "npm")
		out := e.ok("mkdir -p app && cd app && npm install --registry=http://npm.test:" + reg.port + "/ --cache /tmp/npm-cache --no-audit --no-fund --loglevel=error pkg-a >&2 && node -e 'console.log(require(\"pkg-a\"))'")
		if out != "a+b\n" {
			t.Fatalf("npm: %q", out)
		}
	})
	t.Run("pip", func(t *testing.T) {
		tool(t, "python3")
		tool(t, "pip3")
		out := e.ok("python3 -m pip install -q --no-cache-dir --disable-pip-version-check --index-url http://pypi.test:" + pypi.port + "/simple/ --trusted-host pypi.test --target /tmp/pt demo-pkg >&2 && " +
			`python3 -c 'import sys; sys.path.insert(0, "/tmp/pt"); import demo_pkg; print(demo_pkg.X)'`)
		if out != "42\n" {
			t.Fatalf("pip: %q", out)
		}
	})
	t.Run("go", func(t *testing.T) {
		goroot := goRootInSandbox(t)
		out := e.ok("cd /tmp && GOPROXY=http://goproxy.test:" + gomod + " GOSUMDB=off GOPATH=/tmp/gopath GOCACHE=/tmp/gocache GOTOOLCHAIN=local GOFLAGS= " +
			goroot + "/bin/go mod download -json example.test/hello@v1.0.0 >/tmp/dl.json && cat /tmp/gopath/pkg/mod/example.test/hello@v1.0.0/hello.go")
		if !strings.Contains(out, "package hello") {
			t.Fatalf("go mod download: %q", out)
		}
	})
	t.Run("git", func(t *testing.T) {
		tool(t, "git")
		out := e.ok("git clone -q http://git.test:" + gitPort + "/repo.git /tmp/clone && cat /tmp/clone/README")
		if out != "cloned through desk\n" {
			t.Fatalf("git clone: %q", out)
		}
		res := e.fail("git clone -q http://elsewhere.test:"+gitPort+"/repo.git /tmp/clone2", run.ExecOptions{})
		if !strings.Contains(res.Stderr, "403") {
			t.Fatalf("git clone elsewhere: %q", res.Stderr)
		}
	})
}

// goRootInSandbox returns the GOROOT of the go running the tests if the
// sandbox sees it (it is under /usr); else the test is skipped (failed
// under DESK_REQUIRE_SANDBOX).
func goRootInSandbox(t *testing.T) string {
	root := testenv.GOROOT(t)
	if !strings.HasPrefix(root, "/usr/") {
		testenv.Need(t, testenv.Sandbox, fmt.Errorf("GOROOT %s is not under /usr: the sandbox does not see it", root))
	}
	return root
}

// npmRegistry serves packages it packed: pkg-a depends on pkg-b.
type npmRegistry struct {
	port string
	pkgs map[string][]byte // name → tarball
	deps map[string]map[string]string
}

func newNPMRegistry(t testing.TB) *npmRegistry {
	r := &npmRegistry{pkgs: map[string][]byte{}, deps: map[string]map[string]string{}}
	r.add(t, "pkg-b", nil, `module.exports = "b";`)
	r.add(t, "pkg-a", map[string]string{"pkg-b": "^1.0.0"}, `module.exports = "a+" + require("pkg-b");`)
	r.port = serve(t, r)
	return r
}

// add packs a package.
func (r *npmRegistry) add(t testing.TB, name string, deps map[string]string, index string) {
	pj, _ := json.Marshal(map[string]any{"name": name, "version": "1.0.0", "main": "index.js", "dependencies": deps})
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{{"package/package.json", string(pj)}, {"package/index.js", index}} {
		tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body)), Typeflag: tar.TypeReg})
		tw.Write([]byte(f.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	r.pkgs[name] = buf.Bytes()
	r.deps[name] = deps
}

func (r *npmRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	name, file, isTarball := strings.Cut(strings.TrimPrefix(req.URL.Path, "/"), "/-/")
	tgz, ok := r.pkgs[name]
	if !ok {
		http.NotFound(w, req)
		return
	}
	if isTarball {
		if file != name+"-1.0.0.tgz" {
			http.NotFound(w, req)
			return
		}
		w.Write(tgz)
		return
	}
	s1 := sha1.Sum(tgz)
	s512 := sha512.Sum512(tgz)
	json.NewEncoder(w).Encode(map[string]any{
		"name": name, "dist-tags": map[string]string{"latest": "1.0.0"},
		"versions": map[string]any{"1.0.0": map[string]any{
			"name": name, "version": "1.0.0", "dependencies": r.deps[name],
			"dist": map[string]string{
				"tarball":   "http://" + req.Host + "/" + name + "/-/" + name + "-1.0.0.tgz",
				"shasum":    hex.EncodeToString(s1[:]),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
			},
		}},
	})
}

// pyPI is a PyPI-style simple index serving one wheel it built.
type pyPI struct {
	port  string
	wheel []byte
}

const wheelName = "demo_pkg-1.0-py3-none-any.whl"

func newPyPI(t testing.TB) *pyPI {
	files := [][2]string{
		{"demo_pkg/__init__.py", "X = 42\n"},
		{"demo_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n"},
		{"demo_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: desk-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, _ := zw.Create(f[0])
		w.Write([]byte(f[1]))
		sum := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], base64.RawURLEncoding.EncodeToString(sum[:]), len(f[1]))
	}
	record.WriteString("demo_pkg-1.0.dist-info/RECORD,,\n")
	w, _ := zw.Create("demo_pkg-1.0.dist-info/RECORD")
	w.Write([]byte(record.String()))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := &pyPI{wheel: buf.Bytes()}
	sum := sha256.Sum256(p.wheel)
	p.port = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/simple/demo-pkg/":
			fmt.Fprintf(w, `<!DOCTYPE html><html><body><a href="/files/%s#sha256=%s">%s</a></body></html>`, wheelName, hex.EncodeToString(sum[:]), wheelName)
		case "/files/" + wheelName:
			w.Write(p.wheel)
		default:
			http.NotFound(w, r)
		}
	}))
	return p
}

// newGoProxy writes a GOPROXY directory holding example.test/hello v1.0.0
// and serves it.
func newGoProxy(t testing.TB, root string) string {
	d := filepath.Join(root, "example.test", "hello", "@v")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module example.test/hello\n\ngo 1.21\n"
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range [][2]string{{"go.mod", mod}, {"hello.go", "package hello\n\nconst Hello = \"hello\"\n"}} {
		w, _ := zw.Create("example.test/hello@v1.0.0/" + f[0])
		w.Write([]byte(f[1]))
	}
	zw.Close()
	for name, body := range map[string][]byte{
		"list": []byte("v1.0.0\n"), "v1.0.0.info": []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`),
		"v1.0.0.mod": []byte(mod), "v1.0.0.zip": buf.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(d, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return serve(t, http.FileServer(http.Dir(root)))
}

// TestEgress_SecretOverHTTPS: HTTPS to a secret's host is terminated by
// desk with the workspace's CA, which the sandbox's tools trust through
// the environment and the system bundle, and the value goes in; HTTPS
// elsewhere is tunnelled and carries the placeholder.
func TestEgress_SecretOverHTTPS(t *testing.T) {
	tool(t, "curl")
	tool(t, "python3")
	var mu sync.Mutex
	seen := map[string]string{}
	rec := func(name string) *httptest.Server {
		s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[name+r.URL.Path] = r.Header.Get("Authorization")
			mu.Unlock()
			fmt.Fprint(w, "ok")
		}))
		t.Cleanup(s.Close)
		return s
	}
	bound, other := rec("bound"), rec("other")
	bu, _ := url.Parse(bound.URL)
	ou, _ := url.Parse(other.URL)
	n, err := egress.New(egress.Options{Workspace: "ws", RootCAs: bound.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ca, _, err := egress.NewCA("ws")
	if err != nil {
		t.Fatal(err)
	}
	p, err := egress.Parse("allow example.com=127.0.0.1:" + bu.Port() + "; other.test=127.0.0.1:" + ou.Port())
	if err != nil {
		t.Fatal(err)
	}
	const ph, value = "desk-secret-TOKEN-0123", "v4lue-over-tls"
	c := n.Client(egress.Layer{Source: "the workspace's policy", Policy: p}).
		WithSecrets([]egress.Secret{{Name: "TOKEN", Placeholder: ph, Value: value, Hosts: []egress.Rule{{Host: "example.com"}}}}).WithCA(ca)
	e := newNetEnv(t, Options{}, c)
	env := map[string]string{"TOKEN": ph}
	res := e.run(`curl -sS -H "Authorization: Bearer $TOKEN" https://example.com:`+bu.Port()+`/curl; echo; `+
		`python3 -c 'import os, urllib.request as u; r = u.Request("https://example.com:`+bu.Port()+`/py", headers={"Authorization": "Bearer " + os.environ["TOKEN"]}); print(u.urlopen(r).read().decode())'; `+
		`env -u SSL_CERT_FILE -u CURL_CA_BUNDLE curl -sS -H "Authorization: Bearer $TOKEN" https://example.com:`+bu.Port()+`/system; echo; `+
		`curl -sSk -H "Authorization: Bearer $TOKEN" https://other.test:`+ou.Port()+`/other`, run.ExecOptions{Env: env})
	if res.ExitCode != 0 || res.Stdout != "ok\nok\nok\nok" {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{"/curl", "/py", "/system"} {
		if seen["bound"+path] != "Bearer "+value {
			t.Errorf("the bound host received %q for %s", seen["bound"+path], path)
		}
	}
	if seen["other/other"] != "Bearer "+ph {
		t.Errorf("another host received %q, want the placeholder", seen["other/other"])
	}
}

// TestEgress_Shell: a terminal session with a network (ShellOptions.Net)
// gets the proxy settings while it lasts, and its credential dies with it.
func TestEgress_Shell(t *testing.T) {
	tool(t, "curl")
	web := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello %s", r.URL.Path) }))
	net := netPolicy(t, "web.test=127.0.0.1:"+web)
	e := newNetEnv(t, Options{}, net)
	sh, err := e.b.Shell(ctx(t), Workspace{FS: e.fs}, ShellOptions{Net: net})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	out := readShell(sh)
	if _, err := io.WriteString(sh, "curl -sS http://web.test:"+web+"/term; echo; printf %s \"$HTTP_PROXY\" > /workspace/proxy; exit\n"); err != nil {
		t.Fatal(err)
	}
	if all := out.end(t); !strings.Contains(all, "hello /term") {
		t.Fatalf("the shell's output lacks the answer:\n%s", all)
	}
	if _, err := sh.Wait(ctx(t)); err != nil {
		t.Fatal(err)
	}
	proxy, err := os.ReadFile(filepath.Join(e.wsDir, "proxy"))
	if err != nil || !strings.HasPrefix(string(proxy), "http://desk:") {
		t.Fatalf("the shell's HTTP_PROXY: %q %v", proxy, err)
	}
	// The session ended: its credential is forgotten.
	res := e.run("curl -sS -o /dev/null -w '%{http_code}' -x \"$OLD\" http://web.test:"+web+"/", run.ExecOptions{Env: map[string]string{"NONET": "1", "OLD": string(proxy)}})
	if res.Stdout != "407" {
		t.Fatalf("the ended shell's credential: %q", res.Stdout)
	}
}

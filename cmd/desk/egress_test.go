package main

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
)

// recorder is an upstream that keeps what it received and answers "ok"
// (never echoing a header: a secret echoed back would be the execution's
// output).
type recorder struct {
	mu   sync.Mutex
	seen []string // "AUTH|X-KEY|URL" per request
	port string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Get("Authorization")+"|"+req.Header.Get("X-Key")+"|"+req.URL.RequestURI())
		r.mu.Unlock()
		io.WriteString(w, "ok "+req.URL.Path)
	}))
	t.Cleanup(s.Close)
	u, _ := url.Parse(s.URL)
	r.port = u.Port()
	return r
}

func (r *recorder) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) == 0 {
		return ""
	}
	return r.seen[len(r.seen)-1]
}

// TestServe_Egress runs desk serve (workers, the real sandbox) with a
// default egress policy and drives every configuration surface: the
// server's default, the workspace's policy (desk ws policy), a token's and
// an execution's narrowing, secrets; then looks for the secret's value
// everywhere but on the wire to its host.
func TestServe_Egress(t *testing.T) {
	sandboxtest.Require(t)
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	good, other := newRecorder(t), newRecorder(t)
	data, _ := sandboxData(t)
	srvURL, errb, stop := startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--egress", "allow good.test=127.0.0.1:"+good.port)
	mustDesk(t, nil, "ws", "create", "demo")
	curl := func(args ...string) (string, string, int) {
		t.Helper()
		return desk(t, nil, append([]string{"exec", "demo", "--backend", "sandbox"}, args...)...)
	}
	goodURL, otherURL := "http://good.test:"+good.port, "http://other.test:"+other.port

	// The server's default.
	if out := mustDesk(t, nil, "ws", "policy", "demo"); !strings.Contains(out, "allow (the server's default)") || !strings.Contains(out, "good.test=127.0.0.1:"+good.port) {
		t.Fatalf("ws policy: %q", out)
	}
	if out, _, _ := curl("--", "curl -sS "+goodURL+"/a"); out != "ok /a" {
		t.Fatalf("allowed by default: %q", out)
	}
	out, _, _ := curl("--", "curl -sS -w ' %{http_code}' "+otherURL+"/")
	if !strings.HasSuffix(out, " 403") || !strings.Contains(out, "by the server's default policy (desk serve --egress)") ||
		!strings.Contains(out, "desk ws policy demo --allow 'other.test:"+other.port+"'") {
		t.Fatalf("refused by default: %q", out)
	}
	// The workspace's own policy, as the hint says (with the name pinned).
	if out := mustDesk(t, nil, "ws", "policy", "demo", "--allow", "other.test=127.0.0.1:"+other.port); !strings.Contains(out, "(its own)") {
		t.Fatalf("ws policy --allow: %q", out)
	}
	if out, _, _ := curl("--", "curl -sS "+otherURL+"/b"); out != "ok /b" {
		t.Fatalf("allowed by the workspace: %q", out)
	}
	// An execution narrows it.
	out, _, _ = curl("--egress", "allow good.test:"+good.port, "--", "curl -sS "+goodURL+"/c; echo; curl -sS -w ' %{http_code}' "+otherURL+"/c")
	if !strings.HasPrefix(out, "ok /c\n") || !strings.Contains(out, "by the execution's policy") || !strings.HasSuffix(out, " 403") {
		t.Fatalf("execution narrowing: %q", out)
	}
	// A token narrows it.
	mint := mustDesk(t, nil, "token", "mint", "--workspace", "demo", "--scopes", "exec,read", "--egress", "allow good.test:"+good.port)
	tok := strings.TrimSpace(mint)
	if !strings.HasPrefix(tok, "desk_") {
		t.Fatalf("mint: %q", mint)
	}
	t.Setenv(envToken, tok)
	t.Setenv(envURL, srvURL)
	out, _, _ = curl("--", "curl -sS -w ' %{http_code}' "+otherURL+"/d")
	if !strings.Contains(out, "by the token's policy") || !strings.HasSuffix(out, " 403") {
		t.Fatalf("token narrowing: %q", out)
	}
	os.Unsetenv(envToken)
	os.Unsetenv(envURL)

	// A secret: the value from stdin, bound to good.test.
	const value = "s3cr3t-Value-4f1d9a"
	if out := mustDesk(t, []byte(value+"\n"), "secret", "set", "demo", "API_KEY", "--host", "good.test"); !strings.Contains(out, "$API_KEY=desk-secret-API_KEY-") {
		t.Fatalf("secret set: %q", out)
	}
	if out := mustDesk(t, nil, "secret", "ls", "demo"); !strings.Contains(out, "API_KEY") || strings.Contains(out, value) {
		t.Fatalf("secret ls: %q", out)
	}
	out, _, _ = curl("--", `echo "$API_KEY"; curl -sS -H "Authorization: Bearer $API_KEY" "`+goodURL+`/e?k=$API_KEY"; echo; curl -sS -H "X-Key: $API_KEY" `+otherURL+`/e`)
	ph, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(ph, "desk-secret-API_KEY-") || strings.Contains(out, value) {
		t.Fatalf("the execution's view: %q", out)
	}
	if got := good.last(); got != "Bearer "+value+"||/e?k="+value {
		t.Fatalf("the bound host received %q", got)
	}
	if got := other.last(); got != "|"+ph+"|/e" {
		t.Fatalf("another host received %q, want the placeholder", got)
	}
	// none blocks everything, with the explanation.
	mustDesk(t, nil, "ws", "policy", "demo", "--set", "none")
	out, _, _ = curl("--", "curl -sS -w ' %{http_code}' "+goodURL+"/f")
	if !strings.Contains(out, "no request is allowed by the workspace's policy (none)") || !strings.HasSuffix(out, " 403") {
		t.Fatalf("none: %q", out)
	}

	// The value is nowhere but in its own file: not in the store, the
	// execution records, the token store, the logs, /metrics.
	cf, _, err := readConfig()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", srvURL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+cf.Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || strings.Contains(string(metrics), value) {
		t.Fatalf("/metrics: %d, holds the value: %v", res.StatusCode, strings.Contains(string(metrics), value))
	}
	stop()
	if strings.Contains(errb.String(), value) {
		t.Fatal("the server's log holds the secret's value")
	}
	// Each refusal is in the server's log, with its execution.
	if !regexp.MustCompile(`egress refused.*workspace=demo execution=\S+ target="GET other\.test:` + other.port + `/"`).MatchString(errb.String()) {
		t.Errorf("the log lacks the refusal:\n%s", errb.String())
	}
	secretFile := filepath.Join(data, "egress", "demo", "secrets", "API_KEY.json")
	if fi, err := os.Stat(secretFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("secret file: %v %v", fi, err)
	}
	found := 0
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), value) {
			if p != secretFile {
				t.Errorf("%s holds the secret's value", p)
			}
			found++
		}
		return nil
	})
	if found != 1 {
		t.Fatalf("the value is in %d files, want its own only", found)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestServe_EgressInProcess drives the in-process clients through desk
// serve's egress (no sandbox needed): the shell's curl and wget and js
// fetch reach the allowed host, get the explaining 403 elsewhere, carry a
// secret's value only to its bound host, and are refused under none.
func TestServe_EgressInProcess(t *testing.T) {
	t.Setenv(envConfig, filepath.Join(t.TempDir(), "config.json"))
	good, other := newRecorder(t), newRecorder(t)
	data := filepath.Join(t.TempDir(), "data")
	startServe(t, "--addr", "127.0.0.1:0", "--data", data, "--log-level", "warn", "--egress", "allow good.test=127.0.0.1:"+good.port)
	mustDesk(t, nil, "ws", "create", "demo")
	goodURL, otherURL := "http://good.test:"+good.port, "http://other.test:"+other.port
	exec := func(backend, src string) string {
		t.Helper()
		out, errs, code := desk(t, nil, "exec", "demo", "--backend", backend, "--", src)
		if code != 0 {
			t.Fatalf("%s %q: exit %d, stdout %q, stderr %q", backend, src, code, out, errs)
		}
		return out
	}

	if out := exec("shell", "curl -sS "+goodURL+"/a; echo; wget -q -O- "+goodURL+"/w"); out != "ok /a\nok /w" {
		t.Fatalf("shell, allowed: %q", out)
	}
	out := exec("shell", "curl -sS -w ' %{http_code}' "+otherURL+"/; echo; curl -sSf "+otherURL+"/ 2>&1; echo \" $?\"")
	if !strings.Contains(out, "by the server's default policy (desk serve --egress)") || !strings.Contains(out, "desk ws policy demo --allow 'other.test:"+other.port+"'") ||
		!strings.Contains(out, " 403\n") || !strings.HasSuffix(out, "curl: (22) The requested URL returned error: 403\n 22\n") {
		t.Fatalf("shell, refused: %q", out)
	}
	js := `const r = await fetch('` + goodURL + `/j'); console.log(r.status, await r.text());
const o = await fetch('` + otherURL + `/'); const t = await o.text(); console.log(o.status, t.includes("desk ws policy demo --allow"));`
	if out := exec("js", js); out != "200 ok /j\n403 true\n" {
		t.Fatalf("js: %q", out)
	}

	const value = "v4lue-0f-the-Secret"
	if out := mustDesk(t, []byte(value+"\n"), "secret", "set", "demo", "API_KEY", "--host", "good.test"); !strings.Contains(out, "$API_KEY=desk-secret-API_KEY-") {
		t.Fatalf("secret set: %q", out)
	}
	mustDesk(t, nil, "ws", "policy", "demo", "--allow", "good.test=127.0.0.1:"+good.port, "--allow", "other.test=127.0.0.1:"+other.port)
	ph := strings.TrimSpace(exec("shell", `curl -sS -H "Authorization: Bearer $API_KEY" `+goodURL+`/s >/dev/null; curl -sS -H "X-Key: $API_KEY" `+otherURL+`/s >/dev/null; echo "$API_KEY"`))
	if !strings.HasPrefix(ph, "desk-secret-API_KEY-") {
		t.Fatalf("placeholder %q", ph)
	}
	if got := good.last(); got != "Bearer "+value+"||/s" {
		t.Fatalf("curl: the bound host received %q", got)
	}
	if got := other.last(); got != "|"+ph+"|/s" {
		t.Fatalf("curl: another host received %q", got)
	}
	exec("js", `await (await fetch('`+goodURL+`/sj', { headers: { 'x-key': process.env.API_KEY } })).text();
await (await fetch('`+otherURL+`/sj', { headers: { authorization: 'Bearer ' + process.env.API_KEY } })).text();`)
	if got := good.last(); got != "|"+value+"|/sj" {
		t.Fatalf("fetch: the bound host received %q", got)
	}
	if got := other.last(); got != "Bearer "+ph+"||/sj" {
		t.Fatalf("fetch: another host received %q", got)
	}

	mustDesk(t, nil, "ws", "policy", "demo", "--set", "none")
	if out := exec("shell", "curl -sS -w ' %{http_code}' "+goodURL+"/n"); !strings.Contains(out, "no request is allowed by the workspace's policy (none)") || !strings.HasSuffix(out, " 403") {
		t.Fatalf("none, curl: %q", out)
	}
	if out := exec("js", `const r = await fetch('`+goodURL+`/n'); console.log(r.status)`); out != "403\n" {
		t.Fatalf("none, fetch: %q", out)
	}
}

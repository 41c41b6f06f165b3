package jsvm

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// fetchServer is the loopback upstream of the fetch tests. Its responses
// carry no Date header, so that what a script prints is the same under
// Node and here.
func fetchServer(t testing.TB) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	mux := http.NewServeMux()
	plain := func(w http.ResponseWriter, status int, body string) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) { plain(w, 200, "hello, world\n") })
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"desk","n":[1,2,3],"ok":true}`)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var hs []string
		for k, v := range r.Header {
			k = strings.ToLower(k)
			if strings.HasPrefix(k, "x-") || k == "content-type" || k == "user-agent" || k == "accept" || k == "accept-language" || k == "sec-fetch-mode" || k == "authorization" {
				hs = append(hs, k+"="+strings.Join(v, "|"))
			}
		}
		sort.Strings(hs)
		plain(w, 200, fmt.Sprintf("%s %s len=%d body=%q\n%s\n", r.Method, r.URL.RequestURI(), r.ContentLength, b, strings.Join(hs, "\n")))
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		if code == 204 || code == 304 {
			w.Header()["Date"] = nil
			w.WriteHeader(code)
			return
		}
		plain(w, code, "status "+strconv.Itoa(code)+"\n")
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
		w.Header()["Date"] = nil
		w.Header().Set("Location", to)
		w.WriteHeader(code)
	})
	mux.HandleFunc("/cookies", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Add("Set-Cookie", "a=1; Path=/")
		w.Header().Add("Set-Cookie", "b=2")
		w.Header().Add("X-Multi", "one")
		w.Header().Add("X-Multi", "two")
		w.Header().Set("X-Upper", "Value With Spaces")
		plain(w, 200, "cookies\n")
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		// /stream?n=N&size=S: N chunks of S bytes, flushed one by one.
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		w.Header()["Date"] = nil
		w.Header().Set("Content-Type", "application/octet-stream")
		chunk := []byte(strings.Repeat("x", size))
		for i := 0; i < n; i++ {
			chunk[0] = byte('a' + i%26)
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Date"] = nil
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "text/plain")
		z := gzip.NewWriter(w)
		io.WriteString(z, strings.Repeat("compressed text\n", 100))
		z.Close()
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		// Answers nothing until the client goes away (or the test ends).
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	mux.HandleFunc("/hangbody", func(w http.ResponseWriter, r *http.Request) {
		// The head and a first chunk, then nothing until the client goes.
		w.Header()["Date"] = nil
		io.WriteString(w, "first chunk")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-done:
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { close(done); srv.Close() })
	return srv
}

// runFetchJS runs src with Job.Net set to net and env given.
func runFetchJS(ctx context.Context, b *Backend, fsys *vfs.FS, src string, env map[string]string, nt http.RoundTripper) result {
	var out, errb testenv.SyncBuffer
	rj := &run.Job{ID: "test", Backend: ID, Source: src, Cwd: "/workspace", Env: env,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: fsys, Net: nt}
	o, err := b.Run(vfs.WithActor(ctx, "test"), rj)
	return result{stdout: out.String(), stderr: errb.String(), value: string(o.Value), exit: o.ExitCode, err: err}
}

// fetchScripts are run under Node 20 and here against the same server;
// stdout and the exit code must match. BASE is the server's URL, REFUSED
// a port nothing listens on.
var fetchScripts = []struct{ name, src string }{
	{"get", `const r = await fetch(process.env.BASE + '/hello');
console.log(r.status, r.statusText, r.ok, r.type, r.redirected, r.url === process.env.BASE + '/hello');
console.log(r.headers.get('content-type'), r.headers.get('Content-Length'), r.headers.has('x-none'), r.bodyUsed);
console.log(JSON.stringify(await r.text()), r.bodyUsed);`},
	{"json", `const r = await fetch(process.env.BASE + '/json');
const v = await r.json(); console.log(v.name, v.n.length, v.ok, typeof v);`},
	{"arrayBuffer and bytes", `let r = await fetch(process.env.BASE + '/hello');
const ab = await r.arrayBuffer(); console.log(ab instanceof ArrayBuffer, ab.byteLength, new Uint8Array(ab)[0]);
r = await fetch(process.env.BASE + '/hello');
const u = await r.bytes(); console.log(u instanceof Uint8Array, u.length, String.fromCharCode(...u.slice(0, 5)));`},
	{"default request headers", `const r = await fetch(process.env.BASE + '/echo?a=1&b=two');
console.log(await r.text());`},
	{"post string", `const r = await fetch(process.env.BASE + '/echo', { method: 'POST', body: 'a=1&b=2', headers: { 'X-One': '1', 'x-two': ' padded ' } });
console.log(await r.text());`},
	{"post bytes, params, typed content type", `for (const body of [new Uint8Array([104, 105]), new URLSearchParams({ q: 'a b', r: 'é' }), new TextEncoder().encode('{"a":1}').buffer]) {
  const r = await fetch(process.env.BASE + '/echo', { method: 'post', body, headers: body instanceof ArrayBuffer ? { 'content-type': 'application/json' } : {} });
  console.log(await r.text());
}`},
	{"methods", `for (const method of ['put', 'delete', 'options', 'PATCH', 'Post']) {
  const r = await fetch(process.env.BASE + '/echo', { method });
  console.log(method, (await r.text()).split('\n')[0]);
}
const h = await fetch(process.env.BASE + '/hello', { method: 'HEAD' });
console.log('HEAD', h.status, h.body, h.headers.get('content-length'), JSON.stringify(await h.text()));`},
	{"headers object", `const h = new Headers({ 'X-B': '2', 'x-a': '1' });
h.append('x-a', 'again'); h.set('X-C', '3'); h.delete('x-b');
console.log([...h], h.get('X-A'), h.has('x-b'), [...h.keys()], [...h.values()]);
const r = await fetch(process.env.BASE + '/echo', { headers: h }); console.log(await r.text());
const h2 = new Headers([['b', '1'], ['a', '2'], ['B', '3']]); console.log(h2, [...h2]);
h2.forEach((v, k) => console.log('each', k, v));
for (const bad of [() => new Headers({ 'a b': 'x' }), () => new Headers([['a']]), () => h.set('x', 'a\nb'), () => h.get('(')]) {
  try { bad(); } catch (e) { console.log(String(e)); }
}`},
	{"response headers", `const r = await fetch(process.env.BASE + '/cookies');
console.log([...r.headers]);
console.log(r.headers.get('set-cookie'), r.headers.getSetCookie(), r.headers.get('x-multi'), r.headers.get('x-upper'));
try { r.headers.set('x', 'y'); } catch (e) { console.log(String(e)); }`},
	{"status codes", `for (const code of [201, 204, 304, 400, 404, 418, 500, 503]) {
  const r = await fetch(process.env.BASE + '/status/' + code);
  console.log(code, r.status, r.statusText, r.ok, r.body === null, JSON.stringify(await r.text()));
}`},
	{"redirect follow", `let r = await fetch(process.env.BASE + '/redirect/302/3');
console.log(r.status, r.redirected, r.url.replace(process.env.BASE, ''), (await r.text()).split('\n')[0]);
r = await fetch(process.env.BASE + '/redirect/303/1', { method: 'POST', body: 'gone' });
console.log(r.status, r.redirected, (await r.text()).split('\n')[0]);
r = await fetch(process.env.BASE + '/redirect/307/2', { method: 'POST', body: 'kept' });
console.log(r.status, r.redirected, (await r.text()).split('\n')[0]);
r = await fetch(process.env.BASE + '/redirect/301/1', { method: 'PUT', body: 'put' });
console.log(r.status, (await r.text()).split('\n')[0]);
r = await fetch(process.env.BASE + '/redirect/308/1', { method: 'PUT', body: 'put' });
console.log(r.status, (await r.text()).split('\n')[0]);`},
	{"redirect manual and error", `let r = await fetch(process.env.BASE + '/redirect/302/1', { redirect: 'manual' });
console.log(r.status, r.redirected, r.headers.get('location'), r.url.replace(process.env.BASE, ''));
try { await fetch(process.env.BASE + '/redirect/302/1', { redirect: 'error' }); } catch (e) { console.log(String(e), String(e.cause)); }
try { await fetch(process.env.BASE + '/redirect/302/25'); } catch (e) { console.log(String(e), String(e.cause)); }
r = await fetch(process.env.BASE + '/redirect/302/20'); console.log(r.status, r.redirected);
try { new Request(process.env.BASE, { redirect: 'sometimes' }); } catch (e) { console.log(String(e)); }`},
	{"streaming body", `const r = await fetch(process.env.BASE + '/stream?n=10&size=100000');
const reader = r.body.getReader();
let total = 0, firsts = '', allU8 = true;
for (;;) {
  const { value, done } = await reader.read();
  if (done) break;
  allU8 &&= value instanceof Uint8Array;
  total += value.length;
}
console.log(total, allU8, r.bodyUsed, r.body.locked);
reader.releaseLock();
try { await r.text(); } catch (e) { console.log(String(e)); }
const r2 = await fetch(process.env.BASE + '/stream?n=5&size=3');
let s = '';
for await (const chunk of r2.body) s += new TextDecoder().decode(chunk);
console.log(s);`},
	{"body used twice", `const r = await fetch(process.env.BASE + '/hello');
await r.text();
try { await r.text(); } catch (e) { console.log(String(e)); }
try { await r.json(); } catch (e) { console.log(String(e)); }
const r2 = await fetch(process.env.BASE + '/hello');
const c = r2.clone();
console.log(await r2.text() === await c.text(), r2.bodyUsed, c.bodyUsed);`},
	{"cancel a body", `const r = await fetch(process.env.BASE + '/stream?n=100&size=100000');
const reader = r.body.getReader();
const { value } = await reader.read();
console.log(value[0]);
await reader.cancel();
console.log(await reader.read());`},
	{"gzip", `const r = await fetch(process.env.BASE + '/gzip');
const t = await r.text(); console.log(t.length, t.slice(0, 16));`},
	{"abort before", `const ac = new AbortController(); ac.abort();
try { await fetch(process.env.BASE + '/hello', { signal: ac.signal }); } catch (e) { console.log(String(e), e.name, e instanceof DOMException); }
const ac2 = new AbortController(); ac2.abort('why');
try { await fetch(process.env.BASE + '/hello', { signal: ac2.signal }); } catch (e) { console.log(e); }
try { await fetch(process.env.BASE + '/hello', { signal: AbortSignal.abort(new Error('mine')) }); } catch (e) { console.log(String(e)); }`},
	{"abort while waiting", `const ac = new AbortController();
let n = 0;
ac.signal.addEventListener('abort', () => n++);
ac.signal.onabort = () => n++;
const p = fetch(process.env.BASE + '/hang', { signal: ac.signal });
setTimeout(() => ac.abort(), 20);
try { await p; } catch (e) { console.log(String(e), e.name, n, ac.signal.aborted); }`},
	{"abort by timeout", `try { await fetch(process.env.BASE + '/hang', { signal: AbortSignal.timeout(30) }); } catch (e) { console.log(String(e), e.name, e.code); }`},
	{"abort while reading", `const ac = new AbortController();
const r = await fetch(process.env.BASE + '/hangbody', { signal: ac.signal });
const reader = r.body.getReader();
const { value } = await reader.read();
console.log(new TextDecoder().decode(value));
ac.abort();
try { await reader.read(); } catch (e) { console.log(String(e)); }`},
	{"connection refused", `try { await fetch('http://127.0.0.1:' + process.env.REFUSED + '/'); } catch (e) {
  console.log(String(e), String(e.cause).replace(process.env.REFUSED, 'PORT'), e.cause.code, e.cause.syscall, e.cause.errno, e.cause.address, e.cause.port === Number(process.env.REFUSED));
}`},
	{"bad input", `for (const f of [() => fetch('/relative'), () => fetch('ftp://127.0.0.1/x'), () => fetch(process.env.BASE, { method: 'GET', body: 'x' }),
  () => fetch(process.env.BASE, { method: 'CONNECT' }), () => fetch(process.env.BASE, { method: 'bad method' }), () => fetch('http://u:p@127.0.0.1/')]) {
  try { await f(); console.log('no error'); } catch (e) { console.log(String(e), e.cause === undefined ? '' : e.cause.message); }
}`},
	{"request object", `const req = new Request(process.env.BASE + '/echo?x=1', { method: 'POST', body: 'from a request', headers: { 'x-req': 'yes' } });
console.log(req.method, req.url.replace(process.env.BASE, ''), req.headers.get('content-type'), req.redirect, req.bodyUsed, req.signal.aborted);
const r = await fetch(req); console.log(await r.text());
const r2 = await fetch(new Request(process.env.BASE + '/echo'), { method: 'PUT', body: 'override' }); console.log(await r2.text());`},
	{"stream request body", `const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('streamed ')); c.enqueue(new TextEncoder().encode('body')); c.close(); } });
try { await fetch(process.env.BASE + '/echo', { method: 'POST', body }); } catch (e) { console.log(String(e)); }
const r = await fetch(process.env.BASE + '/echo', { method: 'POST', body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('ok')); c.close(); } }), duplex: 'half' });
console.log((await r.text()).split('\n')[0]);`},
	{"response constructor", `let r = new Response('abc', { status: 201, statusText: 'Made', headers: { 'X-Y': 'z' } });
console.log(r.status, r.statusText, r.ok, r.type, JSON.stringify(r.url), r.redirected, r.headers.get('content-type'), r.headers.get('x-y'), await r.text());
r = Response.json({ a: [1] }, { status: 202 }); console.log(r.status, r.headers.get('content-type'), await r.json());
r = new Response(null); console.log(r.body, JSON.stringify(await r.text()));
r = new Response(new Uint8Array([65, 66])); console.log(r.headers.get('content-type'), await r.text());
r = Response.error(); console.log(r.status, r.type, r.ok);
r = Response.redirect('http://example.com/x', 301); console.log(r.status, r.headers.get('location'));
for (const f of [() => new Response('x', { status: 204 }), () => new Response('', { status: 99 }), () => Response.redirect('http://x/', 200)]) {
  try { f(); } catch (e) { console.log(String(e)); }
}
const s = new Response(new ReadableStream({ start(c) { c.enqueue(new Uint8Array([104, 105])); c.close(); } }));
console.log(await s.text());`},
	{"abort signal", `const s = AbortSignal.abort();
console.log(s.aborted, String(s.reason), s.reason.name);
try { s.throwIfAborted(); } catch (e) { console.log(e.name); }
const ac = new AbortController(); console.log(ac.signal.aborted, ac.signal.reason);
ac.abort(); ac.abort('second'); console.log(ac.signal.aborted, ac.signal.reason.name);
const any = AbortSignal.any([new AbortController().signal, AbortSignal.abort('x')]); console.log(any.aborted, any.reason);
try { new AbortSignal(); } catch (e) { console.log(String(e)); }
const t = AbortSignal.timeout(10); const keep = setTimeout(() => {}, 60000); await new Promise((r) => t.addEventListener('abort', r)); clearTimeout(keep);
console.log(t.aborted, t.reason.name, t.reason.message);`},
	{"concurrent", `const rs = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((i) => fetch(process.env.BASE + '/echo?i=' + i).then((r) => r.text())));
console.log(rs.map((t) => t.split('\n')[0]).join(', '));`},
	{"unhandled failure exits 1", `await fetch('http://127.0.0.1:' + process.env.REFUSED + '/');`},
	{"exit code from status", `const r = await fetch(process.env.BASE + '/status/500'); process.exitCode = r.ok ? 0 : 3; console.log(r.status);`},
}

// TestFetch_node runs fetchScripts under Node 20 and here, against one
// loopback server (Job.Net is a plain http.Transport), and compares stdout
// and the exit code.
func TestFetch_node(t *testing.T) {
	nodeBinary(t)
	srv := fetchServer(t)
	refused := testenv.ClosedPort(t)
	env := map[string]string{"BASE": srv.URL, "REFUSED": strconv.Itoa(refused)}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	b := newBackend(t, Options{})
	for _, sc := range fetchScripts {
		t.Run(sc.name, func(t *testing.T) {
			nout, nerr, ncode := runNode(t, t.TempDir(), sc.src, "", []string{"BASE=" + srv.URL, "REFUSED=" + strconv.Itoa(refused), "NODE_NO_WARNINGS=1"})
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			got := runFetchJS(ctx, b, newStore(t, nil), sc.src, env, tr)
			diffLines(t, "stdout", got.stdout, nout)
			exit := got.exit
			if got.err != nil && exit == 0 {
				exit = 1 // a failed execution; node exits 1
			}
			if exit != ncode {
				t.Errorf("exit: desk %d (err %v), node %d\ndesk stderr: %s\nnode stderr: %s", got.exit, got.err, ncode, got.stderr, nerr)
			}
		})
	}
}

// countingTransport counts the requests that reach the network.
type countingTransport struct {
	n  atomic.Int64
	rt http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

// refusingTransport answers every request as the egress policy answers a
// refused one: 403 and a body saying why.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	body := "desk egress: " + r.URL.Host + " is not allowed by the workspace's policy\n"
	return &http.Response{StatusCode: 403, Status: "403 Forbidden", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/plain"}}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}

// TestFetch_limits checks what only this backend has: no network, the
// policy's refusal, the memory limit on bodies, MaxFetches,
// MaxFetchBodyBytes, and that a kill ends requests in flight.
func TestFetch_limits(t *testing.T) {
	srv := fetchServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	env := map[string]string{"BASE": srv.URL}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	t.Run("no network", func(t *testing.T) {
		b := newBackend(t, Options{})
		got := runFetchJS(ctx, b, newStore(t, nil), `try { await fetch(process.env.BASE + '/hello'); } catch (e) { console.log(e.name, e.code, e.message, '|', String(e.cause)); }`, env, nil)
		want := fmt.Sprintf("TypeError ERR_DESK_NO_NETWORK fetch failed: GET %s/hello: %v | Error: GET %s/hello: %v\n", srv.URL, run.ErrNoNetwork, srv.URL, run.ErrNoNetwork)
		if got.stdout != want || got.err != nil {
			t.Fatalf("got %q (err %v, stderr %s), want %q", got.stdout, got.err, got.stderr, want)
		}
	})
	t.Run("refused by the policy", func(t *testing.T) {
		b := newBackend(t, Options{})
		got := runFetchJS(ctx, b, newStore(t, nil), `const r = await fetch('http://blocked.example/x'); console.log(r.status, r.ok, await r.text());`, env, refusingTransport{})
		if want := "403 false desk egress: blocked.example is not allowed by the workspace's policy\n\n"; got.stdout != want {
			t.Fatalf("got %q (%v %s), want %q", got.stdout, got.err, got.stderr, want)
		}
	})
	t.Run("a body bigger than the memory limit", func(t *testing.T) {
		b := newBackend(t, Options{MaxMemory: 16 << 20})
		got := runFetchJS(ctx, b, newStore(t, nil), `const r = await fetch(process.env.BASE + '/stream?n=400&size=65536'); const t = await r.text(); console.log(t.length);`, env, tr)
		if got.err == nil || !strings.Contains(got.stderr, "MaxMemory") {
			t.Fatalf("want the memory limit; got err %v, stdout %q, stderr %q", got.err, got.stdout, got.stderr)
		}
	})
	t.Run("streaming a body bigger than the memory limit", func(t *testing.T) {
		b := newBackend(t, Options{MaxMemory: 16 << 20})
		got := runFetchJS(ctx, b, newStore(t, nil), `const r = await fetch(process.env.BASE + '/stream?n=400&size=65536'); let n = 0; for await (const c of r.body) n += c.length; console.log(n);`, env, tr)
		if got.err != nil || got.stdout != "26214400\n" {
			t.Fatalf("got %q, err %v, stderr %q", got.stdout, got.err, got.stderr)
		}
	})
	t.Run("unread bodies past MaxFetches are dropped", func(t *testing.T) {
		b := newBackend(t, Options{MaxFetches: 3})
		got := runFetchJS(ctx, b, newStore(t, nil), `const rs = [];
for (let i = 0; i < 10; i++) rs.push(await fetch(process.env.BASE + '/hello'));
console.log(rs.map((r) => r.status).join(' '));
console.log(JSON.stringify(await rs[9].text()));
try { await rs[0].text(); } catch (e) { console.log(String(e), e.cause.code); }`, env, tr)
		want := "200 200 200 200 200 200 200 200 200 200\n\"hello, world\\n\"\nTypeError: terminated ERR_DESK_FETCH_DROPPED\n"
		if got.err != nil || got.stdout != want {
			t.Fatalf("got %q, err %v, stderr %q", got.stdout, got.err, got.stderr)
		}
	})
	t.Run("MaxFetches", func(t *testing.T) {
		b := newBackend(t, Options{MaxFetches: 3})
		got := runFetchJS(ctx, b, newStore(t, nil), `await Promise.all([1, 2, 3, 4].map(() => fetch(process.env.BASE + '/hang')));`, env, tr)
		if got.err == nil || !strings.Contains(got.stderr, "limit exceeded: MaxFetches (3 fetches in flight)") {
			t.Fatalf("got err %v, stderr %q", got.err, got.stderr)
		}
		// Three finished fetches free their places.
		got = runFetchJS(ctx, b, newStore(t, nil), `for (let i = 0; i < 10; i++) await (await fetch(process.env.BASE + '/hello')).text(); console.log('ok');`, env, tr)
		if got.err != nil || got.stdout != "ok\n" {
			t.Fatalf("got %q, err %v, stderr %q", got.stdout, got.err, got.stderr)
		}
	})
	t.Run("MaxFetchBodyBytes", func(t *testing.T) {
		b := newBackend(t, Options{MaxFetchBodyBytes: 1000})
		ct := &countingTransport{rt: tr}
		got := runFetchJS(ctx, b, newStore(t, nil), `await fetch(process.env.BASE + '/echo', { method: 'POST', body: 'x'.repeat(1001) });`, env, ct)
		if got.err == nil || !strings.Contains(got.stderr, "MaxFetchBodyBytes (1000 bytes of one request body)") || ct.n.Load() != 0 {
			t.Fatalf("got err %v, stderr %q, %d requests sent", got.err, got.stderr, ct.n.Load())
		}
	})
	t.Run("kill ends a request in flight", func(t *testing.T) {
		b := newBackend(t, Options{})
		kctx, kcancel := context.WithCancel(ctx)
		seen := make(chan struct{})
		var once atomic.Bool
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if once.CompareAndSwap(false, true) {
				close(seen)
			}
			return tr.RoundTrip(r)
		})
		go func() { <-seen; kcancel() }()
		got := runFetchJS(kctx, b, newStore(t, nil), `await fetch(process.env.BASE + '/hang'); console.log('not reached');`, env, rt)
		if got.stdout != "" || kctx.Err() == nil {
			t.Fatalf("got %q err %v", got.stdout, got.err)
		}
	})
	t.Run("an unread body does not keep the execution alive", func(t *testing.T) {
		b := newBackend(t, Options{})
		got := runFetchJS(ctx, b, newStore(t, nil), `const r = await fetch(process.env.BASE + '/hangbody'); console.log(r.status);`, env, tr)
		if got.err != nil || got.stdout != "200\n" {
			t.Fatalf("got %q, err %v, stderr %q", got.stdout, got.err, got.stderr)
		}
	})
}

// roundTripFunc is a function as an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

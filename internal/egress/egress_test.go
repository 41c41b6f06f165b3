package egress

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) Policy {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return p
}

func TestParse_roundTrip(t *testing.T) {
	for _, s := range []string{
		"none", "all",
		"allow registry.npmjs.org",
		"allow *.github.com:443; 127.0.0.1:8080,9090",
		"allow [::1]:8080",
		"allow api.example.com:80/v1/,/v2/ GET,HEAD",
		"allow registry.test=127.0.0.1:8080; v6.test=[::1]",
	} {
		p := mustParse(t, s)
		if got := p.String(); got != s {
			t.Errorf("Parse(%q).String() = %q", s, got)
		}
		if q := mustParse(t, p.String()); q.String() != s {
			t.Errorf("round trip of %q: %q", s, q.String())
		}
	}
	j := mustParse(t, `{"mode":"allow","rules":[{"host":"Example.COM.","ports":[443,80,443]}]}`)
	if j.String() != "allow example.com:80,443" {
		t.Errorf("JSON form normalized to %q", j.String())
	}
}

func TestParse_errors(t *testing.T) {
	for _, s := range []string{
		"some", "allow *", "allow *.", "allow a..b", "allow a.com:0", "allow a.com:70000", "allow a.com:x",
		"allow a.com/no?query", "allow a.com GE T", "allow a.com CONNECT", `{"mode":"all","rules":[{"host":"a.com"}]}`,
		"allow [::1", "allow fe80::1%eth0", "allow a b.com", "allow a.com=x", "allow *.a.com=127.0.0.1", "allow 127.0.0.2=127.0.0.1",
	} {
		if _, err := Parse(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q) = %v, want ErrInvalid", s, err)
		}
	}
}

func target(hostport, method, path string) Target {
	h, p, err := splitHostPort(hostport, 0)
	if err != nil {
		panic(err)
	}
	return Target{Host: h, Port: p, Method: method, Path: path}
}

func TestCheck(t *testing.T) {
	n, err := New(Options{Workspace: "w", InterfaceAddrs: func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("203.0.113.7")} }})
	if err != nil {
		t.Fatal(err)
	}
	ws := func(s string) *Client { return n.Client(Layer{"the workspace's policy", mustParse(t, s)}) }
	cases := []struct {
		c      *Client
		t      Target
		ok     bool
		reason string
	}{
		{ws("none"), target("example.com:443", "", ""), false, "no request is allowed"},
		{n.Client(), target("example.com:443", "", ""), false, "no network"},
		{ws("all"), target("example.com:8443", "", ""), true, ""},
		{ws("allow example.com"), target("example.com:443", "", ""), true, ""},
		{ws("allow example.com"), target("example.com:80", "GET", "/"), true, ""},
		{ws("allow example.com"), target("example.com:8080", "GET", "/"), false, "allows other ports"},
		{ws("allow example.com"), target("www.example.com:443", "", ""), false, "host www.example.com is not allowed"},
		{ws("allow *.example.com"), target("a.b.example.com:443", "", ""), true, ""},
		{ws("allow *.example.com"), target("example.com:443", "", ""), false, "not allowed"},
		{ws("allow *.example.com"), target("badexample.com:443", "", ""), false, "not allowed"},
		{ws("allow api.example.com:80/v1/ GET"), target("api.example.com:80", "GET", "/v1/x"), true, ""},
		{ws("allow api.example.com:80/v1/ GET"), target("api.example.com:80", "POST", "/v1/x"), false, "other methods"},
		{ws("allow api.example.com:80/v1/ GET"), target("api.example.com:80", "GET", "/v2/x"), false, "other paths"},
		{ws("allow api.example.com:80/v1/ GET"), target("api.example.com:80", "", ""), false, "a tunnel"},
		// The host's own addresses: refused under all, allowed by an exact rule.
		{ws("all"), target("127.0.0.1:8080", "", ""), false, "loopback"},
		{ws("all"), target("[::1]:8080", "", ""), false, "loopback"},
		{ws("all"), target("169.254.169.254:80", "GET", "/"), false, "link-local"},
		{ws("all"), target("10.1.2.3:80", "GET", "/"), false, "private"},
		{ws("all"), target("192.168.0.1:80", "GET", "/"), false, "private"},
		{ws("all"), target("[fd00::1]:80", "GET", "/"), false, "private"},
		{ws("all"), target("[::ffff:127.0.0.1]:80", "GET", "/"), false, "loopback"},
		{ws("all"), target("[64:ff9b::a9fe:a9fe]:80", "GET", "/"), false, "NAT64"},
		{ws("all"), target("0.0.0.0:80", "GET", "/"), false, "unspecified"},
		{ws("all"), target("203.0.113.7:80", "GET", "/"), false, "interfaces"},
		{ws("allow 127.0.0.1:8080"), target("127.0.0.1:8080", "", ""), true, ""},
		{ws("allow 127.0.0.1:8080"), target("127.0.0.1:8081", "", ""), false, "other ports"},
		{ws("allow 127.0.0.1:8080"), target("127.0.0.2:8080", "", ""), false, "not allowed"},
		// Narrowing: a later layer can refuse, never allow more.
		{ws("all").Narrow("the token's policy", mustParse(t, "allow example.com")), target("example.org:443", "", ""), false, "by the token's policy"},
		{ws("allow example.com").Narrow("the token's policy", mustParse(t, "all")), target("example.org:443", "", ""), false, "by the workspace's policy"},
		{ws("allow example.com").Narrow("the execution's policy", mustParse(t, "none")), target("example.com:443", "", ""), false, "by the execution's policy"},
		{ws("allow example.com").Narrow("the execution's policy", mustParse(t, "allow example.com:443")), target("example.com:443", "", ""), true, ""},
		// A narrowing layer that names an address exactly does not lift the refusal.
		{ws("all").Narrow("the execution's policy", mustParse(t, "allow 169.254.169.254")), target("169.254.169.254:80", "GET", "/"), false, "link-local"},
		{ws("allow 127.0.0.1:80").Narrow("the execution's policy", mustParse(t, "all")), target("127.0.0.1:80", "GET", "/"), true, ""},
	}
	for i, c := range cases {
		err := c.c.Check(c.t)
		if c.ok != (err == nil) {
			t.Errorf("%d: %v under %v: %v, want ok=%v", i, c.t, c.c.Layers(), err, c.ok)
			continue
		}
		if err != nil {
			var d *Denied
			if !errors.As(err, &d) {
				t.Errorf("%d: %T, want *Denied", i, err)
				continue
			}
			msg := d.Error()
			if !strings.Contains(msg, c.reason) || !strings.Contains(msg, c.t.Host) {
				t.Errorf("%d: %v: %q lacks %q or the host", i, c.t, msg, c.reason)
			}
		}
	}
}

// upstream is an HTTP server on loopback that echoes what it received.
func upstream(t *testing.T, tlsToo bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s auth=%s x=%s", r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), r.Header.Get("X-Token"))
	})
	var s *httptest.Server
	if tlsToo {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

func hostPort(t *testing.T, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// fakeResolver answers every name with one address.
type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func get(t *testing.T, rt http.RoundTripper, u string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestClient_roundTrip(t *testing.T) {
	up := upstream(t, false)
	other := upstream(t, false)
	hp := hostPort(t, up.URL)
	n, err := New(Options{Workspace: "w", Resolver: fakeResolver{"rebind.test": "127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := n.Client(Layer{"the workspace's policy", mustParse(t, "allow "+hp+"; rebind.test:"+strings.Split(hp, ":")[1])})
	if code, body := get(t, c, up.URL+"/x?y=1"); code != 200 || body != "GET /x?y=1 auth= x=" {
		t.Fatalf("allowed: %d %q", code, body)
	}
	code, body := get(t, c, other.URL+"/x")
	if code != 403 || !strings.Contains(body, "host 127.0.0.1 is named, but rule") || !strings.Contains(body, "desk ws policy w --allow '"+hostPort(t, other.URL)+"'") {
		t.Fatalf("other port: %d %q", code, body)
	}
	// DNS rebinding: the name is allowed, its address is the host's.
	code, body = get(t, c, "http://rebind.test:"+strings.Split(hp, ":")[1]+"/")
	if code != 403 || !strings.Contains(body, "rebind.test resolves to 127.0.0.1") {
		t.Fatalf("rebinding: %d %q", code, body)
	}
	// Under all, loopback is refused.
	all := n.Client(Layer{"the workspace's policy", mustParse(t, "all")})
	if code, body := get(t, all, up.URL); code != 403 || !strings.Contains(body, "loopback") {
		t.Fatalf("all to loopback: %d %q", code, body)
	}
	if _, err := c.RoundTrip(httptest.NewRequest("GET", "ftp://x/", nil)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("ftp: %v", err)
	}
	if n.Denials() != 3 {
		t.Errorf("denials %d, want 3", n.Denials())
	}
	// A name pinned to an address by the workspace's rule: no resolution,
	// and the rule names the address exactly.
	port := strings.Split(hp, ":")[1]
	pinned := n.Client(Layer{"the workspace's policy", mustParse(t, "allow up.test=127.0.0.1:"+port)})
	if code, body := get(t, pinned, "http://up.test:"+port+"/p"); code != 200 || body != "GET /p auth= x=" {
		t.Fatalf("pinned: %d %q", code, body)
	}
	// A narrowing layer's pin is ignored: the name is resolved (and refused).
	narrowPin := all.Narrow("the execution's policy", mustParse(t, "allow rebind.test=127.0.0.1:"+port))
	if code, body := get(t, narrowPin, "http://rebind.test:"+port+"/"); code != 403 || !strings.Contains(body, "resolves to 127.0.0.1") {
		t.Fatalf("narrowing pin: %d %q", code, body)
	}
}

func TestClient_httpsAndSecrets(t *testing.T) {
	up := upstream(t, true)
	plain := upstream(t, false)
	pool := up.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	n, err := New(Options{RootCAs: pool})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := n.Client(Layer{"ws", mustParse(t, "allow "+hostPort(t, up.URL)+"; "+hostPort(t, plain.URL))}).
		WithSecrets([]Secret{{Name: "T", Placeholder: "desk-secret-T-1234", Value: "s3cr3t", Hosts: []Rule{{Host: "127.0.0.1"}}}})
	code, body := get(t, c, up.URL+"/q?k=desk-secret-T-1234", "Authorization", "Bearer desk-secret-T-1234")
	if code != 200 || body != "GET /q?k=s3cr3t auth=Bearer s3cr3t x=" {
		t.Fatalf("https with secret: %d %q", code, body)
	}
	// Basic credentials carry the placeholder base64-encoded.
	req, _ := http.NewRequest("GET", plain.URL+"/", nil)
	req.SetBasicAuth("x", "desk-secret-T-1234")
	resp, err := c.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := httptest.NewRequest("GET", "/", nil)
	want.SetBasicAuth("x", "s3cr3t")
	if !strings.Contains(string(b), want.Header.Get("Authorization")) {
		t.Fatalf("basic: %q", b)
	}
	// Bound to another host: the placeholder stays.
	c2 := n.Client(Layer{"ws", mustParse(t, "allow "+hostPort(t, plain.URL))}).
		WithSecrets([]Secret{{Name: "T", Placeholder: "desk-secret-T-1234", Value: "s3cr3t", Hosts: []Rule{{Host: "api.example.com"}}}})
	if code, body := get(t, c2, plain.URL+"/", "X-Token", "desk-secret-T-1234"); code != 200 || body != "GET / auth= x=desk-secret-T-1234" {
		t.Fatalf("unbound: %d %q", code, body)
	}
}

// proxyServer serves a Proxy on loopback whose credential "good" is c.
func proxyServer(t *testing.T, c *Client) string {
	p := NewProxy(func(cred string) http.RoundTripper {
		if cred == "good" {
			return c
		}
		return nil
	}, nil)
	s := httptest.NewServer(p)
	t.Cleanup(s.Close)
	return s.URL
}

func TestProxy(t *testing.T) {
	up := upstream(t, false)
	tup := upstream(t, true)
	other := upstream(t, true)
	n, err := New(Options{Workspace: "w"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := n.Client(Layer{"the workspace's policy", mustParse(t, "allow "+hostPort(t, up.URL)+"; "+hostPort(t, tup.URL))})
	purl, _ := url.Parse(proxyServer(t, c))
	client := func(user *url.Userinfo) *http.Client {
		u := *purl
		u.User = user
		tr := tup.Client().Transport.(*http.Transport).Clone()
		tr.Proxy = http.ProxyURL(&u)
		return &http.Client{Transport: tr}
	}
	good := client(url.UserPassword("desk", "good"))
	for _, u := range []string{up.URL + "/plain", tup.URL + "/tls"} {
		resp, err := good.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "GET /") {
			t.Fatalf("GET %s: %d %q", u, resp.StatusCode, b)
		}
	}
	// A refused tunnel: 403 with the explanation (read as a raw CONNECT).
	status, body := rawConnect(t, purl.Host, hostPort(t, other.URL), "good")
	if status != 403 || !strings.Contains(body, "CONNECT "+hostPort(t, other.URL)) || !strings.Contains(body, "to allow it: ") {
		t.Fatalf("refused CONNECT: %d %q", status, body)
	}
	// A refused plain request.
	resp, err := good.Get("http://" + hostPort(t, other.URL) + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("X-Desk-Egress") != "refused" || !strings.Contains(string(b), "host 127.0.0.1 is named, but") {
		t.Fatalf("refused GET: %d %q", resp.StatusCode, b)
	}
	// No credential, or a wrong one: 407.
	for _, cl := range []*http.Client{client(nil), client(url.UserPassword("desk", "bad"))} {
		resp, err := cl.Get(up.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 407 {
			t.Fatalf("without credential: %d", resp.StatusCode)
		}
	}
	if status, _ := rawConnect(t, purl.Host, hostPort(t, tup.URL), ""); status != 407 {
		t.Fatalf("CONNECT without credential: %d", status)
	}
}

// rawConnect sends CONNECT target through the proxy at addr and returns the
// answer's status and body.
func rawConnect(t *testing.T, addr, target, cred string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := &http.Request{Method: "CONNECT", URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
	if cred != "" {
		u := url.UserPassword("desk", cred)
		req.Header.Set("Proxy-Authorization", "Basic "+basic(u))
	}
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func basic(u *url.Userinfo) string {
	r := httptest.NewRequest("GET", "/", nil)
	p, _ := u.Password()
	r.SetBasicAuth(u.Username(), p)
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")
}

func TestLimits_conns(t *testing.T) {
	up := upstream(t, true)
	n, err := New(Options{MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	c := n.Client(Layer{"ws", mustParse(t, "allow "+hostPort(t, up.URL))})
	a, err := c.Tunnel(context.Background(), hostPort(t, up.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Tunnel(context.Background(), hostPort(t, up.URL)); !errors.Is(err, ErrTooManyConns) {
		t.Fatalf("second tunnel: %v, want ErrTooManyConns", err)
	}
	a.Close()
	a.Close() // a second Close gives no second slot back
	b, err := c.Tunnel(context.Background(), hostPort(t, up.URL))
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	// The tunnel carries TLS end to end.
	cfg := up.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	cfg.ServerName = "127.0.0.1"
	tc := tls.Client(b, cfg)
	defer tc.Close()
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{MaxConns: -1}); !errors.Is(err, ErrInvalid) {
		t.Fatal("negative limit accepted")
	}
}

func TestProxy_terminatesForSecrets(t *testing.T) {
	bound := upstream(t, true)
	other := upstream(t, true)
	upPool := bound.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	n, err := New(Options{RootCAs: upPool})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	ca, pemData, err := NewCA("w")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := ParseCA(pemData); err != nil || !bytes.Equal(again.PEM(), ca.PEM()) {
		t.Fatalf("ParseCA: %v", err)
	}
	bp, op := hostPort(t, bound.URL), hostPort(t, other.URL)
	c := n.Client(Layer{"ws", mustParse(t, "allow example.com="+bp+"; "+op)}).
		WithSecrets([]Secret{{Name: "T", Placeholder: "desk-secret-T-9", Value: "v4lue", Hosts: []Rule{{Host: "example.com"}}}}).WithCA(ca)
	purl, _ := url.Parse(proxyServer(t, c))
	purl.User = url.UserPassword("desk", "good")
	pool := upPool.Clone()
	pool.AppendCertsFromPEM(c.CAPEM())
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(purl), TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(u string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Authorization", "Bearer desk-secret-T-9")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	// The bound host: desk terminates TLS (its CA's certificate) and puts the value in.
	resp, body := get("https://example.com:" + strings.Split(bp, ":")[1] + "/a?k=desk-secret-T-9")
	if body != "GET /a?k=v4lue auth=Bearer v4lue x=" || !strings.Contains(resp.TLS.PeerCertificates[0].Issuer.CommonName, "desk egress CA") {
		t.Fatalf("bound: %q, issuer %q", body, resp.TLS.PeerCertificates[0].Issuer.CommonName)
	}
	// A second request on the same terminated connection.
	if _, body := get("https://example.com:" + strings.Split(bp, ":")[1] + "/b"); body != "GET /b auth=Bearer v4lue x=" {
		t.Fatalf("bound, again: %q", body)
	}
	// Another host: tunnelled untouched (its own certificate, the placeholder).
	resp, body = get(other.URL + "/c")
	if body != "GET /c auth=Bearer desk-secret-T-9 x=" || strings.Contains(resp.TLS.PeerCertificates[0].Issuer.CommonName, "desk") {
		t.Fatalf("other: %q, issuer %q", body, resp.TLS.PeerCertificates[0].Issuer.CommonName)
	}
}

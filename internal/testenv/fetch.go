package testenv

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// Fetch sends a bodiless request (method) to u with the headers hdr (name,
// value pairs) through http.DefaultClient, and returns the response with
// its body read. A request or read that fails fails the test.
func Fetch(t testing.TB, method, u string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// Tool runs a host program (an oracle: GNU tar, Info-ZIP, curl...) in dir
// with stdin, and returns its standard output. A missing program, or one
// that fails, fails the test, with what it wrote to its standard error.
func Tool(t testing.TB, dir string, stdin []byte, name string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is needed as the oracle: %v", name, err)
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// Headers returns a RoundTripper that sends each request through next
// (nil: http.DefaultTransport) with the headers hdr (name, value pairs)
// set on a copy of it: a client's credentials ("Authorization", "Bearer
// "+token) and labels.
func Headers(next http.RoundTripper, hdr ...string) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return headers{next, hdr}
}

type headers struct {
	next http.RoundTripper
	hdr  []string
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for i := 0; i+1 < len(h.hdr); i += 2 {
		r.Header.Set(h.hdr[i], h.hdr[i+1])
	}
	return h.next.RoundTrip(r)
}

package egress

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkProxy_Download: 100 MiB by curl on the host through the proxy
// (over TCP loopback, no sandbox) against curl straight to the upstream, in
// the same run: the proxy's own cost.
func BenchmarkProxy_Download(b *testing.B) {
	if _, err := exec.LookPath("curl"); err != nil {
		b.Skip("no curl")
	}
	const size = 100 << 20
	chunk := make([]byte, 1<<20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		for i := 0; i < size/len(chunk); i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	for _, c := range []struct {
		name string
		bw   int64
	}{{"default-limit", 0}, {"no-limit", 1 << 40}} {
		b.Run(c.name, func(b *testing.B) {
			proxy := benchProxy(b, Options{Bandwidth: c.bw}, up.URL)
			var via, direct time.Duration
			for b.Loop() {
				via += curlTime(b, "-x", proxy, up.URL+"/big")
				direct += curlTime(b, "--noproxy", "*", up.URL+"/big")
			}
			nn := float64(b.N)
			b.ReportMetric(size/(1<<20)/(via.Seconds()/nn), "proxy-MiB/s")
			b.ReportMetric(size/(1<<20)/(direct.Seconds()/nn), "direct-MiB/s")
			b.ReportMetric(float64(direct)/float64(via), "throughput-ratio")
		})
	}
}

// BenchmarkProxy_SmallGETs: 1,000 GETs by one curl on the host through the
// proxy against curl straight to the upstream: the time the proxy adds.
func BenchmarkProxy_SmallGETs(b *testing.B) {
	if _, err := exec.LookPath("curl"); err != nil {
		b.Skip("no curl")
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer up.Close()
	proxy := benchProxy(b, Options{}, up.URL)
	var via, direct time.Duration
	for b.Loop() {
		via += curlTime(b, "-x", proxy, up.URL+"/x[1-1000]")
		direct += curlTime(b, "--noproxy", "*", up.URL+"/x[1-1000]")
	}
	nn := float64(b.N)
	b.ReportMetric(via.Seconds()*1e3/nn, "proxy-ms/1000req")
	b.ReportMetric(direct.Seconds()*1e3/nn, "direct-ms/1000req")
	b.ReportMetric((via-direct).Seconds()*1e6/nn/1000, "added-µs/req")
}

// benchProxy starts a Network with o and a proxy over its client for a
// workspace allowed to reach upstream's host, both closed when b ends, and
// returns the proxy's URL for curl -x.
func benchProxy(b *testing.B, o Options, upstream string) string {
	n, err := New(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	u, _ := url.Parse(upstream)
	p, err := Parse("allow " + u.Host)
	if err != nil {
		b.Fatal(err)
	}
	cl := n.Client(Layer{"ws", p})
	ps := httptest.NewServer(NewProxy(func(string) http.RoundTripper { return cl }, nil))
	b.Cleanup(ps.Close)
	pu, _ := url.Parse(ps.URL)
	return "http://desk:x@" + pu.Host
}

// curlTime runs curl (silent, failing on an HTTP error, output discarded)
// with args and returns how long it took.
func curlTime(b *testing.B, args ...string) time.Duration {
	t0 := time.Now()
	if out, err := exec.Command("curl", append([]string{"-sf", "-o", "/dev/null"}, args...)...).CombinedOutput(); err != nil {
		b.Fatalf("curl %v: %v %s", args, err, out)
	}
	return time.Since(t0)
}

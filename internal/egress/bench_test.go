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
			n, err := New(Options{Bandwidth: c.bw})
			if err != nil {
				b.Fatal(err)
			}
			defer n.Close()
			u, _ := url.Parse(up.URL)
			p, _ := Parse("allow " + u.Host)
			cl := n.Client(Layer{"ws", p})
			ps := httptest.NewServer(NewProxy(func(string) http.RoundTripper { return cl }, nil))
			defer ps.Close()
			pu, _ := url.Parse(ps.URL)
			run := func(args ...string) time.Duration {
				t0 := time.Now()
				if out, err := exec.Command("curl", append([]string{"-sf", "-o", "/dev/null"}, args...)...).CombinedOutput(); err != nil {
					b.Fatalf("curl %v: %v %s", args, err, out)
				}
				return time.Since(t0)
			}
			var via, direct time.Duration
			for b.Loop() {
				via += run("-x", "http://desk:x@"+pu.Host, up.URL+"/big")
				direct += run("--noproxy", "*", up.URL+"/big")
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
	n, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	u, _ := url.Parse(up.URL)
	p, _ := Parse("allow " + u.Host)
	cl := n.Client(Layer{"ws", p})
	ps := httptest.NewServer(NewProxy(func(string) http.RoundTripper { return cl }, nil))
	defer ps.Close()
	pu, _ := url.Parse(ps.URL)
	run := func(args ...string) time.Duration {
		t0 := time.Now()
		if out, err := exec.Command("curl", append([]string{"-sf", "-o", "/dev/null"}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("curl %v: %v %s", args, err, out)
		}
		return time.Since(t0)
	}
	var via, direct time.Duration
	for b.Loop() {
		via += run("-x", "http://desk:x@"+pu.Host, up.URL+"/x[1-1000]")
		direct += run("--noproxy", "*", up.URL+"/x[1-1000]")
	}
	nn := float64(b.N)
	b.ReportMetric(via.Seconds()*1e3/nn, "proxy-ms/1000req")
	b.ReportMetric(direct.Seconds()*1e3/nn, "direct-ms/1000req")
	b.ReportMetric((via-direct).Seconds()*1e6/nn/1000, "added-µs/req")
}

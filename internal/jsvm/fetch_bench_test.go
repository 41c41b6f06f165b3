package jsvm

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/egress"
)

// fetchBenchServer serves /small (2 bytes) and /big (size bytes).
func fetchBenchServer(b *testing.B, size int) *httptest.Server {
	chunk := make([]byte, 1<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/small" {
			io.WriteString(w, "ok")
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(size))
		for left := size; left > 0; left -= len(chunk) {
			if _, err := w.Write(chunk[:min(left, len(chunk))]); err != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// fetchNets are the networks the benchmarks compare: a plain transport
// (direct) and desk's egress Client over one (a policy naming the
// server's address exactly).
func fetchNets(b *testing.B, srv *httptest.Server) map[string]http.RoundTripper {
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	b.Cleanup(tr.CloseIdleConnections)
	n, err := egress.New(egress.Options{Bandwidth: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { n.Close() })
	u, _ := neturl.Parse(srv.URL)
	p, err := egress.Parse("allow " + u.Host)
	if err != nil {
		b.Fatal(err)
	}
	return map[string]http.RoundTripper{"direct": tr, "egress": n.Client(egress.Layer{Source: "ws", Policy: p})}
}

// BenchmarkFetch_smallGETs: 1,000 sequential small GETs by js fetch,
// against the same 1,000 by Go's http.Client on the same network in the
// same run (fetch's own cost per request: the engine, the host calls, the
// event loop), directly and through the egress Client.
func BenchmarkFetch_smallGETs(b *testing.B) {
	const n = 1000
	srv := fetchBenchServer(b, 0)
	be := newBackend(b, Options{})
	src := fmt.Sprintf("for (let i = 0; i < %d; i++) await (await fetch(process.env.BASE + '/small')).text();", n)
	for name, nt := range fetchNets(b, srv) {
		b.Run(name, func(b *testing.B) {
			cl := &http.Client{Transport: nt}
			var js, gohttp time.Duration
			for b.Loop() {
				t0 := time.Now()
				res := runFetchJS(context.Background(), be, newStore(b, nil), src, map[string]string{"BASE": srv.URL}, nt)
				js += time.Since(t0)
				if res.err != nil {
					b.Fatalf("%v %s", res.err, res.stderr)
				}
				t0 = time.Now()
				for range n {
					r, err := cl.Get(srv.URL + "/small")
					if err != nil {
						b.Fatal(err)
					}
					io.Copy(io.Discard, r.Body)
					r.Body.Close()
				}
				gohttp += time.Since(t0)
			}
			per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N*n) }
			b.ReportMetric(per(js), "fetch-µs/req")
			b.ReportMetric(per(gohttp), "go-µs/req")
			b.ReportMetric(per(js)/per(gohttp), "ratio")
		})
	}
}

// BenchmarkFetch_download: 100 MiB read by js fetch chunk by chunk (for
// await over Response.body), against Go's io.Copy of the same response on
// the same network, directly and through the egress Client.
func BenchmarkFetch_download(b *testing.B) {
	const size = 100 << 20
	srv := fetchBenchServer(b, size)
	be := newBackend(b, Options{})
	src := "let n = 0; for await (const c of (await fetch(process.env.BASE + '/big')).body) n += c.length; if (n !== " + fmt.Sprint(size) + ") throw new Error('short: ' + n);"
	for name, nt := range fetchNets(b, srv) {
		b.Run(name, func(b *testing.B) {
			cl := &http.Client{Transport: nt}
			var js, gohttp time.Duration
			for b.Loop() {
				t0 := time.Now()
				res := runFetchJS(context.Background(), be, newStore(b, nil), src, map[string]string{"BASE": srv.URL}, nt)
				js += time.Since(t0)
				if res.err != nil {
					b.Fatalf("%v %s", res.err, res.stderr)
				}
				t0 = time.Now()
				r, err := cl.Get(srv.URL + "/big")
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				gohttp += time.Since(t0)
			}
			mibs := func(d time.Duration) float64 { return float64(b.N) * size / (1 << 20) / d.Seconds() }
			b.ReportMetric(mibs(js), "fetch-MiB/s")
			b.ReportMetric(mibs(gohttp), "go-MiB/s")
			b.ReportMetric(mibs(js)/mibs(gohttp), "ratio")
		})
	}
}

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

// fetchVersus times src, run by the js backend against srv, beside goGet,
// the same requests by Go's http.Client, in the same b.Loop, on each
// network of fetchNets; report turns the two totals into metrics.
func fetchVersus(b *testing.B, srv *httptest.Server, src string, goGet func(*http.Client) error, report func(b *testing.B, js, gohttp time.Duration)) {
	be := newBackend(b, Options{})
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
				if err := goGet(cl); err != nil {
					b.Fatal(err)
				}
				gohttp += time.Since(t0)
			}
			report(b, js, gohttp)
		})
	}
}

// goGet reads url's body to its end with cl.
func goGet(cl *http.Client, url string) error {
	r, err := cl.Get(url)
	if err != nil {
		return err
	}
	defer r.Body.Close()
	_, err = io.Copy(io.Discard, r.Body)
	return err
}

// BenchmarkFetch_smallGETs: 1,000 sequential small GETs by js fetch,
// against the same 1,000 by Go's http.Client on the same network in the
// same run (fetch's own cost per request: the engine, the host calls, the
// event loop), directly and through the egress Client.
func BenchmarkFetch_smallGETs(b *testing.B) {
	const n = 1000
	srv := fetchBenchServer(b, 0)
	src := fmt.Sprintf("for (let i = 0; i < %d; i++) await (await fetch(process.env.BASE + '/small')).text();", n)
	fetchVersus(b, srv, src, func(cl *http.Client) error {
		for range n {
			if err := goGet(cl, srv.URL+"/small"); err != nil {
				return err
			}
		}
		return nil
	}, func(b *testing.B, js, gohttp time.Duration) {
		per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N*n) }
		b.ReportMetric(per(js), "fetch-µs/req")
		b.ReportMetric(per(gohttp), "go-µs/req")
		b.ReportMetric(per(js)/per(gohttp), "ratio")
	})
}

// BenchmarkFetch_download: 100 MiB read by js fetch chunk by chunk (for
// await over Response.body), against Go's io.Copy of the same response on
// the same network, directly and through the egress Client.
func BenchmarkFetch_download(b *testing.B) {
	const size = 100 << 20
	srv := fetchBenchServer(b, size)
	src := "let n = 0; for await (const c of (await fetch(process.env.BASE + '/big')).body) n += c.length; if (n !== " + fmt.Sprint(size) + ") throw new Error('short: ' + n);"
	fetchVersus(b, srv, src, func(cl *http.Client) error { return goGet(cl, srv.URL+"/big") }, func(b *testing.B, js, gohttp time.Duration) {
		mibs := func(d time.Duration) float64 { return float64(b.N) * size / (1 << 20) / d.Seconds() }
		b.ReportMetric(mibs(js), "fetch-MiB/s")
		b.ReportMetric(mibs(gohttp), "go-MiB/s")
		b.ReportMetric(mibs(js)/mibs(gohttp), "ratio")
	})
}

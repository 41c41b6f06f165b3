package api_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/audit"
)

// BenchmarkAuditOverhead measures what the audit record adds to an API
// request: two servers in this process, one with an audit journal and one
// without, get the same requests over loopback HTTP, alternately (so that
// both see the same machine load); it reports each one's p50 latency, the
// difference (added-p50-µs) and the journal's size per 100,000 records.
func BenchmarkAuditOverhead(b *testing.B) {
	for _, bc := range []struct {
		name   string
		method string
		path   func(i int) string
		body   string
	}{
		{"stat", "GET", func(i int) string { return fmt.Sprintf("/v1/workspaces/bench/files/f%d?stat=1", i%100) }, ""},
		{"write1KiB", "PUT", func(i int) string { return fmt.Sprintf("/v1/workspaces/bench/files/w%d", i%1000) }, strings.Repeat("x", 1024)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			plain := benchEnv(b, false)
			au := benchEnv(b, true)
			httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			do := func(e *benchServer, i int) time.Duration {
				req, err := http.NewRequest(bc.method, e.url+bc.path(i), strings.NewReader(bc.body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Authorization", "Bearer "+e.token)
				req.Header.Set("X-Desk-Session", "bench-session")
				req.Header.Set("X-Desk-Agent", "bench")
				start := time.Now()
				resp, err := httpc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(start)
				if resp.StatusCode >= 300 {
					b.Fatalf("%s: %d", bc.path(i), resp.StatusCode)
				}
				return d
			}
			for i := range 100 { // warm both
				do(plain, i)
				do(au, i)
			}
			size0 := au.size()
			var n0 int64 = au.records()
			lp, la := make([]time.Duration, b.N), make([]time.Duration, b.N)
			b.ResetTimer()
			for i := range b.N {
				lp[i] = do(plain, i)
				la[i] = do(au, i)
			}
			b.StopTimer()
			slices.Sort(lp)
			slices.Sort(la)
			p50p, p50a := lp[len(lp)/2], la[len(la)/2]
			b.ReportMetric(float64(p50p.Microseconds()), "p50-plain-µs")
			b.ReportMetric(float64(p50a.Microseconds()), "p50-audit-µs")
			b.ReportMetric(float64((p50a-p50p).Nanoseconds())/1e3, "added-p50-µs")
			if n := au.records() - n0; n > 0 {
				b.ReportMetric(float64(au.size()-size0)/float64(n)*100_000/(1<<20), "MiB/100k-records")
			}
		})
	}
}

type benchServer struct {
	url, token string
	st         *audit.Store
}

func (s *benchServer) records() int64 {
	rs, err := s.st.Verify(bg, "bench")
	if err != nil || len(rs.Chains) == 0 {
		return 0
	}
	return rs.Chains[0].Records
}

// size is the journal's bytes on disk, write-ahead log included.
func (s *benchServer) size() int64 {
	var n int64
	for _, p := range []string{s.st.Path(), s.st.Path() + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func benchEnv(b *testing.B, withAudit bool) *benchServer {
	var o envOpts
	var st *audit.Store
	if withAudit {
		o.dir = b.TempDir()
		var err error
		st, err = audit.Open(o.dir+"/"+audit.FileName, audit.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		o.api.Audit = st
	}
	e := newEnvTB(b, o)
	e.mkws("bench")
	_, tok := e.mint("bench", nil, "read", "write")
	for i := range 100 {
		if code, _, _ := e.raw("PUT", fmt.Sprintf("/v1/workspaces/bench/files/f%d", i), tok, strings.NewReader("x")); code >= 300 {
			b.Fatal(code)
		}
	}
	return &benchServer{url: e.url, token: tok, st: st}
}

package api_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/client"
)

// childServer starts a server in a second process (this test binary,
// re-executed: startChildTB) over the data directory dir, killed when b
// ends, creates workspace ws, and returns the child and an admin client.
func childServer(b *testing.B, dir, ws string) (*child, *client.Client) {
	ch := startChildTB(b, dir)
	b.Cleanup(func() {
		if os.Getenv(cpuProfileEnv) != "" {
			ch.cmd.Process.Signal(syscall.SIGTERM) // the child writes its profile
		} else {
			ch.cmd.Process.Kill()
		}
		ch.cmd.Wait()
	})
	c, err := client.New(ch.url, ch.token, client.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.CreateWorkspace(bg, ws); err != nil {
		b.Fatal(err)
	}
	return ch, c
}

// BenchmarkAPI measures stat, small read and small write over HTTP against a
// server running in a second process on loopback (this test binary,
// re-executed), with 8 concurrent clients. It reports requests per second and
// the p50 and p99 latency. Each request is authenticated and, for writes,
// durable when answered.
func BenchmarkAPI(b *testing.B) {
	dir := b.TempDir()
	ch, c := childServer(b, dir, "bench")
	small := strings.Repeat("x", 1024)
	for i := 0; i < 100; i++ {
		if _, err := c.WriteFile(bg, "bench", fmt.Sprintf("f%d", i), strings.NewReader(small), client.WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	do := func(method, path string, body string) error {
		req, err := http.NewRequest(method, ch.url+path, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+ch.token)
		resp, err := httpc.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			return fmt.Errorf("%s %s: %d", method, path, resp.StatusCode)
		}
		return nil
	}
	for _, bc := range []struct {
		name string
		req  func(i int) error
	}{
		{"stat", func(i int) error { return do("GET", fmt.Sprintf("/v1/workspaces/bench/files/f%d?stat=1", i%100), "") }},
		{"read1KiB", func(i int) error { return do("GET", fmt.Sprintf("/v1/workspaces/bench/files/f%d", i%100), "") }},
		{"write1KiB", func(i int) error { return do("PUT", fmt.Sprintf("/v1/workspaces/bench/files/w%d", i%1000), small) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const workers = 8
			lat := make([]time.Duration, b.N)
			var wg sync.WaitGroup
			var next sync.Mutex
			n := 0
			errs := make(chan error, workers)
			b.ResetTimer()
			start := time.Now()
			for w := 0; w < workers; w++ {
				wg.Go(func() {
					for {
						next.Lock()
						i := n
						n++
						next.Unlock()
						if i >= b.N {
							return
						}
						t0 := time.Now()
						if err := bc.req(i); err != nil {
							errs <- err
							return
						}
						lat[i] = time.Since(t0)
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
			b.ReportMetric(float64(lat[b.N/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[b.N*99/100].Microseconds()), "p99-µs")
		})
	}
}

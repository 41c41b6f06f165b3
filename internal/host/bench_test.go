package host_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/host"
)

// BenchmarkHost10000 creates 10,000 workspaces, uses some of them (writes a
// file, so their stores are initialised), lets them all hibernate, and then
// measures:
//
//   - ns/op: Acquire of a hibernated workspace (reopening its store) plus
//     Release; HibernateIdle between iterations is not timed;
//   - create-us/ws: Create (an empty file and a directory sync);
//   - rss-MiB and heap-MiB with all 10,000 closed, against the same figures
//     for the process before the host existed (…-empty) and after it had
//     opened and closed one workspace (…-warm: the SQLite module and pools are
//     loaded once per process, not per workspace);
//   - open and fds-delta with all closed (0 and 0 are the promise).
//
// Initialising a store costs ~15-25 ms on ext4 (schema plus fsyncs), so only
// DESK_BENCH_INIT workspaces (default 100) are used before measuring; set it to
// 10000 to initialise every one (a few minutes). A hibernated workspace holds
// nothing in the host either way.
//
//	go test -run '^$' -bench Host10000 -benchtime 200x ./internal/host/
func BenchmarkHost10000(b *testing.B) {
	const total = 10_000
	initN := 100
	if s := os.Getenv("DESK_BENCH_INIT"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > total {
			b.Fatalf("DESK_BENCH_INIT=%q: want 1..%d", s, total)
		}
		initN = n
	}
	rssEmpty, heapEmpty := memNow()
	fd0 := countFDs(b)
	h := openHost(b, host.Options{IdleTimeout: -1})
	name := func(i int) string { return fmt.Sprintf("ws-%05d", i) }

	mustCreate(b, h, "warm")
	mustAcquire(b, h, "warm").Release()
	h.HibernateIdle()
	rssWarm, heapWarm := memNow()

	t0 := time.Now()
	parallel(b, 4, total, func(i int) error {
		_, err := h.Create(ctx, name(i), host.CreateOptions{})
		return err
	})
	createPer := time.Since(t0) / total
	parallel(b, 4, initN, func(i int) error {
		l, err := h.Acquire(ctx, name(i*(total/initN)))
		if err != nil {
			return err
		}
		defer l.Release()
		return l.Workspace().FS().WriteFile(ctx, "/hello", []byte("hello"), 0o644)
	})
	h.HibernateIdle()

	i := 0
	for b.Loop() {
		l, err := h.Acquire(ctx, name((i%initN)*(total/initN)))
		if err != nil {
			b.Fatal(err)
		}
		l.Release()
		b.StopTimer()
		h.HibernateIdle()
		b.StartTimer()
		i++
	}
	b.StopTimer()

	h.HibernateIdle()
	st := h.Stats()
	rss, heap := memNow()
	b.ReportMetric(float64(createPer.Microseconds()), "create-us/ws")
	b.ReportMetric(float64(st.Open), "open")
	b.ReportMetric(float64(countFDs(b)-fd0-1), "fds-delta") // -1: the host's lock file
	b.ReportMetric(rssEmpty, "rss-MiB-empty")
	b.ReportMetric(rssWarm, "rss-MiB-warm")
	b.ReportMetric(rss, "rss-MiB")
	b.ReportMetric(heapEmpty, "heap-MiB-empty")
	b.ReportMetric(heapWarm, "heap-MiB-warm")
	b.ReportMetric(heap, "heap-MiB")
}

// parallel runs fn(0..n-1) on workers goroutines and fails b on the first error.
func parallel(b *testing.B, workers, n int, fn func(i int) error) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := fn(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// memNow returns the process's resident set and the Go heap in use, in MiB,
// after a garbage collection that returns free memory to the OS.
func memNow() (rssMiB, heapMiB float64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapMiB = float64(ms.HeapInuse) / (1 << 20)
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1, heapMiB
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(kb) / 1024, heapMiB
		}
	}
	return -1, heapMiB
}

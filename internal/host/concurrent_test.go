package host_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/workspace"
)

// TestHost_ConcurrentAcquire: many goroutines acquire the same and different
// workspaces at once; each is opened exactly once and every write lands.
func TestHost_ConcurrentAcquire(t *testing.T) {
	tr := newTracker()
	h := openHost(t, host.Options{Clock: &fakeClock{}, Workspace: workspace.Options{Attach: tr.attach}})
	names := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"}
	mustCreate(t, h, names...)
	const workers, iters = 32, 20
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range iters {
				name := names[(g+i)%len(names)]
				l, err := h.Acquire(ctx, name)
				if err != nil {
					errs <- err
					return
				}
				err = l.Workspace().FS().WriteFile(ctx, fmt.Sprintf("/workspace/g%d-%d", g, i), []byte(name), 0o644)
				l.Release()
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for _, n := range names {
		if c := tr.count(n); c != 1 {
			t.Errorf("%s opened %d times, want 1", n, c)
		}
		err := h.Do(ctx, n, func(ws *workspace.Workspace) error {
			ents, err := ws.FS().ReadDir(ctx, "/workspace")
			total += len(ents)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if total != workers*iters {
		t.Fatalf("%d files written, want %d", total, workers*iters)
	}
	if st := h.Stats(); st.Leases != 0 || st.Open != len(names) {
		t.Fatalf("Stats %+v", st)
	}
}

// TestHost_Churn: acquires, hibernation (a tiny real idle period), eviction
// under a small MaxOpen, creates and deletes, all at once. The only error
// allowed is ErrTooManyOpen; no more than MaxOpen runtimes are ever open; every
// acknowledged write is there at the end.
func TestHost_Churn(t *testing.T) {
	tr := newTracker()
	const maxOpen = 3
	h := openHost(t, host.Options{MaxOpen: maxOpen, IdleTimeout: time.Millisecond, Workspace: workspace.Options{Attach: tr.attach}})
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	mustCreate(t, h, names...)
	const workers, iters = 4, 40
	var mu sync.Mutex
	written := map[string][]string{}
	tooMany := 0
	var wg sync.WaitGroup
	errs := make(chan error, workers+1)
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for i := range iters {
				switch op := r.IntN(10); {
				case op < 7: // use a workspace
					name := names[r.IntN(len(names))]
					l, err := h.Acquire(ctx, name)
					if errors.Is(err, host.ErrTooManyOpen) {
						mu.Lock()
						tooMany++
						mu.Unlock()
						continue
					} else if err != nil {
						errs <- err
						return
					}
					p := fmt.Sprintf("/workspace/g%d-%d", g, i)
					err = l.Workspace().FS().WriteFile(ctx, p, nil, 0o644)
					l.Release()
					if err != nil {
						errs <- err
						return
					}
					mu.Lock()
					written[name] = append(written[name], p)
					mu.Unlock()
				case op < 8:
					h.HibernateIdle()
				case op < 9: // a workspace of this worker's own: create, use, delete
					name := fmt.Sprintf("tmp%d", g)
					if _, err := h.Create(ctx, name, host.CreateOptions{}); err != nil {
						errs <- err
						return
					}
					if l, err := h.Acquire(ctx, name); err == nil {
						l.Release()
					} else if !errors.Is(err, host.ErrTooManyOpen) {
						errs <- err
						return
					}
					if err := h.Delete(ctx, name); err != nil {
						errs <- err
						return
					}
				default:
					if _, err := h.List(ctx, "", 5); err != nil {
						errs <- err
						return
					}
					h.Stats()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m := tr.maxLive.Load(); m > maxOpen {
		t.Fatalf("%d runtimes open at once, MaxOpen %d", m, maxOpen)
	}
	for name, paths := range written {
		err := h.Do(ctx, name, func(ws *workspace.Workspace) error {
			for _, p := range paths {
				if _, err := ws.FS().Stat(ctx, p); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	st := h.Stats()
	t.Logf("stats %+v; ErrTooManyOpen %d times", st, tooMany)
	if st.Leases != 0 || st.Open > maxOpen {
		t.Fatalf("Stats %+v", st)
	}
}

// TestHost_ManyWorkspaces: thousands of workspaces on disk cost nothing while
// idle: none is open, no descriptor is held, and listing pages through them
// without opening any. (BenchmarkHost10000 does the same with 10,000 and
// measures memory.)
func TestHost_ManyWorkspaces(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	h := openHost(t, host.Options{})
	fd0 := countFDs(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				if _, err := h.Create(ctx, fmt.Sprintf("ws-%05d", i), host.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Use a few, then let them hibernate.
	for _, i := range []int{0, n / 2, n - 1} {
		l := mustAcquire(t, h, fmt.Sprintf("ws-%05d", i))
		if err := l.Workspace().FS().WriteFile(ctx, "/f", []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		l.Release()
	}
	if got := h.HibernateIdle(); got != 3 {
		t.Fatalf("HibernateIdle = %d, want 3", got)
	}
	var all []host.Info
	after := ""
	for {
		page, err := h.List(ctx, after, host.MaxListLimit)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if len(page) < host.MaxListLimit {
			break
		}
		after = page[len(page)-1].Name
	}
	if len(all) != n {
		t.Fatalf("listed %d workspaces, want %d", len(all), n)
	}
	for i, in := range all {
		if want := fmt.Sprintf("ws-%05d", i); in.Name != want || in.Open {
			t.Fatalf("entry %d: %+v, want %s, closed", i, in, want)
		}
	}
	if st := h.Stats(); st.Open != 0 || st.Leases != 0 || st.Created != uint64(n) {
		t.Fatalf("Stats %+v", st)
	}
	if fd := countFDs(t); fd > fd0 {
		t.Fatalf("fds %d -> %d with %d idle workspaces", fd0, fd, n)
	}
}

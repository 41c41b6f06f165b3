package run

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// genReader yields n pseudo-random bytes (seeded), counting what it gave.
type genReader struct {
	rng  *rand.ChaCha8
	left int64
	gave atomic.Int64
}

func newGen(n int64) *genReader {
	return &genReader{rng: rand.NewChaCha8([32]byte{1, 2, 3}), left: n}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left == 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	g.rng.Read(p)
	g.left -= int64(len(p))
	g.gave.Add(int64(len(p)))
	return len(p), nil
}

// runtimeMem is the process's allocation total at a moment.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

// endless never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }

// TestExec_StdinStream: a stdin stream of 256 MiB, far over the old bound,
// reaches the backend whole and in order (its length and SHA-256), and the
// copy allocates a small fraction of it: it is never held whole.
func TestExec_StdinStream(t *testing.T) {
	e := newEnv(t, Options{})
	const size = 256 << 20
	x := e.exec("sum", ExecOptions{StdinStream: true})
	if !x.Info().StdinStream {
		t.Error("the record does not say stdin is a stream")
	}
	want := sha256.New()
	io.Copy(want, newGen(size))
	var before, after runtimeMem
	before.read()
	n, err := x.CopyStdin(ctx(t), newGen(size))
	after.read()
	if err != nil || n != size {
		t.Fatalf("CopyStdin = %d, %v", n, err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil || res.Status != StatusCompleted || res.Stdout != fmt.Sprintf("%d %x\n", size, want.Sum(nil)) {
		t.Fatalf("result %s %q %q, %v", res.Status, res.Stdout, res.Error, err)
	}
	// Allocation bound, not a speed figure: a copy that held the stream
	// would allocate at least its size.
	alloc := after.total - before.total
	if alloc > size/8 {
		t.Errorf("streaming %d MiB allocated %d MiB", size>>20, alloc>>20)
	}
	t.Logf("streaming %d MiB allocated %d KiB in the whole process", size>>20, alloc>>10)
}

// TestExec_StdinStreamBackpressure: while the backend does not read, the
// stream is not read ahead of it by more than one copy buffer.
func TestExec_StdinStreamBackpressure(t *testing.T) {
	e := newEnv(t, Options{})
	const first = 100 << 10
	x := e.exec(fmt.Sprintf("gulp %d\nwait more\nsum", first), ExecOptions{StdinStream: true})
	src := newGen(8 << 20)
	done := make(chan error, 1)
	go func() {
		_, err := x.CopyStdin(context.Background(), src)
		done <- err
	}()
	s := x.Events(0)
	ev, err := s.Next(ctx(t))
	if err != nil || string(ev.Data) != fmt.Sprintf("read %d\n", first) {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	// The backend took first bytes and waits: at most a copy buffer more
	// has left the source (one Read blocked handing it over).
	if gave := src.gave.Load(); gave > first+64<<10 {
		t.Errorf("the source gave %d bytes while the backend had read %d", gave, first)
	}
	e.m.open("more")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	res, _ := x.Wait(ctx(t))
	if res.Status != StatusCompleted || !strings.HasPrefix(res.Stdout, fmt.Sprintf("read %d\n%d ", first, 8<<20-first)) {
		t.Errorf("result %s %q", res.Status, res.Stdout)
	}
}

// TestExec_StdinStreamEnds covers the other ends of a stream: a program
// that ends without reading it all, a kill while it waits for stdin that
// never comes, a client that goes away mid-stream, and the misuses.
func TestExec_StdinStreamEnds(t *testing.T) {
	e := newEnv(t, Options{KillGrace: time.Hour}) // an unkillable read would hang (the test's deadline catches it)
	t.Run("program ends first", func(t *testing.T) {
		x := e.exec("gulp 10", ExecOptions{StdinStream: true})
		n, err := x.CopyStdin(ctx(t), endless{})
		if !errors.Is(err, ErrNotRunning) || n < 10 {
			t.Errorf("CopyStdin into an ended execution = %d, %v; want ErrNotRunning after at least 10 bytes", n, err)
		}
		if res, _ := x.Wait(ctx(t)); res.Status != StatusCompleted || res.Stdout != "read 10\n" {
			t.Errorf("result %s %q", res.Status, res.Stdout)
		}
	})
	t.Run("killed waiting for stdin", func(t *testing.T) {
		x := e.exec("cat", ExecOptions{StdinStream: true})
		if err := x.Kill(SIGTERM); err != nil {
			t.Fatal(err)
		}
		res, _ := x.Wait(ctx(t))
		if res.Status != StatusCancelled || strings.Contains(res.Error, "abandoned") {
			t.Errorf("result %s %q", res.Status, res.Error)
		}
		if _, err := x.CopyStdin(ctx(t), strings.NewReader("late")); !errors.Is(err, ErrNotRunning) {
			t.Errorf("CopyStdin after the end: %v", err)
		}
	})
	t.Run("client gone mid-stream", func(t *testing.T) {
		x := e.exec("cat", ExecOptions{StdinStream: true})
		cctx, cancel := context.WithCancel(ctx(t))
		r, w := io.Pipe()
		go func() {
			w.Write([]byte("partial"))
			x.Events(0).Next(cctx) // the program has it
			// The client goes away with the stream open: its context ends
			// and its body fails, as net/http's does.
			cancel()
			w.CloseWithError(errors.New("connection reset by peer"))
		}()
		_, err := x.CopyStdin(cctx, r)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CopyStdin = %v, want the client's cancellation", err)
		}
		res, _ := x.Wait(ctx(t))
		if res.Status != StatusFailed || res.Stdout != "partial" || !strings.Contains(res.Error, "the stdin stream ended early") {
			t.Errorf("result %s %q %q", res.Status, res.Stdout, res.Error)
		}
	})
	t.Run("misuse", func(t *testing.T) {
		x := e.exec("cat", ExecOptions{})
		if _, err := x.CopyStdin(ctx(t), strings.NewReader("x")); !errors.Is(err, ErrInvalid) {
			t.Errorf("CopyStdin without StdinStream: %v", err)
		}
		x.Wait(ctx(t))
		x = e.exec("cat", ExecOptions{StdinStream: true})
		if n, err := x.CopyStdin(ctx(t), strings.NewReader("once")); n != 4 || err != nil {
			t.Fatalf("CopyStdin = %d, %v", n, err)
		}
		// cat ends once its stdin does, so the second call may find it
		// ended (ErrNotRunning) as well as taken: either refuses it.
		if _, err := x.CopyStdin(ctx(t), strings.NewReader("twice")); !errors.Is(err, ErrStdinTaken) && !errors.Is(err, ErrNotRunning) {
			t.Errorf("second CopyStdin: %v, want ErrStdinTaken (or ErrNotRunning once cat has ended)", err)
		}
		if res, _ := x.Wait(ctx(t)); res.Status != StatusCompleted || res.Stdout != "once" {
			t.Errorf("result %s %q", res.Status, res.Stdout)
		}
		for _, o := range []ExecOptions{{StdinStream: true, Stdin: strings.NewReader("x")}, {StdinStream: true, Detached: true}, {Foreground: true, Detached: true}} {
			if _, err := e.r.Exec(ctx(t), "cat", o); !errors.Is(err, ErrInvalid) {
				t.Errorf("Exec(%+v) = %v, want ErrInvalid", o, err)
			}
		}
	})
}

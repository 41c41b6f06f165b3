package run

import (
	"bytes"
	"io"
	"testing"

	"github.com/desk-dev/desk/internal/run/runtest/linecmd"
)

// followAll reads a Follow stream to its end and returns the stdout it
// carried; it fails on an elided marker.
func followAll(t *testing.T, s *Stream) []byte {
	t.Helper()
	defer s.Close()
	var out bytes.Buffer
	for {
		ev, err := s.Next(ctx(t))
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		switch ev.Type {
		case EventElided:
			t.Fatalf("a followed stream elided events %d to %d (%d bytes)", ev.First, ev.Seq, ev.Bytes)
		case EventStdout:
			out.Write(ev.Data)
		}
	}
}

// TestExecution_Follow_5MB: a foreground execution printing 5 MB with the
// default 1 MiB output cap. Its output waits for the client that attaches
// after starting it, which receives every byte; the stored record keeps the
// head and the tail only. The client holds the execution while it follows,
// as the adapters do: one that did not was hung up after ForegroundGrace,
// which a loaded machine reached before the 5 MB were through (its stream
// then elided).
func TestExecution_Follow_5MB(t *testing.T) {
	e := newEnv(t, Options{})
	const n = 5_000_000
	x := e.exec("big 5000000", ExecOptions{Foreground: true})
	release := x.Hold()
	defer release()
	got := followAll(t, x.Follow(0))
	if !bytes.Equal(got, linecmd.BigOutput(n)) {
		t.Fatalf("received %d bytes, want the %d the program printed", len(got), n)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.StdoutBytes != n || res.StdoutElided == 0 || int64(len(res.Stdout)) > DefaultOutputLimit+100 {
		t.Fatalf("stored record: %d bytes printed, %d elided, %d kept; want %d printed and the cap kept", res.StdoutBytes, res.StdoutElided, len(res.Stdout), n)
	}
	// A replay from the store is the capped record.
	stored, err := e.r.Attach(ctx(t), x.ID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var elided bool
	for _, ev := range drain(t, stored) {
		elided = elided || ev.Type == EventElided
	}
	if !elided {
		t.Fatal("the stored events hold all 5 MB")
	}
}

// TestExecution_Follow_later: a follower that comes while the program runs
// (not foreground) gets everything from its start on, and the writer waits
// for it; Close lets the program run on without it, and a kill stops the
// wait.
func TestExecution_Follow_later(t *testing.T) {
	e := newEnv(t, Options{})
	x := e.exec("wait go\nbig 3000000", ExecOptions{})
	s := x.Follow(0)
	e.m.open("go")
	if got := followAll(t, s); !bytes.Equal(got, linecmd.BigOutput(3_000_000)) {
		t.Fatalf("received %d bytes, want 3000000", len(got))
	}
	if _, err := x.Wait(ctx(t)); err != nil {
		t.Fatal(err)
	}

	// A follower that reads one event and closes: the program finishes.
	y := e.exec("wait go2\nbig 3000000", ExecOptions{})
	s = y.Follow(0)
	e.m.open("go2")
	if _, err := s.Next(ctx(t)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	res, err := y.Wait(ctx(t))
	if err != nil || res.StdoutBytes != 3_000_000 {
		t.Fatalf("after Close: %v %+v", err, res)
	}

	// A follower that never reads: a kill ends the wait.
	z := e.exec("wait go3\nbig 3000000", ExecOptions{})
	s = z.Follow(0)
	defer s.Close()
	e.m.open("go3")
	poll(t, "the writer to wait for its follower", func() bool {
		z.mu.Lock()
		defer z.mu.Unlock()
		return z.evictWaits > 0
	})
	if err := z.Kill(SIGKILL); err != nil {
		t.Fatal(err)
	}
	if res, err := z.Wait(ctx(t)); err != nil || res.Status == StatusRunning {
		t.Fatalf("after the kill: %v %+v", err, res)
	}
}

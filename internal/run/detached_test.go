package run

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// service is the test Detacher: mini for Run, and for RunDetached a
// service language, one command per line:
//
//	say TEXT      TEXT and a newline to stdout (before the start, if first)
//	start         report the start (implied after the last line otherwise)
//	gate NAME     open gate "at:NAME" (the test can wait for it), then block
//	              until the test opens gate NAME of mini, or ctx ends
//	serve         write "tick" lines until ctx ends
//	exit N        end with exit code N
//	fail MESSAGE  return an error (before the start: the program did not start)
type service struct{ *mini }

var _ Detacher = service{}

func (s service) RunDetached(ctx context.Context, job *Job, started func()) (Outcome, error) {
	if !job.Detached {
		return Outcome{}, errors.New("RunDetached of a job not marked detached")
	}
	didStart := false
	start := func() {
		if !didStart {
			didStart = true
			started()
		}
	}
	for line := range strings.SplitSeq(job.Source, "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch cmd {
		case "say":
			fmt.Fprintln(job.Stdout, arg)
		case "start":
			start()
		case "gate":
			s.open("at:" + arg)
			select {
			case <-s.gate(arg):
			case <-ctx.Done():
				return Outcome{}, context.Cause(ctx)
			}
		case "serve":
			start()
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return Outcome{ExitCode: 143}, nil
				default:
				}
				fmt.Fprintf(job.Stdout, "tick %d\n", i)
				if i%64 == 63 {
					time.Sleep(time.Millisecond)
				}
			}
		case "exit":
			start()
			n, _ := strconv.Atoi(arg)
			return Outcome{ExitCode: n}, nil
		case "fail":
			return Outcome{}, errors.New(arg)
		}
	}
	start()
	return Outcome{}, nil
}

// waitTick waits for x's first tick.
func waitTick(t *testing.T, x *Execution) {
	t.Helper()
	s := x.Events(0)
	for {
		ev, err := s.Next(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(ev.Data), "tick") {
			return
		}
	}
}

// newServiceEnv is newEnv with the service backend as "svc" besides mini.
func newServiceEnv(t *testing.T, opts Options) *env {
	t.Helper()
	return openEnv(t, opts, func(m *mini) map[string]Backend { return map[string]Backend{"mini": m, "svc": service{m}} })
}

func TestExec_Detached(t *testing.T) {
	t.Parallel()

	t.Run("returns once started", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		x := e.exec("say hello\nstart\ngate ticks\nserve", ExecOptions{Backend: "svc", Detached: true})
		// What the program wrote before it reported its start is there.
		if res := x.Result(); res.Status != StatusRunning || res.Stdout != "hello\n" || !res.Detached {
			t.Fatalf("at start: %s %q detached %v", res.Status, res.Stdout, res.Detached)
		}
		if x.Info().Timeout != DefaultDetachedTimeout {
			t.Errorf("timeout %v, want the detached default", x.Info().Timeout)
		}
		l, err := e.r.List(ctx(t), ListOptions{Status: StatusRunning})
		if err != nil || len(l) != 1 || !l[0].Detached {
			t.Fatalf("List running: %+v, %v", l, err)
		}
		e.m.open("ticks")
		waitTick(t, x)
		x.Kill(SIGTERM)
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != StatusCancelled || res.ExitCode != 143 || !strings.HasPrefix(res.Stdout, "hello\ntick 0\n") {
			t.Fatalf("killed: %s %d %q, %v", res.Status, res.ExitCode, res.Stdout[:min(len(res.Stdout), 40)], err)
		}
		got, err := e.r.Get(ctx(t), x.ID())
		if err != nil || !got.Detached {
			t.Errorf("stored record: detached %v, %v", got.Detached, err)
		}
	})

	t.Run("a long-lived service's output stays within its cap", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		x := e.exec("serve", ExecOptions{Backend: "svc", Detached: true, OutputLimit: MinOutputLimit})
		// Read live until well past the cap, then kill.
		s := x.Events(0)
		var n int64
		for n < 50*MinOutputLimit {
			ev, err := s.Next(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			n += int64(len(ev.Data)) + ev.Bytes
		}
		x.Kill(SIGKILL)
		res, err := x.Wait(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if res.StdoutElided == 0 || int64(len(res.Stdout)) > MinOutputLimit+100 {
			t.Errorf("kept %d bytes, elided %d", len(res.Stdout), res.StdoutElided)
		}
		evs := drain(t, mustAttach(t, e.r, x.ID(), 0))
		checkEvents(t, evs, 0, res.Info)
		var kept int
		for _, ev := range evs {
			kept += len(ev.Data)
		}
		if int64(kept) > MinOutputLimit {
			t.Errorf("the stored events hold %d bytes of output, over the cap %d", kept, MinOutputLimit)
		}
	})

	t.Run("ends with its program", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		res, err := e.exec("say hi\nexit 3", ExecOptions{Backend: "svc", Detached: true}).Wait(ctx(t))
		if err != nil || res.Status != StatusCompleted || res.ExitCode != 3 || res.Stdout != "hi\n" {
			t.Errorf("%+v, %v", res, err)
		}
	})

	t.Run("a program that could not start", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		x := e.exec("fail no such program", ExecOptions{Backend: "svc", Detached: true})
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != StatusFailed || res.Error != "no such program" {
			t.Errorf("%+v, %v", res, err)
		}
	})

	t.Run("ctx ends before the start", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		c, cancel := context.WithCancel(ctx(t))
		go func() {
			// Cancel once the execution is waiting at the gate.
			<-e.m.gate("at:never")
			cancel()
		}()
		_, err := e.r.Exec(c, "gate never\nserve", ExecOptions{ID: "slow", Backend: "svc", Detached: true})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Exec: %v", err)
		}
		res, err := e.r.Wait(ctx(t), "slow")
		if err != nil || res.Status != StatusCancelled || res.Signal != "SIGKILL" {
			t.Errorf("%+v, %v", res, err)
		}
	})

	t.Run("refused by other backends", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		_, err := e.r.Exec(ctx(t), "echo hi", ExecOptions{Backend: "mini", Detached: true})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "backend mini cannot run detached executions (use svc)") {
			t.Errorf("mini: %v", err)
		}
		_, err = e.r.Exec(ctx(t), "start", ExecOptions{Backend: "svc", Detached: true, Stdin: strings.NewReader("x")})
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("stdin: %v", err)
		}
		e2 := newEnv(t, Options{})
		for _, b := range []string{AutoBackend, ""} { // none named: auto, not the default
			_, err = e2.r.Exec(ctx(t), "echo hi", ExecOptions{Backend: b, Detached: true})
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no backend that can run detached executions") {
				t.Errorf("backend %q without a Detacher: %v", b, err)
			}
		}
	})

	t.Run("auto chooses a Detacher", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		x := e.exec("exit 0", ExecOptions{Backend: AutoBackend, Detached: true})
		if i := x.Info(); i.Backend != "svc" || i.Requested != AutoBackend || i.Route == "" {
			t.Errorf("auto: %+v", i)
		}
		x.Wait(ctx(t))
		// No backend named: not the default (mini), a Detacher.
		x = e.exec("exit 0", ExecOptions{Detached: true})
		if i := x.Info(); i.Backend != "svc" || i.Requested != AutoBackend {
			t.Errorf("no backend named: %+v", i)
		}
		x.Wait(ctx(t))
		// Not when the caller may not use it.
		_, err := e.r.Exec(WithBackends(ctx(t), []string{"mini", AutoBackend}), "exit 0", ExecOptions{Backend: AutoBackend, Detached: true})
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("auto, svc not allowed: %v", err)
		}
	})

	t.Run("timeouts", func(t *testing.T) {
		e := newServiceEnv(t, Options{MaxTimeout: time.Minute, DetachedTimeout: 3 * time.Hour})
		x := e.exec("serve", ExecOptions{Backend: "svc", Detached: true, Timeout: 2 * time.Hour})
		if x.Info().Timeout != 2*time.Hour {
			t.Errorf("timeout %v", x.Info().Timeout)
		}
		x.Kill(SIGKILL)
		x.Wait(ctx(t))
		if _, err := e.r.Exec(ctx(t), "serve", ExecOptions{Backend: "svc", Detached: true, Timeout: 4 * time.Hour}); !errors.Is(err, ErrTimeoutTooLong) {
			t.Errorf("over DetachedTimeout: %v", err)
		}
		if _, err := e.r.Exec(ctx(t), "echo hi", ExecOptions{Timeout: 2 * time.Minute}); !errors.Is(err, ErrTimeoutTooLong) {
			t.Errorf("not detached, over MaxTimeout: %v", err)
		}
		res, err := e.exec("serve", ExecOptions{Backend: "svc", Detached: true, Timeout: 20 * time.Millisecond}).Wait(ctx(t))
		if err != nil || res.Status != StatusTimedOut {
			t.Errorf("timed out: %s, %v", res.Status, err)
		}
	})

	t.Run("MaxDetached apart from MaxRunning", func(t *testing.T) {
		e := newServiceEnv(t, Options{MaxRunning: 1, MaxDetached: 1})
		x := e.exec("serve", ExecOptions{Backend: "svc", Detached: true})
		if _, err := e.r.Exec(ctx(t), "serve", ExecOptions{Backend: "svc", Detached: true}); !errors.Is(err, ErrBusy) {
			t.Errorf("a second detached: %v", err)
		}
		if res := e.run("echo ordinary", ExecOptions{}); res.Stdout != "ordinary\n" {
			t.Errorf("an ordinary execution beside the service: %+v", res)
		}
		x.Kill(SIGKILL)
		x.Wait(ctx(t))
		if e.r.Running() != 0 {
			t.Errorf("running %d", e.r.Running())
		}
	})

	t.Run("Close records it stopped", func(t *testing.T) {
		e := newServiceEnv(t, Options{})
		x := e.exec("serve", ExecOptions{Backend: "svc", Detached: true})
		e.r.Close()
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != StatusFailed || res.Error != ErrStopped.Error() || !res.Detached {
			t.Errorf("after Close: %s %q, %v", res.Status, res.Error, err)
		}
	})
}

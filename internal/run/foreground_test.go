package run

import (
	"strings"
	"testing"
	"time"
)

// armed reports whether x's hang-up timer runs (nobody holds it).
func (x *Execution) armed() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.fgTimer != nil
}

// TestForeground_Hold: a foreground execution's hang-up runs while nobody
// holds it and stops while anyone does; holds nest, a release counts once,
// and an execution that is not foreground has none.
func TestForeground_Hold(t *testing.T) {
	e := newEnv(t, Options{ForegroundGrace: time.Hour})
	x := e.exec("wait g", ExecOptions{Foreground: true})
	if !x.Info().Foreground {
		t.Error("the record does not say foreground")
	}
	if !x.armed() {
		t.Fatal("a new foreground execution has no hang-up armed")
	}
	r1 := x.Hold()
	r2 := x.Hold()
	if x.armed() {
		t.Error("held, yet armed")
	}
	r1()
	r1() // a second call of the same release does nothing
	if x.armed() {
		t.Error("still held once, yet armed")
	}
	r2()
	if !x.armed() {
		t.Error("released by all, yet not armed")
	}
	e.m.open("g")
	if res, _ := x.Wait(ctx(t)); res.Status != StatusCompleted {
		t.Errorf("result %s %q", res.Status, res.Error)
	}
	if x.armed() {
		t.Error("ended, yet armed")
	}
	x.Hold()() // on an ended execution: nothing

	y := e.exec("wait h", ExecOptions{})
	if y.armed() {
		t.Error("an ordinary execution has a hang-up")
	}
	y.Hold()()
	if y.armed() {
		t.Error("an ordinary execution armed by a release")
	}
	e.m.open("h")
	y.Wait(ctx(t))
}

// TestForeground_HangUp: a foreground execution that nobody holds, from its
// start or after its last holder let go, is killed with SIGHUP after the
// grace period, and its record says why; while it is held it runs on.
func TestForeground_HangUp(t *testing.T) {
	e := newEnv(t, Options{ForegroundGrace: 250 * time.Millisecond})
	check := func(x *Execution) {
		t.Helper()
		res, err := x.Wait(ctx(t))
		if err != nil || res.Status != StatusCancelled || res.Signal != "SIGHUP" || res.ExitCode != 129 ||
			!strings.Contains(res.Error, "a foreground execution nobody followed for 250ms") {
			t.Errorf("result %s %d %s %q, %v", res.Status, res.ExitCode, res.Signal, res.Error, err)
		}
	}
	check(e.exec("wait never", ExecOptions{Foreground: true})) // never held
	x := e.exec("wait never", ExecOptions{Foreground: true})
	release := x.Hold()
	release()
	check(x) // held, then let go
	// Held for the whole run: it ends on its own, though the grace period
	// passes many times over (the gate opens after a hang-up would have).
	y := e.exec("wait late\necho done", ExecOptions{Foreground: true})
	release = y.Hold()
	z := e.exec("wait never", ExecOptions{Foreground: true})
	check(z) // a hang-up of the same runtime happened meanwhile
	e.m.open("late")
	res, _ := y.Wait(ctx(t))
	release()
	if res.Status != StatusCompleted || res.Stdout != "done\n" {
		t.Errorf("held execution: %s %q", res.Status, res.Error)
	}
}

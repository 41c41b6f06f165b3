package cmds

import (
	"context"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	th := "Try 'sleep --help' for more information.\n"
	runTextRows(t, []textRow{
		{args: []string{"sleep", "0"}},
		{args: []string{"sleep", "0.05", ".01s", "1e-2"}},
		{args: []string{"sleep", "0m", "0h", "0d"}},
		{args: []string{"sleep"}, code: 1, errOut: "sleep: missing operand\n" + th},
		{args: []string{"sleep", "x"}, code: 1, errOut: "sleep: invalid time interval ‘x’\n" + th},
		{args: []string{"sleep", "1x", "y"}, code: 1, errOut: "sleep: invalid time interval ‘1x’\nsleep: invalid time interval ‘y’\n" + th},
		{args: []string{"sleep", "-1"}, code: 1, errOut: "sleep: invalid option -- '1'\n" + th},
	})
}

func TestSleepDurations(t *testing.T) {
	for in, want := range map[string]float64{"1": 1, "0.5": 0.5, "1m": 60, "2h": 7200, "1.5d": 129600, "3s": 3} {
		if got, ok := parseDuration(in); !ok || got != want {
			t.Errorf("%s: %v %v", in, got, ok)
		}
	}
}

func TestSleepCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	env := &Env{Ctx: ctx, Stdout: discardWriter{}, Stderr: discardWriter{}}
	done := make(chan int)
	go func() { done <- Sleep(env, []string{"sleep", "1h", "30m"}) }()
	// Nothing says that sleep is waiting: the cancellation may come before
	// or during its wait, and either must end it (the 90 minutes it would
	// sleep make the select's deadline a hang guard).
	cancel()
	select {
	case code := <-done:
		if code != 1 {
			t.Fatalf("code %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sleep did not stop on cancel within 30s (hang guard)")
	}
}

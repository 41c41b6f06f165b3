package jsvm

import (
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run/runtest"
)

// TestCPULimit runs a busy loop under run's CPU limit beside an execution
// that waits for its stdin: the loop is stopped as cpu-limit with at least
// the limit of CPU recorded; the waiter, which run then feeds, completes
// charged with the little CPU it used (the engine's thread clock), more
// than none.
func TestCPULimit(t *testing.T) {
	runtest.CPULimit(t, newStore(t, nil), 300*time.Millisecond, runtest.CPUCase{
		Name:       ID,
		Backend:    newBackend(t, Options{}),
		Waiter:     "let s = ''; for await (const c of process.stdin) s += c; console.log(s);",
		Feed:       "fed",
		WantStdout: "fed\n",
		Busy:       []string{"let n = 0; for (;;) n++;"},
	})
}

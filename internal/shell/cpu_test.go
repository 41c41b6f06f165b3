package shell

import (
	"math"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run/runtest"
)

// TestCPULimit runs busy while loops under run's CPU limit, in the script's
// own goroutine and in a pipeline stage's, beside an execution waiting to
// read its stdin: each loop is stopped as cpu-limit with at least the limit
// of CPU recorded; the waiter, fed afterwards, completes charged with the
// little CPU it used, more than none.
func TestCPULimit(t *testing.T) {
	runtest.CPULimit(t, newStore(t, nil), 300*time.Millisecond, runtest.CPUCase{
		Name: "shell",
		// The loops' own bounds out of the way: the CPU limit stops them.
		Backend:    New(Options{MaxLoopIters: math.MaxInt64, MaxCommands: math.MaxInt64}),
		Waiter:     `read -r line; echo "got $line"`,
		Feed:       "fed\n",
		WantStdout: "got fed\n",
		Busy:       []string{"while :; do :; done", "{ while :; do :; done; } | cat"},
	})
}

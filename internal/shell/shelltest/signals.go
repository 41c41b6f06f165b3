package shelltest

import (
	"os"
	"os/signal"
	"syscall"
)

// OracleSignals keeps the oracle's environment bash's usual one, for a
// TestMain: bash lists the signals it inherited as ignored (under nohup,
// `trap` prints a line for SIGHUP with an empty action), so the bash the
// tests run must not inherit an ignored SIGHUP from however go test was
// started. A signal Go handles is reset to its default in a child at exec.
func OracleSignals() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

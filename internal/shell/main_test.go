package shell

import (
	"os"
	"testing"

	"github.com/desk-dev/desk/internal/shell/shelltest"
)

// TestMain keeps the oracle bash's signals its usual ones
// (shelltest.OracleSignals).
func TestMain(m *testing.M) {
	shelltest.OracleSignals()
	os.Exit(m.Run())
}

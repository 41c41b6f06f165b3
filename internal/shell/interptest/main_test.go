package interptest

import (
	"os"
	"testing"

	"github.com/desk-dev/desk/internal/shell/shelltest"
)

// TestMain keeps the oracle bash's signals its usual ones
// (shelltest.OracleSignals: the trap rows list them).
func TestMain(m *testing.M) {
	shelltest.OracleSignals()
	os.Exit(m.Run())
}

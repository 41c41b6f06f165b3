package cmds

import (
	"fmt"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// requireTool skips a confirm test whose reference tool is missing, or fails
// it when DESK_REQUIRE_SHELLS=1 (CI sets it: there a missing tool is a missing
// install step, not a reason to skip).
func requireTool(t *testing.T, name string) {
	t.Helper()
	testenv.Need(t, testenv.Shells, fmt.Errorf("%s is not installed: the rows are not confirmed against the real tool", name))
}

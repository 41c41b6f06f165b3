package cmds

import (
	"os"
	"testing"
)

// requireTool skips a confirm test whose reference tool is missing, or fails
// it when DESK_REQUIRE_SHELLS=1 (CI sets it: there a missing tool is a missing
// install step, not a reason to skip).
func requireTool(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("DESK_REQUIRE_SHELLS") == "1" {
		t.Fatalf("%s is not installed, and DESK_REQUIRE_SHELLS=1 requires the real tools", name)
	}
	t.Skipf("%s not installed: the rows are not confirmed against the real tool", name)
}

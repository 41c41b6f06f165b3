package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/policy"
)

// TestAsError_policy: a command the policy refuses, an approval denied or
// timed out reach the model as forbidden with the policy's message (which
// names the rule), not as an internal error.
func TestAsError_policy(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code string
	}{
		{fmt.Errorf("start execution: run execution: admin denied it (rule %q): %w", "ask rm *", policy.ErrApprovalDenied), CodeForbidden},
		{fmt.Errorf("start execution: %w", policy.ErrApprovalTimeout), CodeForbidden},
		{fmt.Errorf("start execution: git push: %w", policy.ErrDenied), CodeForbidden},
		{fmt.Errorf("hold execution: %w", policy.ErrTooManyPending), CodeBusy},
	} {
		te := AsError(tc.err, "")
		if te.Code != tc.code || !strings.Contains(te.Message, tc.err.Error()) || te.Unwrap() != tc.err {
			t.Errorf("AsError(%v) = %s %q", tc.err, te.Code, te.Message)
		}
	}
}

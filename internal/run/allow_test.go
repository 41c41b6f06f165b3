package run

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestExec_WithBackends: a restricted ctx refuses other backends, and auto
// routes only among the allowed ones (a token allowed "mini" and "auto"
// never reaches "other" through auto).
func TestExec_WithBackends(t *testing.T) {
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var offered []string
	router := func(source string, backends []string) (string, string, error) {
		offered = backends
		if slices.Contains(backends, "other") {
			return "other", "other is preferred", nil
		}
		return "mini", "only mini is left", nil
	}
	rt, err := Open(ctx, f, map[string]Backend{"mini": newMini(), "other": newMini()}, Options{Router: router})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()

	for _, tc := range []struct {
		allowed []string
		backend string
		want    string // backend that ran; "" = ErrNotAllowed
	}{
		{nil, AutoBackend, "other"},
		{[]string{"mini", AutoBackend}, AutoBackend, "mini"},
		{[]string{"mini", AutoBackend}, "other", ""},
		{[]string{"mini"}, AutoBackend, ""},
		{[]string{"other"}, "other", "other"},
	} {
		ex, err := rt.Exec(WithBackends(ctx, tc.allowed), "echo hi", ExecOptions{Backend: tc.backend})
		if tc.want == "" {
			if !errors.Is(err, ErrNotAllowed) {
				t.Errorf("allowed %v, backend %s: err %v, want ErrNotAllowed", tc.allowed, tc.backend, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("allowed %v, backend %s: %v", tc.allowed, tc.backend, err)
			continue
		}
		res, err := ex.Wait(ctx)
		if err != nil || res.Backend != tc.want {
			t.Errorf("allowed %v, backend %s: ran on %q (%v), want %q", tc.allowed, tc.backend, res.Backend, err, tc.want)
		}
		if tc.backend == AutoBackend && tc.allowed != nil && slices.Contains(offered, "other") {
			t.Errorf("allowed %v: the router was offered %v", tc.allowed, offered)
		}
	}
}

package run

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// bounded is the mini backend with its own timeout bounds.
type bounded struct {
	*mini
	def, max time.Duration
}

func (b bounded) Timeouts() (def, max time.Duration) { return b.def, b.max }

func TestExec_TimeoutBounds(t *testing.T) {
	fsys, err := vfs.Open(t.Context(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	m := newMini()
	r, err := Open(t.Context(), fsys, map[string]Backend{
		"mini":  m,
		"short": bounded{m, 2 * time.Second, 5 * time.Second},
		"long":  bounded{m, 3 * time.Hour, 4 * time.Hour}, // beyond run's maximum
		"half":  bounded{m, 0, 30 * time.Minute},          // only a maximum
	}, Options{Timeout: time.Minute, MaxTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct {
		backend string
		ask     time.Duration
		want    time.Duration // 0: ErrTimeoutTooLong
	}{
		{"mini", 0, time.Minute},
		{"mini", 10 * time.Second, 10 * time.Second},
		{"short", 0, 2 * time.Second},
		{"short", 5 * time.Second, 5 * time.Second},
		{"short", 10 * time.Second, 0},
		{"long", 0, time.Hour},
		{"long", 2 * time.Hour, 0},
		{"half", 0, time.Minute},
		{"half", 40 * time.Minute, 0},
	} {
		x, err := r.Exec(ctx(t), "echo x", ExecOptions{Backend: tc.backend, Timeout: tc.ask})
		if tc.want == 0 {
			if !errors.Is(err, ErrTimeoutTooLong) {
				t.Errorf("%s asking %v: %v, want ErrTimeoutTooLong", tc.backend, tc.ask, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s asking %v: %v", tc.backend, tc.ask, err)
			continue
		}
		res, err := x.Wait(ctx(t))
		if err != nil || res.Timeout != tc.want {
			t.Errorf("%s asking %v: timeout %v (%v), want %v", tc.backend, tc.ask, res.Timeout, err, tc.want)
		}
	}
}

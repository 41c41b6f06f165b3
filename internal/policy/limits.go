package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// Limits are one workspace's own quota values, set by the admin (the API's
// …/limits, desk ws limits) and kept beside its policy
// (DATA/policy/WS/limits.json). A zero field takes the server's value
// (desk serve's --workspace-max-bytes, --workspace-max-inodes,
// --max-execs-per-minute, --max-cpu-per-day, --max-cpu-per-execution); a
// workspace's value may be above the server's as well as below it.
type Limits struct {
	// MaxBytes is the workspace's quota of unique content bytes (the
	// store's QuotaBytes: EDQUOT at the write that would pass it).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// MaxInodes bounds its files, directories and symlinks (EDQUOT).
	MaxInodes int64 `json:"max_inodes,omitempty"`
	// MaxExecsPerMinute bounds the executions started per minute (429
	// too_many past it); negative: no bound.
	MaxExecsPerMinute int `json:"max_execs_per_minute,omitempty"`
	// MaxCPUPerDay bounds the executions' CPU time per UTC day (429
	// too_many for new executions past it); negative: no bound.
	MaxCPUPerDay time.Duration `json:"max_cpu_per_day_ns,omitempty"`
	// MaxCPUPerExecution bounds one execution's CPU time, as its
	// backend's meter reads it (run's CPU limit: past it the execution
	// ends as cpu-limit; the shell's and js's goroutines, the sandbox's
	// program and its descendants); negative: no bound.
	MaxCPUPerExecution time.Duration `json:"max_cpu_per_execution_ns,omitempty"`
}

// limitsFile is the document a workspace's Limits are kept in.
const limitsFile = "limits.json"

// IsZero reports whether l sets nothing (the server's values hold).
func (l Limits) IsZero() bool { return l == Limits{} }

// Validate checks l: the store's values are positive or zero (the
// server's); the execution bounds any value (negative: none).
func (l Limits) Validate() error {
	if l.MaxBytes < 0 || l.MaxInodes < 0 {
		return fmt.Errorf("%w: max_bytes and max_inodes must be positive (0: the server's)", ErrInvalid)
	}
	return nil
}

// Limits returns the workspace's own limits (the zero Limits when it has
// none). It reads the file each time: it is read when a workspace opens,
// when an execution starts and when the admin changes it.
func (s *Store) Limits(ws string) (Limits, error) {
	var l Limits
	b, _, err := s.files.Read(ws, limitsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return l, fmt.Errorf("read limits of %s: %w", ws, err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("read limits of %s: %w", ws, err)
	}
	return l, nil
}

// SetLimits stores the workspace's limits (validated); zero limits remove
// the file.
func (s *Store) SetLimits(ws string, l Limits) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if l.IsZero() {
		if _, err := s.files.WorkspaceDir(ws); err != nil {
			return err
		}
		if err := s.files.Remove(ws, limitsFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("delete limits of %s: %w", ws, err)
		}
		return nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("write limits of %s: %w", ws, err)
	}
	return s.files.Write(ws, limitsFile, b)
}

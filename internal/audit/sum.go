package audit

import (
	"context"
	"fmt"

	"github.com/desk-dev/desk/internal/sqlite"
)

// SumArg returns the sum of the integer argument name over the records f
// selects (its Workspace, Action and Since only): what the API's CPU
// quota reads back at a worker's start (the executions' cpu_us).
func (s *Store) SumArg(ctx context.Context, f Filter, name string) (int64, error) {
	var n int64
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	err := s.r.Query(`SELECT coalesce(sum(CAST(json_extract(a.value, '$.value') AS INTEGER)), 0)
		FROM records r, json_each(r.body, '$.args') a
		WHERE r.workspace = ? AND r.action = ? AND r.time >= ? AND json_extract(a.value, '$.name') = ?`,
		[]any{f.Workspace, f.Action, f.Since.UnixMicro(), name}, func(st *sqlite.Stmt) { n = st.Int64(0) })
	if err != nil {
		return 0, fmt.Errorf("sum audit records: %w", err)
	}
	return n, nil
}

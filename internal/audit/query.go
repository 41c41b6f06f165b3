package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// Filter selects records. Zero fields select everything.
type Filter struct {
	Workspace string // exactly this workspace; HostOnly for the host chain
	HostOnly  bool
	Actor     string // the actor (token name or id, "admin") or the token id
	Session   string // the client's session label
	Action    string // the action (operation id, MCP method, tool name)
	Path      string // records whose changes touched this path
	Since     time.Time
	Until     time.Time // exclusive
	After     int64     // the cursor: records with a larger ID
	Limit     int       // at most this many (default 100, at most 1000)
}

// Query returns the records that f selects, in ID order, and the cursor of
// the next page ("" on the last).
func (s *Store) Query(ctx context.Context, f Filter) ([]Record, int64, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	var where []string
	var args []any
	add := func(cond string, v any) { where = append(where, cond); args = append(args, v) }
	add("r.id > ?", f.After)
	switch {
	case f.HostOnly:
		add("r.workspace = ?", "")
	case f.Workspace != "":
		add("r.workspace = ?", f.Workspace)
	}
	if f.Actor != "" {
		where = append(where, "(r.actor = ? OR json_extract(r.body, '$.token_id') = ?)")
		args = append(args, f.Actor, f.Actor)
	}
	if f.Session != "" {
		add("r.session = ?", f.Session)
	}
	if f.Action != "" {
		add("r.action = ?", f.Action)
	}
	if !f.Since.IsZero() {
		add("r.time >= ?", f.Since.UnixMicro())
	}
	if !f.Until.IsZero() {
		add("r.time < ?", f.Until.UnixMicro())
	}
	from := "records r"
	if f.Path != "" {
		from = "records r JOIN paths p ON p.id = r.id"
		add("p.path = ?", f.Path)
	}
	q := "SELECT r.id, r.body, r.hash FROM " + from + " WHERE " + strings.Join(where, " AND ") + fmt.Sprintf(" ORDER BY r.id LIMIT %d", limit+1)
	var out []Record
	var derr error
	s.rmu.Lock()
	if s.closed {
		s.rmu.Unlock()
		return nil, 0, ErrClosed
	}
	err := s.r.Query(q, args, func(st *sqlite.Stmt) {
		var r Record
		if err := json.Unmarshal([]byte(st.Text(1)), &r); err != nil && derr == nil {
			derr = err
		}
		r.ID, r.Hash = st.Int64(0), st.Text(2)
		out = append(out, r)
	})
	s.rmu.Unlock()
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, 0, fmt.Errorf("query audit journal: %w", err)
	}
	var next int64
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// Follow calls fn with every record that f selects, from f.After on, then
// with each new one as it is appended, until ctx ends or fn fails. It sees
// the appends of other processes at its next poll (every poll; 0: 1s).
func (s *Store) Follow(ctx context.Context, f Filter, poll time.Duration, fn func(Record) error) error {
	if poll <= 0 {
		poll = time.Second
	}
	for {
		ch := s.changed()
		for {
			rs, next, err := s.Query(ctx, f)
			if err != nil {
				return err
			}
			for _, r := range rs {
				if err := fn(r); err != nil {
					return err
				}
				f.After = r.ID
			}
			if next == 0 {
				break
			}
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

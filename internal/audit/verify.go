package audit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/desk-dev/desk/internal/sqlite"
)

// Problem is one way the journal fails verification.
type Problem struct {
	Workspace string `json:"workspace"`
	N         int64  `json:"n,omitempty"`
	ID        int64  `json:"id,omitempty"`
	What      string `json:"what"`
}

// ChainReport is one chain's state after verification.
type ChainReport struct {
	Workspace string `json:"workspace"`
	Records   int64  `json:"records"`
	First     int64  `json:"first"` // the first kept record's n
	Last      int64  `json:"last"`
	Head      string `json:"head"` // the newest record's hash: anchor it elsewhere to detect a rewrite of the whole chain
}

// Report is Verify's result: no Problems means every chain checks.
type Report struct {
	Chains   []ChainReport `json:"chains"`
	Problems []Problem     `json:"problems,omitempty"`
}

// Verify checks every chain (or only ws's, if ws is not "" — the host
// chain is "-"): each record's hash covers its predecessor's hash and its
// own fields, the columns queried agree with the hashed body, the numbers
// run without gap from the chain's retention base, and the chain's head is
// its last record. A modified, inserted, removed or reordered record is
// reported. The check reads one record at a time; its work is the journal's size.
func (s *Store) Verify(ctx context.Context, ws string) (Report, error) {
	type chain struct {
		ws, head, base string
		n, baseN       int64
	}
	var chains []chain
	q, args := "SELECT workspace, n, head, base_n, base FROM chains ORDER BY workspace", []any(nil)
	if ws != "" {
		if ws == "-" {
			ws = ""
		}
		q, args = "SELECT workspace, n, head, base_n, base FROM chains WHERE workspace = ?", []any{ws}
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.closed {
		return Report{}, ErrClosed
	}
	if err := s.r.Query(q, args, func(st *sqlite.Stmt) {
		chains = append(chains, chain{ws: st.Text(0), n: st.Int64(1), head: st.Text(2), baseN: st.Int64(3), base: st.Text(4)})
	}); err != nil {
		return Report{}, fmt.Errorf("verify audit journal: %w", err)
	}
	var rep Report
	if err := s.r.Query("SELECT DISTINCT workspace FROM records WHERE workspace NOT IN (SELECT workspace FROM chains)", nil, func(st *sqlite.Stmt) {
		if ws == "" || st.Text(0) == ws {
			rep.Problems = append(rep.Problems, Problem{Workspace: st.Text(0), What: "records of a chain the journal does not know: they were inserted"})
		}
	}); err != nil {
		return Report{}, fmt.Errorf("verify audit journal: %w", err)
	}
	for _, c := range chains {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		cr := ChainReport{Workspace: c.ws, First: c.baseN + 1, Head: c.head}
		prev, want := c.base, c.baseN+1
		bad := func(id, n int64, what string, a ...any) {
			rep.Problems = append(rep.Problems, Problem{Workspace: c.ws, ID: id, N: n, What: fmt.Sprintf(what, a...)})
		}
		err := s.r.Query("SELECT id, workspace, n, time, kind, action, actor, session, body, hash FROM records WHERE workspace = ? ORDER BY n", []any{c.ws}, func(st *sqlite.Stmt) {
			id, n, b, h := st.Int64(0), st.Int64(2), st.Text(8), st.Text(9)
			cr.Records++
			cr.Last = n
			if n != want {
				bad(id, n, "record %d follows %d: records are missing or were inserted", n, want-1)
			}
			want = n + 1
			var r Record
			if err := json.Unmarshal([]byte(b), &r); err != nil {
				bad(id, n, "body is not a record: %v", err)
				prev = h
				return
			}
			if r.Prev != prev {
				bad(id, n, "prev %.12s… is not the previous record's hash %.12s…", r.Prev, prev)
			}
			if got := chainHash(r.Prev, []byte(b)); got != h {
				bad(id, n, "hash does not match the record: it was modified")
			}
			if canon, err := body(&r); err != nil || string(canon) != b {
				bad(id, n, "body is not in canonical form: it was modified")
			}
			if r.Workspace != st.Text(1) || r.N != n || r.Time.UnixMicro() != st.Int64(3) || r.Kind != st.Text(4) ||
				r.Action != st.Text(5) || r.Actor != st.Text(6) || r.Labels.Session != st.Text(7) {
				bad(id, n, "indexed columns disagree with the hashed record: it was modified")
			}
			prev = h
		})
		if err != nil {
			return rep, fmt.Errorf("verify audit journal: %w", err)
		}
		if cr.Records == 0 {
			cr.First = 0
		}
		if want-1 != c.n || prev != c.head {
			bad(0, c.n, "the chain's head is record %d but its last record is %d: records were removed from its end", c.n, want-1)
		}
		rep.Chains = append(rep.Chains, cr)
	}
	return rep, nil
}

package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// AuditLabels are the client's labels of a call (X-Desk-* headers, MCP _meta).
type AuditLabels struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Model   string `json:"model,omitempty"`
	Turn    string `json:"turn,omitempty"`
}

// AuditArg is one argument of an audited call.
type AuditArg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// AuditSpan is an inclusive range of change-journal sequence numbers.
type AuditSpan struct {
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// AuditRecord is one record of the audit journal (docs/api.md, "Audit").
type AuditRecord struct {
	ID        int64       `json:"id"`
	Workspace string      `json:"workspace,omitempty"`
	N         int64       `json:"n"`
	Time      time.Time   `json:"time"`
	Kind      string      `json:"kind"`
	Action    string      `json:"action"`
	TokenID   string      `json:"token_id,omitempty"`
	Actor     string      `json:"actor"`
	Labels    AuditLabels `json:"labels,omitzero"`
	Args      []AuditArg  `json:"args,omitempty"`
	Decision  string      `json:"decision,omitempty"`
	Rule      string      `json:"rule,omitempty"`
	Outcome   string      `json:"outcome"`
	Status    int         `json:"status,omitempty"`
	Error     string      `json:"error,omitempty"`
	Duration  int64       `json:"duration_us,omitempty"`
	Changes   []AuditSpan `json:"changes,omitempty"`
	Paths     []string    `json:"paths,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
	Prev      string      `json:"prev"`
	Hash      string      `json:"hash"`
}

// AuditList is a page of audit records.
type AuditList struct {
	Records []AuditRecord `json:"records"`
	Next    string        `json:"next,omitempty"`
}

// AuditQuery selects audit records; zero fields select all.
type AuditQuery struct {
	Workspace string // "-": the host's records
	Actor     string
	Session   string
	Action    string
	Path      string // the calls that changed this path
	Since     time.Time
	Until     time.Time
	After     string // the cursor
	Limit     int
}

func (q AuditQuery) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"workspace": q.Workspace, "actor": q.Actor, "session": q.Session, "action": q.Action, "path": q.Path, "after": q.After} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if !q.Since.IsZero() {
		v.Set("since", q.Since.UTC().Format(time.RFC3339Nano))
	}
	if !q.Until.IsZero() {
		v.Set("until", q.Until.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// Audit returns a page of audit records (admin).
func (c *Client) Audit(ctx context.Context, q AuditQuery) (AuditList, error) {
	var l AuditList
	err := c.call(ctx, "GET", "/v1/audit", q.values(), nil, &l)
	return l, err
}

// AuditStream calls fn with every record q selects (the NDJSON export)
// and, with follow, with each new one until ctx ends (admin).
func (c *Client) AuditStream(ctx context.Context, q AuditQuery, follow bool, fn func(AuditRecord) error) error {
	v := q.values()
	if follow {
		v.Set("follow", "1")
	}
	resp, err := c.do(ctx, request{method: "GET", path: "/v1/audit", query: v, header: http.Header{"Accept": {"application/x-ndjson"}}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var r AuditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("decode audit record: %w", err)
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("read audit records: %w", err)
	}
	return ctx.Err()
}

// AuditProblem is one way the journal failed verification.
type AuditProblem struct {
	Workspace string `json:"workspace"`
	N         int64  `json:"n,omitempty"`
	ID        int64  `json:"id,omitempty"`
	What      string `json:"what"`
}

// AuditChain is one hash chain's state.
type AuditChain struct {
	Workspace string `json:"workspace"`
	Records   int64  `json:"records"`
	First     int64  `json:"first"`
	Last      int64  `json:"last"`
	Head      string `json:"head"`
}

// AuditReport is the result of verifying the journal.
type AuditReport struct {
	Chains   []AuditChain   `json:"chains"`
	Problems []AuditProblem `json:"problems,omitempty"`
}

// AuditVerify verifies the audit journal's chains (ws "": all; "-": the host's) (admin).
func (c *Client) AuditVerify(ctx context.Context, ws string) (AuditReport, error) {
	var r AuditReport
	v := url.Values{}
	if ws != "" {
		v.Set("workspace", ws)
	}
	err := c.call(ctx, "GET", "/v1/audit/verify", v, nil, &r)
	return r, err
}

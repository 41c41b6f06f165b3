package audit_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/audit"
	"github.com/desk-dev/desk/internal/sqlite"
)

func open(t *testing.T, o audit.Options) *audit.Store {
	t.Helper()
	s, err := audit.Open(filepath.Join(t.TempDir(), audit.FileName), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func appendN(t *testing.T, s *audit.Store, ws string, n int) []audit.Record {
	t.Helper()
	var out []audit.Record
	for i := range n {
		r := audit.Record{Workspace: ws, Kind: audit.KindAPI, Action: "writeFile", Actor: "tok1", TokenID: "tok1",
			Labels: audit.Labels{Session: "s1", Turn: string(rune('0' + i%10))}, Outcome: "ok",
			Args: []audit.Arg{{Name: "path", Value: "/workspace/f"}}, Changes: []audit.Span{{First: uint64(i + 1), Last: uint64(i + 1)}},
			Paths: []string{"/workspace/f"}}
		if err := s.Append(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestChain_VerifiesAndLinks(t *testing.T) {
	s := open(t, audit.Options{})
	a := appendN(t, s, "ws1", 3)
	appendN(t, s, "ws2", 2)
	appendN(t, s, "", 1)
	if a[0].N != 1 || a[0].Prev != "" || a[1].Prev != a[0].Hash || a[2].N != 3 {
		t.Fatalf("chain links: %+v", a)
	}
	rep, err := s.Verify(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || len(rep.Chains) != 3 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Chains[1].Workspace != "ws1" || rep.Chains[1].Records != 3 || rep.Chains[1].Head != a[2].Hash {
		t.Fatalf("ws1 chain %+v", rep.Chains[1])
	}
}

// tamper opens the journal's file directly, as an attacker with the file
// would, and runs sql.
func tamper(t *testing.T, s *audit.Store, sql string) {
	t.Helper()
	c, err := sqlite.Open(s.Path(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Exec("PRAGMA busy_timeout=5000; " + sql); err != nil {
		t.Fatal(err)
	}
}

func TestChain_DetectsTampering(t *testing.T) {
	cases := []struct {
		name, sql, want string
	}{
		{"body edited", `UPDATE records SET body = replace(body, '"outcome":"ok"', '"outcome":"denied"') WHERE workspace = 'ws1' AND n = 2`, "modified"},
		{"column edited", `UPDATE records SET actor = 'someone' WHERE workspace = 'ws1' AND n = 2`, "modified"},
		{"record removed", `DELETE FROM records WHERE workspace = 'ws1' AND n = 2`, "missing"},
		{"last removed", `DELETE FROM records WHERE workspace = 'ws1' AND n = 3`, "removed from its end"},
		{"rehashed alone", `UPDATE records SET body = replace(body, '"outcome":"ok"', '"outcome":"x"'), hash = 'ab' WHERE workspace = 'ws1' AND n = 2`, "prev"},
		{"inserted into an unknown chain", `INSERT INTO records(workspace, n, time, kind, action, actor, session, body, hash) VALUES ('ghost', 1, 0, 'api', 'a', '', '', '{}', '')`, "inserted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, audit.Options{})
			appendN(t, s, "ws1", 3)
			appendN(t, s, "ws2", 1)
			tamper(t, s, tc.sql)
			rep, err := s.Verify(context.Background(), "")
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) == 0 {
				t.Fatalf("tampering not detected: %+v", rep)
			}
			var all []string
			for _, p := range rep.Problems {
				all = append(all, p.What)
				if p.Workspace == "ws2" {
					t.Errorf("an untouched chain reported: %+v", p)
				}
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.want) {
				t.Fatalf("problems %q do not say %q", all, tc.want)
			}
		})
	}
}

func TestQuery_FiltersAndPages(t *testing.T) {
	s := open(t, audit.Options{})
	appendN(t, s, "ws1", 5)
	r := audit.Record{Workspace: "ws2", Kind: audit.KindMCP, Action: "tools/call", Actor: "admin", Labels: audit.Labels{Session: "s2"}, Outcome: "ok", Paths: []string{"/workspace/g"}}
	if err := s.Append(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var got []audit.Record
	f := audit.Filter{Workspace: "ws1", Limit: 2}
	for pages := 0; ; pages++ {
		rs, next, err := s.Query(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rs...)
		if next == 0 {
			if pages != 2 {
				t.Fatalf("%d pages", pages+1)
			}
			break
		}
		f.After = next
	}
	if len(got) != 5 || got[4].N != 5 {
		t.Fatalf("paged: %d records", len(got))
	}
	for _, tc := range []struct {
		f    audit.Filter
		want int
	}{
		{audit.Filter{Session: "s2"}, 1},
		{audit.Filter{Actor: "tok1"}, 5},
		{audit.Filter{Action: "tools/call"}, 1},
		{audit.Filter{Path: "/workspace/f"}, 5},
		{audit.Filter{Path: "/workspace/g", Workspace: "ws1"}, 0},
		{audit.Filter{Since: r.Time}, 1},
		{audit.Filter{Until: got[0].Time.Add(time.Microsecond), Workspace: "ws1"}, 1},
	} {
		rs, _, err := s.Query(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) < tc.want || (tc.want <= 1 && len(rs) != tc.want) {
			t.Errorf("%+v: %d records, want %d", tc.f, len(rs), tc.want)
		}
	}
}

func TestAppend_RedactsAndBounds(t *testing.T) {
	const secret = "s3cr3t-VALUE-42"
	s := open(t, audit.Options{Redact: func(ws, v string) string { return strings.ReplaceAll(v, secret, "[secret API_KEY]") }})
	r := audit.Record{Workspace: "ws", Kind: audit.KindExec, Action: "exec", Outcome: "error",
		Args:  []audit.Arg{{Name: "script", Value: "curl -H 'x: " + secret + "' " + strings.Repeat("a", 10000)}, {Name: "token", Value: "dsk_abc"}},
		Error: "failed with " + secret}
	if err := s.Append(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	rs, _, err := s.Query(context.Background(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := rs[0]
	if !got.Truncated || len(got.Args[0].Value) > audit.MaxArgBytes+4 || got.Args[1].Value != audit.Redacted {
		t.Fatalf("bounds: %+v", got)
	}
	f, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(s.Path() + "-wal")
	for _, b := range [][]byte{f, wal} {
		if strings.Contains(string(b), secret) || strings.Contains(string(b), "dsk_abc") {
			t.Fatal("a secret value is in the journal's files")
		}
	}
	if !strings.Contains(got.Args[0].Value, "[secret API_KEY]") || strings.Contains(got.Error, secret) {
		t.Fatalf("redaction: %+v", got)
	}
}

func TestTrim_KeepsChainVerifiable(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := open(t, audit.Options{Now: clock, Retention: -1})
	appendN(t, s, "ws", 3)
	now = now.Add(48 * time.Hour)
	appendN(t, s, "ws", 2)
	n, err := s.Trim(context.Background(), now.Add(-time.Hour))
	if err != nil || n != 3 {
		t.Fatalf("trim: %d, %v", n, err)
	}
	rep, err := s.Verify(context.Background(), "ws")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 0 || rep.Chains[0].First != 4 || rep.Chains[0].Records != 2 {
		t.Fatalf("after trim: %+v", rep)
	}
	tamper(t, s, "DELETE FROM records WHERE n = 4")
	if rep, _ := s.Verify(context.Background(), "ws"); len(rep.Problems) == 0 {
		t.Fatal("removing the first kept record is not detected")
	}
}

func TestDeleteWorkspace_LeavesNothing(t *testing.T) {
	s := open(t, audit.Options{})
	const marker = "/workspace/unique-marker-7f3a"
	r := audit.Record{Workspace: "gone", Kind: audit.KindAPI, Action: "writeFile", Outcome: "ok", Paths: []string{marker}, Args: []audit.Arg{{Name: "path", Value: marker}}}
	for range 50 {
		r := r
		if err := s.Append(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	appendN(t, s, "kept", 2)
	before, _ := os.ReadFile(s.Path() + "-wal")
	if !strings.Contains(string(before), "unique-marker-7f3a") {
		t.Fatal("the marker is not in the write-ahead log before the deletion: the test checks nothing")
	}
	if err := s.DeleteWorkspace(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.Path(), s.Path() + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "unique-marker-7f3a") {
			t.Fatalf("%s still holds the deleted workspace's records", p)
		}
	}
	rep, err := s.Verify(context.Background(), "")
	if err != nil || len(rep.Problems) != 0 || len(rep.Chains) != 1 {
		t.Fatalf("after delete: %+v %v", rep, err)
	}
}

func TestFollow_SeesNewRecords(t *testing.T) {
	s := open(t, audit.Options{})
	appendN(t, s, "ws", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan audit.Record, 10)
	done := make(chan error, 1)
	go func() {
		done <- s.Follow(ctx, audit.Filter{Workspace: "ws"}, time.Hour, func(r audit.Record) error { got <- r; return nil })
	}()
	if r := <-got; r.N != 1 {
		t.Fatalf("first %+v", r)
	}
	appendN(t, s, "ws", 1)
	if r := <-got; r.N != 2 {
		t.Fatalf("followed %+v", r)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatal(err)
	}
}

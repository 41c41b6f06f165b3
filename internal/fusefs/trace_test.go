package fusefs_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestTracer checks the tracer's counts against go-fuse's own debug log of
// the requests the kernel sent (the oracle), its bytes against what was
// written and read, and its table at unmount.
func TestTracer(t *testing.T) {
	rl := &requestLog{}
	tr := fusefs.NewTracer()
	var out strings.Builder
	e := newEnv(t, vfs.Options{}, fusefs.Options{Debug: true, Logger: log.New(rl, "", 0), Tracer: tr, TraceOut: &out})
	d := e.path("d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 40
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	rl.take()
	before := tr.Stats()
	for i := range n {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprint(i)), data[:i*100], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	big := filepath.Join(d, "big")
	if err := os.WriteFile(big, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(d, "missing")); !os.IsNotExist(err) {
		t.Fatalf("stat missing: %v", err)
	}
	// Every request of these calls was counted when the calls returned
	// (the tracer counts before the reply goes), except RELEASE and
	// FORGET, which the kernel sends after: those are not compared.
	logged := rl.take()
	got := tr.Stats().Sub(before)
	ops := map[string]fusefs.TraceOp{}
	for _, o := range got.Ops() {
		ops[o.Op] = o
	}
	for op, c := range logged {
		if op == "RELEASE" || op == "FORGET" || op == "BATCH_FORGET" || op == "INTERRUPT" {
			continue
		}
		if ops[op].Count != int64(c) {
			t.Errorf("%s: tracer counted %d, go-fuse logged %d", op, ops[op].Count, c)
		}
	}
	for op, o := range ops {
		if op == "RELEASE" || op == "FORGET" {
			continue
		}
		if logged[op] == 0 {
			t.Errorf("%s: tracer counted %d, go-fuse logged none", op, o.Count)
		}
	}
	wantBytes := int64(len(data))
	for i := range n {
		wantBytes += int64(i * 100)
	}
	if w := ops["WRITE"]; w.Bytes != wantBytes {
		t.Errorf("WRITE bytes %d, want %d", w.Bytes, wantBytes)
	}
	if c := ops["CREATE"].Count; c != n+1 {
		t.Errorf("CREATE %d, want %d", c, n+1)
	}
	if l := ops["LOOKUP"]; l.Errors < 1 {
		t.Errorf("LOOKUP of a missing name not counted as an error: %+v", l)
	}
	for _, o := range got.Ops() {
		if o.Count > 0 && (o.P50 <= 0 || o.P50 > o.P90 || o.P90 > o.P99 || o.P99 > o.Max || o.Total < o.P50) {
			t.Errorf("%s: inconsistent latencies %+v", o.Op, o)
		}
	}

	rb := tr.Stats()
	if b, err := os.ReadFile(big); err != nil || len(b) != len(data) {
		t.Fatalf("read back: %d bytes, %v", len(b), err)
	}
	if r := tr.Stats().Sub(rb); readBytes(r) > int64(len(data)) {
		t.Errorf("READ bytes %d for a %d-byte file", readBytes(r), len(data))
	}

	if err := e.srv.Unmount(); err != nil {
		t.Fatal(err)
	}
	table := out.String()
	for _, want := range []string{"FUSE requests served by " + e.mnt, "| CREATE | ", "| WRITE | ", "| all | "} {
		if !strings.Contains(table, want) {
			t.Errorf("the unmount table lacks %q:\n%s", want, table)
		}
	}
	t.Logf("\n%s", table)
}

func readBytes(s *fusefs.TraceStats) int64 {
	for _, o := range s.Ops() {
		if o.Op == "READ" {
			return o.Bytes
		}
	}
	return 0
}

// TestTracer_SubAdd checks differences and sums of snapshots.
func TestTracer_SubAdd(t *testing.T) {
	tr := fusefs.NewTracer()
	a := tr.Stats()
	fusefs.TraceRecord(tr, "GETATTR", 10*time.Microsecond)
	fusefs.TraceRecord(tr, "GETATTR", 20*time.Microsecond)
	b := tr.Stats()
	fusefs.TraceRecord(tr, "GETATTR", 1000*time.Microsecond)
	c := tr.Stats()
	d1, d2 := b.Sub(a), c.Sub(b)
	if n, tot := d1.Requests(); n != 2 || tot != 30*time.Microsecond {
		t.Errorf("first period: %d requests, %v", n, tot)
	}
	o := d2.Ops()[0]
	if o.Count != 1 || o.P50 < 1000*time.Microsecond || o.P50 > 1200*time.Microsecond {
		t.Errorf("second period: %+v", o)
	}
	d1.Add(d2)
	if n, tot := d1.Requests(); n != 3 || tot != 1030*time.Microsecond {
		t.Errorf("sum: %d requests, %v", n, tot)
	}
	if o := d1.Ops()[0]; o.P50 < 20*time.Microsecond || o.P50 > 24*time.Microsecond || o.Max != 1000*time.Microsecond {
		t.Errorf("sum's percentiles: %+v", o)
	}
}

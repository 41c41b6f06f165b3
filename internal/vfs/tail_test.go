package vfs

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// TestJournalTail checks that Changes answered from the in-memory tail equals
// the journal table's answer, across commits of every size, a tail that wraps,
// and retention.
func TestJournalTail(t *testing.T) {
	ctx := context.Background()
	f, err := Open(ctx, t.TempDir()+"/x.db", Options{JournalKeep: 6000})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	check := func() {
		t.Helper()
		seq := f.Seq()
		for _, since := range []uint64{0, 1, seq / 3, seq / 2, seq - tailMax - 1, seq - tailMax, seq - 5, seq - 1, seq, seq + 3} {
			if since > seq+3 {
				continue // wrapped below zero
			}
			for _, limit := range []int{1, 7, 1000} {
				got, gerr := f.Changes(ctx, since, limit)
				want, werr := f.changesSQL(since, limit)
				if !errors.Is(gerr, werr) && !(gerr == nil && werr == nil) {
					t.Fatalf("since %d limit %d: error %v, table says %v", since, limit, gerr, werr)
				}
				if len(got) == 0 && len(want) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("since %d limit %d: tail gives %d changes (first %+v), table %d (first %+v)", since, limit, len(got), got[0], len(want), want[0])
				}
			}
		}
	}
	n := 0
	for round := 0; round < 12; round++ {
		size := []int{1, 3, 700, 5000}[round%4]
		err := f.Batch(ctx, func(b *Batch) error {
			for i := 0; i < size; i++ {
				n++
				b.WriteFile(fmt.Sprintf("/f%d", n%50), []byte{byte(n)}, 0o644)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		check()
	}
}

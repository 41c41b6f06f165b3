package vfs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSlotEpochs: a freed slot is reused only once its commit is durable and
// every reader that entered at or before the free has left; a slot given
// back by a rollback is free at once.
func TestSlotEpochs(t *testing.T) {
	s := &slotFile{cs: 4096, active: make(map[uint64]int)}
	var err error
	if s.f, err = createTemp(t); err != nil {
		t.Fatal(err)
	}
	defer s.close()
	a, b, c := s.alloc(), s.alloc(), s.alloc()
	if a != 0 || b != 1 || c != 2 {
		t.Fatalf("alloc = %d %d %d, want 0 1 2", a, b, c)
	}
	s.giveBack([]int64{c})
	if x := s.alloc(); x != c {
		t.Fatalf("alloc after giveBack = %d, want %d", x, c)
	}
	early := s.enter() // a reader that may see a and b
	s.committed([]int64{a, b})
	late := s.enter() // entered after the free: cannot see them
	if x := s.alloc(); x != 3 {
		t.Fatalf("alloc with frees pending = %d, want 3 (a new slot)", x)
	}
	s.durableBefore(s.mark())
	s.leave(late)
	if x := s.alloc(); x != 4 {
		t.Fatalf("alloc while an early reader is inside = %d, want 4", x)
	}
	s.leave(early)
	got := []int64{s.alloc(), s.alloc()}
	slices.Sort(got)
	if !slices.Equal(got, []int64{a, b}) {
		t.Fatalf("alloc after the reader left = %v, want the freed %d %d", got, a, b)
	}
	// Not durable: not reused, even with no reader.
	s.committed([]int64{got[0]})
	if !s.pending() {
		t.Fatal("a free not yet durable is not pending")
	}
	if x := s.alloc(); x != 5 {
		t.Fatalf("alloc before durability = %d, want 5", x)
	}
	s.durableBefore(s.mark())
	if x := s.alloc(); x != got[0] {
		t.Fatalf("alloc after durability = %d, want %d", x, got[0])
	}
}

func createTemp(t *testing.T) (*os.File, error) {
	return os.Create(filepath.Join(t.TempDir(), "chunks"))
}

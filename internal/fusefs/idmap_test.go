package fusefs

import "testing"

// TestIDMap_Owner: with an owner, store id 0 and the owner's id exchange
// places, every other id maps as without one, and the mapping round-trips.
func TestIDMap_Owner(t *testing.T) {
	m := IDMap{Host: 1 << 20, Count: 65536, UID: 1000, GID: 1001}
	for _, c := range []struct{ store, kernel, owner uint32 }{
		{0, 1<<20 + 1000, m.UID}, {1000, 1 << 20, m.UID}, {5, 1<<20 + 5, m.UID},
		{0, 1<<20 + 1001, m.GID}, {1001, 1 << 20, m.GID}, {1000, 1<<20 + 1000, m.GID},
		{70000, 1<<20 + overflowID, m.UID},
	} {
		if got := m.toKernel(c.store, c.owner); got != c.kernel {
			t.Errorf("toKernel(%d, owner %d) = %d, want %d", c.store, c.owner, got, c.kernel)
		}
		if c.store < m.Count {
			if got := m.toStore(c.kernel, c.owner); got != c.store {
				t.Errorf("toStore(%d, owner %d) = %d, want %d", c.kernel, c.owner, got, c.store)
			}
		}
	}
	if got := m.toStore(42, m.UID); got != overflowID {
		t.Errorf("a host id outside the range: %d", got)
	}
	plain := IDMap{Host: 1 << 20, Count: 65536}
	if plain.toKernel(0, plain.UID) != 1<<20 || plain.toStore(1<<20, plain.UID) != 0 {
		t.Errorf("without an owner, store 0 is not root inside")
	}
}

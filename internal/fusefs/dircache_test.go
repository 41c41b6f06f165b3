package fusefs_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/desk-dev/desk/internal/fusefs"
	"github.com/desk-dev/desk/internal/vfs"
)

// TestDirCache_ListingsFollowOthers: the kernel keeps directory listings
// (FOPEN_CACHE_DIR). While another writer keeps changing a directory and
// processes list it through the mount, every listing made after Server.Sync
// must show the store's entries exactly: a listing cached while the directory
// changed is dropped at the next open.
func TestDirCache_ListingsFollowOthers(t *testing.T) {
	e := newEnv(t, vfs.Options{}, fusefs.Options{})
	ctx := context.Background()
	s := e.store
	if err := s.Mkdir(ctx, "/d", 0o755); err != nil {
		t.Fatal(err)
	}
	e.sync(t)
	storeNames := func() []string {
		ents, err := s.ReadDir(ctx, "/d")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, en := range ents {
			names = append(names, en.Name)
		}
		return names
	}
	mountNames := func() []string {
		ents, err := os.ReadDir(e.path("d"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, en := range ents {
			names = append(names, en.Name())
		}
		return names
	}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for round := range rounds {
		// Both sides run until each has done n operations (a different
		// overlap each round), then stop.
		n := 4 * (1 + round%5)
		stop, wrote, listed := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { // another writer
			defer wg.Done()
			for i := 0; ; i++ {
				if i == n {
					close(wrote)
				}
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("/d/r%d-%d", round, i%7)
				if i%3 == 2 {
					s.Remove(ctx, name)
				} else {
					s.WriteFile(ctx, name, nil, 0o644)
				}
			}
		}()
		go func() { // processes listing the directory through the mount
			defer wg.Done()
			for i := 0; ; i++ {
				if i == n {
					close(listed)
				}
				select {
				case <-stop:
					return
				default:
				}
				os.ReadDir(e.path("d"))
			}
		}()
		<-wrote
		<-listed
		close(stop)
		wg.Wait()
		e.sync(t)
		want, got := storeNames(), mountNames()
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: the mount lists %v, the store has %v", round, got, want)
		}
	}
}

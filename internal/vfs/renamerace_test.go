package vfs_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestRenameOverIsAtomicForReaders replaces a file by renaming new files
// over it (what git and every atomic writer do) while other goroutines
// Stat, open and read it: rename(2) guarantees the name exists throughout,
// so no reader may see ENOENT or an empty file. Before walks were repeated
// after a concurrent commit, a reader could take the name's old inode from
// the cache and find it deleted the next instant (gitws's
// TestConcurrentStatusAndCommit saw HEAD's branch as unborn, about 1 run in
// 40 under -race).
func TestRenameOverIsAtomicForReaders(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	if err := f.MkdirAll(ctx, "/d/refs", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/d/refs/ref", []byte("v0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const rounds = 400
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if _, err := f.Stat(ctx, "/d/refs/ref"); err != nil {
					fail(fmt.Errorf("stat: %w", err))
					return
				}
				b, err := f.ReadFile(ctx, "/d/refs/ref")
				if err != nil {
					fail(fmt.Errorf("read: %w", err))
					return
				}
				if len(b) == 0 || b[0] != 'v' {
					fail(fmt.Errorf("read %q", b))
					return
				}
			}
		}()
	}
	for i := 1; i <= rounds; i++ {
		tmp := fmt.Sprintf("/d/refs/ref.%d.tmp", i)
		if err := f.WriteFile(ctx, tmp, []byte(fmt.Sprintf("v%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := f.Rename(ctx, tmp, "/d/refs/ref", 0); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

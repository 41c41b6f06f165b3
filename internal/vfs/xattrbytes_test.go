package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// TestXattrBytes checks MaxXattrBytes, an inode's names and values together
// (in bytes), through every way the count changes: a new attribute, a
// replaced value (its old size is given back), a removal, XATTR_CREATE and
// XATTR_REPLACE failures (nothing changes), an inode's deletion and a
// rolled-back batch; Check verifies the kept count against the rows after
// each step.
func TestXattrBytes(t *testing.T) {
	ctx := context.Background()
	const max = 1000
	f := openStore(t, vfs.Options{MaxXattrBytes: max})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	wantErr := func(err error, want syscall.Errno) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("error %v, want %v", err, want)
		}
	}
	must(f.WriteFile(ctx, "/f", nil, 0o644))
	must(f.WriteFile(ctx, "/g", nil, 0o644))
	// "user.é" is 7 bytes (é is two): 7 + 493 = 500, twice is the bound.
	must(f.Setxattr(ctx, "/f", "user.é", make([]byte, 493), 0))
	must(f.Setxattr(ctx, "/f", "user.b", make([]byte, 494), 0))
	checkOK(t, f)
	wantErr(f.Setxattr(ctx, "/f", "user.c", nil, 0), syscall.ENOSPC)
	// Another inode has its own count.
	must(f.Setxattr(ctx, "/g", "user.c", make([]byte, 994), 0))
	// A replacement counts the new value instead of the old one.
	must(f.Setxattr(ctx, "/f", "user.b", make([]byte, 494), vfs.XattrReplace))
	wantErr(f.Setxattr(ctx, "/f", "user.b", make([]byte, 495), 0), syscall.ENOSPC)
	must(f.Setxattr(ctx, "/f", "user.b", make([]byte, 10), 0))
	wantErr(f.Setxattr(ctx, "/f", "user.b", nil, vfs.XattrCreate), syscall.EEXIST)
	wantErr(f.Setxattr(ctx, "/f", "user.x", nil, vfs.XattrReplace), syscall.ENODATA)
	must(f.Setxattr(ctx, "/f", "user.c", make([]byte, 478), 0)) // 500 + 16 + 484 = 1000
	wantErr(f.Setxattr(ctx, "/f", "user.d", nil, 0), syscall.ENOSPC)
	checkOK(t, f)
	// A removal gives its bytes back.
	must(f.Removexattr(ctx, "/f", "user.é"))
	must(f.Setxattr(ctx, "/f", "user.d", make([]byte, 494), 0))
	checkOK(t, f)
	// A batch that fails is undone with its counts.
	err := f.Batch(ctx, func(b *vfs.Batch) error {
		if err := b.WriteFile("/h", nil, 0o644); err != nil {
			return err
		}
		if err := b.Setxattr("/h", "user.a", make([]byte, 100), 0); err != nil {
			return err
		}
		if err := b.Setxattr("/f", "user.b", make([]byte, 2), 0); err != nil {
			return err
		}
		return errors.New("undo")
	})
	if err == nil {
		t.Fatal("Batch returned nil")
	}
	checkOK(t, f)
	wantErr(f.Setxattr(ctx, "/f", "user.b", make([]byte, 11), 0), syscall.ENOSPC)
	// Deleting an inode deletes its attributes and their count.
	must(f.Remove(ctx, "/f"))
	must(f.Remove(ctx, "/g"))
	checkOK(t, f)
	must(f.WriteFile(ctx, "/f", nil, 0o644))
	must(f.Setxattr(ctx, "/f", "user.é", make([]byte, 993), 0))
	checkOK(t, f)
}

// TestMigrateV4 opens a store version 4 wrote (testdata/store-v4.db.gz, made
// by the code before xattr_bytes, with MaxXattrBytes 4096: ten attributes of
// 100 bytes on /d/f, one with a two-byte character on /d, one on /d/g): Open
// upgrades it to version 5, the counts are filled from the rows (Check), and
// the bound counts the old attributes.
func TestMigrateV4(t *testing.T) {
	ctx := context.Background()
	path := oldStore(t, "testdata/store-v4.db.gz", 4)
	f, err := vfs.Open(ctx, path, vfs.Options{MaxXattrBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantUpgraded(t, path)
	checkOK(t, f)
	// /d/f holds 10 × (7 + 100) = 1070 bytes: 3026 more fit, not 3027.
	if err := f.Setxattr(ctx, "/d/f", "user.big", make([]byte, 3027-8), 0); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Setxattr past the bound: %v, want ENOSPC", err)
	}
	if err := f.Setxattr(ctx, "/d/f", "user.big", make([]byte, 3026-8), 0); err != nil {
		t.Fatal(err)
	}
	if v, err := f.Getxattr(ctx, "/d", "user.dir"); err != nil || string(v) != "é" {
		t.Fatalf("Getxattr /d user.dir = %q, %v", v, err)
	}
	checkOK(t, f)
}

// BenchmarkSetxattr sets one more attribute on an inode that already has n:
// the cost should not grow with n (it summed the inode's attributes before
// xattr_bytes).
func BenchmarkSetxattr(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 3000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			f := openStore(b, vfs.Options{})
			if err := f.WriteFile(ctx, "/f", nil, 0o644); err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if err := f.Setxattr(ctx, "/f", fmt.Sprintf("user.a%d", i), make([]byte, 32), 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := range b.N {
				if err := f.Setxattr(ctx, "/f", fmt.Sprintf("user.b%d", i%1000), make([]byte, 32), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

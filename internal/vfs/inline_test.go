package vfs_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/vfs/vfstest"
)

// TestMigrateV2 opens a store version 2 wrote (testdata/store-v2.db.gz,
// made by the code before inline content: small files in chunks, a 2,048-byte
// file, a 70,000-byte one, an empty one, a hard link, a symlink, an xattr,
// and a 2,048-byte file truncated to 1,000 that stays in its chunk): Open
// upgrades it to version 4 (through 3), everything reads back, Check passes, and its
// small files move inline when they are written again.
func TestMigrateV2(t *testing.T) {
	ctx := context.Background()
	path, f := upgradeOldStore(t, "testdata/store-v2.db.gz", 2)
	big := make([]byte, 70000)
	for i := range big {
		big[i] = byte(i * 7 % 251)
	}
	want := map[string][]byte{
		"/d/small": []byte("hello\n"), "/d/small2": []byte("hello\n"), "/d/edge": bytes.Repeat([]byte("e"), 1000),
		"/d/big": big, "/d/empty": {},
	}
	check := func(f *vfs.FS, inline int64) {
		t.Helper()
		for p, w := range want {
			if got, err := f.ReadFile(ctx, p); err != nil || !bytes.Equal(got, w) {
				t.Errorf("ReadFile %s: %d bytes, %v; want %d", p, len(got), err, len(w))
			}
		}
		if got, err := f.Readlink(ctx, "/d/sl"); err != nil || got != "small" {
			t.Errorf("Readlink = %q, %v", got, err)
		}
		if v, err := f.Getxattr(ctx, "/d/small", "user.k"); err != nil || string(v) != "v" {
			t.Errorf("Getxattr = %q, %v", v, err)
		}
		checkOK(t, f)
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.InlineFiles != inline {
			t.Errorf("InlineFiles = %d, want %d", st.InlineFiles, inline)
		}
	}
	check(f, 0)
	// Written again, the small files move inline (the truncated one from
	// its chunk, merged: a write through a handle).
	want["/d/small"] = []byte("hello again\n")
	want["/d/small2"] = want["/d/small"]
	if err := f.WriteFile(ctx, "/d/small", want["/d/small"], 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := f.OpenFile(ctx, "/d/edge", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.WriteAt([]byte("XY"), 10); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	copy(want["/d/edge"][10:], "XY")
	check(f, 2)
	f = reopenReadOnly(t, f, path)
	wantUpgraded(t, path)
	defer f.Close()
	check(f, 2)
}

func checkOK(t *testing.T, f *vfs.FS) {
	t.Helper()
	rep, err := f.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("Check: %v", rep.Problems)
	}
}

// TestInlineTransitions walks one file through every move between inline
// and chunked content (see inline.go), checking after each step the bytes,
// the size, whether it is inline (Stats), the blocks, the quota's count
// (Statfs), SeekData and SeekHole, ReadDirFiles, and Check; then again after
// a reopen.
func TestInlineTransitions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	opts := vfs.Options{ChunkSize: 4096, InlineMax: 1024}
	f, err := vfs.Open(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { f.Close() }()
	var model []byte
	step := func(what string, inline bool) {
		t.Helper()
		got, err := f.ReadFile(ctx, "/f")
		if err != nil || !bytes.Equal(got, model) {
			t.Fatalf("%s: ReadFile %d bytes %v, want %d", what, len(got), err, len(model))
		}
		st, err := f.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if (st.InlineFiles == 1) != inline {
			t.Fatalf("%s: %d inline files, want inline %v", what, st.InlineFiles, inline)
		}
		if inline && st.InlineBytes > int64(len(model)) {
			t.Fatalf("%s: %d inline bytes for %d", what, st.InlineBytes, len(model))
		}
		sfs, err := f.Statfs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if sfs.UsedBytes != st.UniqueBytes {
			t.Fatalf("%s: Statfs used %d, Stats unique %d", what, sfs.UsedBytes, st.UniqueBytes)
		}
		fi, err := f.Stat(ctx, "/f")
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != int64(len(model)) {
			t.Fatalf("%s: size %d, want %d", what, fi.Size(), len(model))
		}
		if zero := !bytes.ContainsFunc(model, func(r rune) bool { return r != 0 }); zero && fi.Attr().Blocks != 0 {
			t.Fatalf("%s: %d blocks for zeros only", what, fi.Attr().Blocks)
		} else if !zero && fi.Attr().Blocks == 0 {
			t.Fatalf("%s: no blocks for content", what)
		}
		ents, err := f.ReadDirFiles(ctx, "/", "", 10, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || !ents[0].Loaded && len(model) <= 4096 || ents[0].Loaded && !bytes.Equal(append([]byte{}, ents[0].Data...), model) {
			t.Fatalf("%s: ReadDirFiles %+v", what, ents)
		}
		if len(model) > 0 {
			h, err := f.Open(ctx, "/f")
			if err != nil {
				t.Fatal(err)
			}
			d, derr := h.Seek(0, vfs.SeekData)
			h.Close()
			if first := bytes.IndexFunc(model, func(r rune) bool { return r != 0 }); first < 0 && vfs.Errno(derr) == 0 || first >= 0 && (derr != nil || d > int64(first)) {
				t.Fatalf("%s: SeekData(0) = %d, %v (first data byte %d)", what, d, derr, first)
			}
		}
		checkOK(t, f)
	}
	write := func(data []byte) {
		t.Helper()
		if err := f.WriteFile(ctx, "/f", data, 0o644); err != nil {
			t.Fatal(err)
		}
		model = append([]byte(nil), data...)
	}
	patch := func(off int64, data []byte) {
		t.Helper()
		h, err := f.OpenFile(ctx, "/f", os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.WriteAt(data, off); err != nil {
			t.Fatal(err)
		}
		if err := h.Close(); err != nil {
			t.Fatal(err)
		}
		if end := off + int64(len(data)); end > int64(len(model)) {
			model = append(model, make([]byte, end-int64(len(model)))...)
		}
		copy(model[off:], data)
	}
	truncate := func(n int64) {
		t.Helper()
		if err := f.Truncate(ctx, "/f", n); err != nil {
			t.Fatal(err)
		}
		model = append(model, make([]byte, max(n-int64(len(model)), 0))...)[:n]
	}
	write(nil)
	step("empty", false)
	write([]byte("small"))
	step("small", true)
	patch(2, []byte("ALL"))
	step("patched in place", true)
	truncate(1024)
	step("grown to the inline size", true)
	truncate(3)
	step("shrunk", true)
	patch(1000, bytes.Repeat([]byte("p"), 24))
	step("patched up to the inline size", true)
	patch(1024, []byte("x"))
	step("one byte past it: moved out", false)
	truncate(10)
	step("shrunk: stays chunked", false)
	patch(0, []byte("z"))
	step("written small: moves in", true)
	truncate(5000)
	step("grown past the inline size by truncate: moved out", false)
	truncate(0)
	step("emptied", false)
	write(make([]byte, 900))
	step("zeros: a hole", false)
	patch(899, []byte("!"))
	step("a byte in the hole", true)
	if err := f.Link(ctx, "/f", "/g"); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename(ctx, "/g", "/h", 0); err != nil {
		t.Fatal(err)
	}
	if got, err := f.ReadFile(ctx, "/h"); err != nil || !bytes.Equal(got, model) {
		t.Fatalf("link: %q %v", got, err)
	}
	if err := f.Remove(ctx, "/h"); err != nil {
		t.Fatal(err)
	}
	step("linked and unlinked again", true)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if f, err = vfs.Open(ctx, path, vfs.Options{}); err != nil {
		t.Fatal(err)
	}
	step("reopened", true)
	// The threshold is the store's: a reopen with other options keeps it.
	write(bytes.Repeat([]byte("q"), 1025))
	step("1025 bytes after a reopen with the default options", false)
	if err := f.Remove(ctx, "/f"); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.UniqueBytes != 0 || st.InlineFiles != 0 || st.Chunks != 0 {
		t.Fatalf("after remove: %+v", st)
	}
	checkOK(t, f)
}

// TestInlineQuota checks that inline content counts against the quota as
// chunks do, and frees it when it goes.
func TestInlineQuota(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{QuotaBytes: 10000})
	for i := 0; i < 5; i++ {
		if err := f.WriteFile(ctx, fmt.Sprintf("/f%d", i), bytes.Repeat([]byte{byte('a' + i)}, 2000), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.WriteFile(ctx, "/over", []byte("x"), 0o644); vfs.Errno(err) == 0 {
		t.Fatalf("write past the quota: %v, want ENOSPC", err)
	}
	if err := f.Remove(ctx, "/f0"); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/over", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkOK(t, f)
}

// TestInlineDiff runs random programs of content operations (whole-file
// writes, handle writes, reads and truncations at offsets either side of
// the inline sizes, links and removes) against the kernel (vfstest.Diff on a
// temporary directory), on stores with several inline sizes, one of them
// none: the store's answers, and its bytes, do not depend on where it keeps
// the content. The programs are drawn from a fixed seed; FuzzOps explores
// the whole operation set (renames, directories, xattrs) with the default
// inline size.
func TestInlineDiff(t *testing.T) {
	for _, im := range []int{-1, 100, 2048, 4096} {
		t.Run(fmt.Sprintf("inline%d", im), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(im+7), 1))
			for i := 0; i < 30; i++ {
				prog := contentProgram(r, 60+r.IntN(80))
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					store := adapter{openStore(t, vfs.Options{ChunkSize: 4 << 10, InlineMax: im})}
					dir := t.TempDir()
					if err := os.Chmod(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					vfstest.Diff(t, store, vfstest.OS(dir), prog)
					checkOK(t, store.FS)
				})
			}
		})
	}
}

// contentProgram draws a vfstest.Diff program of n content operations, each
// its kind byte and its argument bytes (see vfstest.Decode).
func contentProgram(r *rand.Rand, n int) []byte {
	ops := []struct {
		kind vfstest.OpKind
		args int
	}{
		{vfstest.OpWriteFile, 4}, {vfstest.OpReadFile, 1}, {vfstest.OpStat, 1}, {vfstest.OpRemove, 1},
		{vfstest.OpLink, 2}, {vfstest.OpTruncate, 2}, {vfstest.OpOpen, 4}, {vfstest.OpOpen, 4},
		{vfstest.OpClose, 1}, {vfstest.OpFStat, 1}, {vfstest.OpSync, 1}, {vfstest.OpWrite, 3},
		{vfstest.OpWrite, 3}, {vfstest.OpRead, 2}, {vfstest.OpReadAt, 3}, {vfstest.OpWriteAt, 4},
		{vfstest.OpWriteAt, 4}, {vfstest.OpSeek, 2}, {vfstest.OpFTruncate, 2},
	}
	var prog []byte
	for range n {
		o := ops[r.IntN(len(ops))]
		at := len(prog)
		prog = append(prog, byte(o.kind))
		for range o.args {
			prog = append(prog, byte(r.Uint32()))
		}
		if (o.kind == vfstest.OpWrite || o.kind == vfstest.OpWriteAt) && prog[at+2]%16 == 0 {
			// Not an empty write: os.File.WriteAt skips the system call
			// for one (nil on a read-only file, where the store says EBADF).
			prog[at+2]++
		}
	}
	return prog
}

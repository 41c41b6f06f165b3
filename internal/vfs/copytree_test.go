package vfs_test

import (
	"bytes"
	"context"
	"fmt"
	mathrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// copyClock is a settable clock for a store (Options.Now).
type copyClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *copyClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *copyClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// copyFixture makes /src: nested directories, an empty file, inline files,
// a file of exactly one chunk (in the chunk file), a multi-chunk file with a
// hole, a set-user-ID file, a private directory, a symlink, a FIFO, a
// device, two names of one inode and an xattr. It returns the paths below
// /src, sorted.
func copyFixture(t *testing.T, ctx context.Context, f *vfs.FS) []string {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.MkdirAll(ctx, "/src/a/b", 0o755))
	must(f.Mkdir(ctx, "/src/priv", 0o700))
	must(f.WriteFile(ctx, "/src/empty", nil, 0o644))
	must(f.WriteFile(ctx, "/src/small", []byte("hello\n"), 0o640))
	must(f.WriteFile(ctx, "/src/a/inline", bytes.Repeat([]byte("x"), 2000), 0o644))
	must(f.WriteFile(ctx, "/src/a/b/chunk", randBytes(16<<10), 0o600))
	sparse := append(randBytes(40<<10), make([]byte, 64<<10)...)
	sparse = append(sparse, randBytes(5000)...)
	must(f.WriteFile(ctx, "/src/a/b/sparse", sparse, 0o644))
	must(f.WriteFile(ctx, "/src/suid", []byte("#!/bin/sh\n"), 0o755))
	must(f.Chmod(ctx, "/src/suid", os.ModeSetuid|0o755))
	must(f.WriteFile(ctx, "/src/priv/secret", []byte("s"), 0o600))
	must(f.Symlink(ctx, "a/inline", "/src/link"))
	must(f.Mknod(ctx, "/src/fifo", vfs.S_IFIFO|0o644, 0))
	must(f.Mknod(ctx, "/src/a/tty", vfs.S_IFCHR|0o620, 0x0401))
	must(f.WriteFile(ctx, "/src/hard1", []byte("linked"), 0o644))
	must(f.Link(ctx, "/src/hard1", "/src/a/hard2"))
	must(f.Setxattr(ctx, "/src/small", "user.tag", []byte("v"), 0))
	return []string{"a", "a/b", "a/b/chunk", "a/b/sparse", "a/hard2", "a/inline", "a/tty", "empty", "fifo", "hard1", "link", "priv", "priv/secret", "small", "suid"}
}

// copyCompare checks that every path below src has its copy below dst with
// the same type, size, content, target and device, and returns the pairs
// of attributes by relative path.
func copyCompare(t *testing.T, ctx context.Context, f *vfs.FS, src, dst string, rels []string) map[string][2]vfs.Attr {
	t.Helper()
	out := map[string][2]vfs.Attr{}
	for _, rel := range append([]string{""}, rels...) {
		sp, dp := src+"/"+rel, dst+"/"+rel
		if rel == "" {
			sp, dp = src, dst
		}
		sfi, err := f.Lstat(ctx, sp)
		if err != nil {
			t.Fatal(err)
		}
		dfi, err := f.Lstat(ctx, dp)
		if err != nil {
			t.Fatalf("copy of %s: %v", rel, err)
		}
		sa, da := sfi.Attr(), dfi.Attr()
		if sa.Mode&vfs.S_IFMT != da.Mode&vfs.S_IFMT || sa.Size != da.Size || sa.Rdev != da.Rdev || sa.Blocks != da.Blocks {
			t.Errorf("%s: copy %+v, source %+v", rel, da, sa)
		}
		if sa.Ino == da.Ino {
			t.Errorf("%s: the copy is the source's inode", rel)
		}
		switch sa.Mode & vfs.S_IFMT {
		case vfs.S_IFREG:
			sb, err1 := f.ReadFile(ctx, sp)
			db, err2 := f.ReadFile(ctx, dp)
			if err1 != nil || err2 != nil || !bytes.Equal(sb, db) {
				t.Errorf("%s: content differs (%v %v)", rel, err1, err2)
			}
		case vfs.S_IFLNK:
			st, _ := f.Readlink(ctx, sp)
			dt, err := f.Readlink(ctx, dp)
			if err != nil || st != dt {
				t.Errorf("%s: target %q, want %q (%v)", rel, dt, st, err)
			}
		case vfs.S_IFDIR:
			if sa.Nlink != da.Nlink {
				t.Errorf("%s: nlink %d, source %d", rel, da.Nlink, sa.Nlink)
			}
		}
		out[rel] = [2]vfs.Attr{sa, da}
	}
	// Nothing more in the copy than in the source.
	var n int
	var walk func(string)
	walk = func(dir string) {
		ents, err := f.ReadDir(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			n++
			if e.Mode&vfs.S_IFMT == vfs.S_IFDIR {
				walk(dir + "/" + e.Name)
			}
		}
	}
	walk(dst)
	if n != len(rels) {
		t.Errorf("the copy has %d entries, the source %d", n, len(rels))
	}
	return out
}

// TestCopyTree: a copy as GNU cp -r makes it: content, types, targets and
// devices equal, modes less the umask (rwx only for files, set-user-ID
// dropped), all four times the copy's, the caller's owner, hard links
// split, no xattrs; each created path journalled once; the copy shares the
// source's chunks (no unique bytes added) and stays when the source goes;
// a write to the copy leaves the source alone.
func TestCopyTree(t *testing.T) {
	ctx := context.Background()
	clk := &copyClock{t: time.Unix(1_700_000_000, 5)}
	f := openStore(t, vfs.Options{ChunkSize: 16 << 10, Now: clk.now})
	rels := copyFixture(t, ctx, f)
	before, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seq := f.Seq()
	t1 := time.Unix(1_700_000_100, 7)
	clk.set(t1)
	octx := vfs.WithOwner(ctx, 1000, 1000)
	if err := f.CopyTree(octx, "/src", "/dst", vfs.CopyOptions{Umask: 0o027}); err != nil {
		t.Fatal(err)
	}
	attrs := copyCompare(t, ctx, f, "/src", "/dst", rels)
	for rel, a := range attrs {
		sa, da := a[0], a[1]
		var want uint32
		switch sa.Mode & vfs.S_IFMT {
		case vfs.S_IFLNK:
			want = sa.Mode
		case vfs.S_IFDIR:
			want = sa.Mode&vfs.S_IFMT | sa.Mode&0o7777&^0o027
		default:
			want = sa.Mode&vfs.S_IFMT | sa.Mode&0o777&^0o027
		}
		if da.Mode != want {
			t.Errorf("%q: mode %o, want %o", rel, da.Mode, want)
		}
		for i, tm := range []time.Time{da.Atime, da.Mtime, da.Ctime, da.Btime} {
			if !tm.Equal(t1) {
				t.Errorf("%q: time %d is %v, want the copy's %v", rel, i, tm, t1)
			}
		}
		if da.Uid != 1000 || da.Gid != 1000 {
			t.Errorf("%q: owner %d:%d, want the caller's", rel, da.Uid, da.Gid)
		}
		if sa.Mode&vfs.S_IFMT != vfs.S_IFDIR && da.Nlink != 1 {
			t.Errorf("%q: nlink %d, want 1 (links are split)", rel, da.Nlink)
		}
	}
	if _, err := f.Getxattr(ctx, "/dst/small", "user.tag"); vfs.Errno(err) != syscall.ENODATA {
		t.Errorf("xattr copied without PreserveXattrs: %v", err)
	}
	// The parent's link count and the journal.
	if fi, _ := f.Stat(ctx, "/"); fi.Attr().Nlink != 4 { // ., .., src, dst
		t.Errorf("root nlink %d after the copy, want 4", fi.Attr().Nlink)
	}
	chs, err := f.Changes(ctx, seq, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	ops := map[string]vfs.Op{}
	for _, c := range chs {
		paths = append(paths, c.Path)
		ops[c.Path] = c.Op
	}
	sort.Strings(paths)
	want := []string{"/dst"}
	for _, r := range rels {
		want = append(want, "/dst/"+r)
	}
	if fmt.Sprint(paths) != fmt.Sprint(want) {
		t.Errorf("journal paths %v, want %v", paths, want)
	}
	for p, op := range map[string]vfs.Op{"/dst": vfs.OpMkdir, "/dst/a": vfs.OpMkdir, "/dst/small": vfs.OpCreate, "/dst/link": vfs.OpSymlink, "/dst/fifo": vfs.OpMknod, "/dst/a/tty": vfs.OpMknod} {
		if ops[p] != op {
			t.Errorf("journal op of %s: %q, want %q", p, ops[p], op)
		}
	}
	after, err := f.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	inl := int64(len("hello\n") + 2000 + len("#!/bin/sh\n") + 1 + 2*len("linked"))
	// Unique bytes include inline ones: the copy adds those, and no chunk.
	if after.UniqueBytes != before.UniqueBytes+inl || after.InlineBytes != before.InlineBytes+inl {
		t.Errorf("unique bytes %d → %d, inline %d → %d, want +%d each (chunks shared)",
			before.UniqueBytes, after.UniqueBytes, before.InlineBytes, after.InlineBytes, inl)
	}
	// Independent of the source.
	if err := f.WriteFile(ctx, "/dst/a/b/chunk", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := f.Stat(ctx, "/src/a/b/chunk"); fi.Size() != 16<<10 {
		t.Errorf("a write to the copy changed the source: size %d", fi.Size())
	}
	want2, _ := f.ReadFile(ctx, "/src/a/b/sparse")
	if err := f.RemoveAll(ctx, "/src"); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFile(ctx, "/dst/a/b/sparse")
	if err != nil || !bytes.Equal(got, want2) {
		t.Errorf("the copy after the source's removal: %v", err)
	}
}

// TestCopyTreePreserve: with every Preserve option the copy keeps all 12
// permission bits, atime and mtime (ctime and btime are new), the owner,
// hard links within the tree (one inode, nlink 2, journalled as OpLink)
// and xattrs.
func TestCopyTreePreserve(t *testing.T) {
	ctx := context.Background()
	clk := &copyClock{t: time.Unix(1_700_000_000, 5)}
	f := openStore(t, vfs.Options{ChunkSize: 16 << 10, Now: clk.now})
	rels := copyFixture(t, vfs.WithOwner(ctx, 7, 8), f)
	_ = rels
	t1 := time.Unix(1_700_000_100, 7)
	clk.set(t1)
	seq := f.Seq()
	o := vfs.CopyOptions{Umask: 0o077, PreserveMode: true, PreserveTimes: true, PreserveOwner: true, PreserveLinks: true, PreserveXattrs: true}
	if err := f.CopyTree(ctx, "/src", "/dst", o); err != nil {
		t.Fatal(err)
	}
	for rel, a := range copyCompare(t, ctx, f, "/src", "/dst", rels) {
		sa, da := a[0], a[1]
		if da.Mode != sa.Mode || !da.Atime.Equal(sa.Atime) || !da.Mtime.Equal(sa.Mtime) || da.Uid != sa.Uid || da.Gid != sa.Gid {
			t.Errorf("%q: copy %+v, source %+v", rel, da, sa)
		}
		if !da.Ctime.Equal(t1) || !da.Btime.Equal(t1) {
			t.Errorf("%q: ctime %v btime %v, want the copy's %v", rel, da.Ctime, da.Btime, t1)
		}
	}
	h1, _ := f.Lstat(ctx, "/dst/hard1")
	h2, _ := f.Lstat(ctx, "/dst/a/hard2")
	if h1.Attr().Ino != h2.Attr().Ino || h1.Attr().Nlink != 2 {
		t.Errorf("hard links: %+v and %+v, want one inode with nlink 2", h1.Attr(), h2.Attr())
	}
	if v, err := f.Getxattr(ctx, "/dst/small", "user.tag"); err != nil || string(v) != "v" {
		t.Errorf("xattr: %q %v", v, err)
	}
	chs, _ := f.Changes(ctx, seq, 1000)
	links := 0
	for _, c := range chs {
		if c.Op == vfs.OpLink {
			links++
			if c.Path != "/dst/hard1" && c.Path != "/dst/a/hard2" {
				t.Errorf("link change %+v", c)
			}
		}
	}
	if links != 1 || len(chs) != len(rels)+1 {
		t.Errorf("%d changes with %d links, want %d with 1", len(chs), links, len(rels)+1)
	}
	// The links stay one file: a write through one shows through the other.
	if err := f.WriteFile(ctx, "/dst/hard1", []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := f.ReadFile(ctx, "/dst/a/hard2"); string(b) != "changed" {
		t.Errorf("hard2 reads %q", b)
	}
	if b, _ := f.ReadFile(ctx, "/src/a/hard2"); string(b) != "linked" {
		t.Errorf("the source's link reads %q", b)
	}
}

// TestCopyTreeErrors: the errno of each refusal, in the kernel's terms,
// and nothing made by any of them.
func TestCopyTreeErrors(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	copyFixture(t, ctx, f)
	f.WriteFile(ctx, "/file", []byte("x"), 0o644)
	seq := f.Seq()
	for _, c := range []struct {
		src, dst string
		want     syscall.Errno
	}{
		{"/missing", "/dst", syscall.ENOENT},
		{"/file", "/dst", syscall.ENOTDIR},
		{"/src/link", "/dst", syscall.ENOTDIR},
		{"/src", "/file", syscall.EEXIST},
		{"/src", "/src/a/b/x", syscall.EINVAL},
		{"/src", "/src", syscall.EEXIST},
		{"/src", "/nodir/dst", syscall.ENOENT},
		{"/src", "/file/dst", syscall.ENOTDIR},
	} {
		if err := f.CopyTree(ctx, c.src, c.dst, vfs.CopyOptions{}); vfs.Errno(err) != c.want {
			t.Errorf("CopyTree(%s, %s): %v, want %v", c.src, c.dst, err, c.want)
		}
	}
	if f.Seq() != seq {
		t.Errorf("refused copies changed the store (seq %d → %d)", seq, f.Seq())
	}
}

// TestCopyTreeQuota: a copy that would pass the inode limit or the byte
// quota (its inline content) fails with EDQUOT before it writes anything;
// content in chunks is shared, so a copy of more bytes than the quota has
// left fits.
func TestCopyTreeQuota(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{ChunkSize: 16 << 10, MaxInodes: 40, QuotaBytes: 1 << 20})
	rels := copyFixture(t, ctx, f)
	big := randBytes(600 << 10)
	if err := f.WriteFile(ctx, "/src/big", big, 0o644); err != nil {
		t.Fatal(err)
	}
	rels = append(rels, "big")
	sort.Strings(rels)
	st0, _ := f.Stats(ctx)
	seq := f.Seq()
	// 17 inodes now (root, 16 of the fixture with one shared); a copy adds 17.
	if err := f.SetLimits(1<<20, 30); err != nil {
		t.Fatal(err)
	}
	err := f.CopyTree(ctx, "/src", "/dst", vfs.CopyOptions{})
	if vfs.Errno(err) != syscall.EDQUOT {
		t.Fatalf("copy past the inode limit: %v, want EDQUOT", err)
	}
	if _, err := f.Lstat(ctx, "/dst"); vfs.Errno(err) != syscall.ENOENT || f.Seq() != seq {
		t.Fatalf("a refused copy left something: %v, seq %d → %d", err, seq, f.Seq())
	}
	// Room for the inodes; the inline bytes (2,023) pass a quota set just
	// above what is stored.
	if err := f.SetLimits(st0.UniqueBytes+1000, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.CopyTree(ctx, "/src", "/dst", vfs.CopyOptions{}); vfs.Errno(err) != syscall.EDQUOT {
		t.Fatalf("copy past the byte quota: %v, want EDQUOT", err)
	}
	if _, err := f.Lstat(ctx, "/dst"); vfs.Errno(err) != syscall.ENOENT || f.Seq() != seq {
		t.Fatalf("a refused copy left something: %v", err)
	}
	// With room for the inline bytes, the 600 KiB in chunks are shared.
	if err := f.SetLimits(st0.UniqueBytes+3000, 100); err != nil {
		t.Fatal(err)
	}
	if err := f.CopyTree(ctx, "/src", "/dst", vfs.CopyOptions{}); err != nil {
		t.Fatalf("copy within the quota: %v", err)
	}
	copyCompare(t, ctx, f, "/src", "/dst", rels)
}

// TestCopyTreePending: a copy made through a batching handle sees the
// changes still waiting for their commit (rows the transaction writes at
// commit) and unflushed writes through an open handle, and commits them
// with itself.
func TestCopyTreePending(t *testing.T) {
	ctx := context.Background()
	base := openStore(t, vfs.Options{ChunkSize: 16 << 10})
	copyFixture(t, ctx, base)
	f := base.WithBatching(time.Hour)
	if err := f.WriteFile(ctx, "/src/a/new", []byte("pending"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.MkdirAll(ctx, "/src/n1/n2", 0o750); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/src/n1/n2/deep", randBytes(40<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Chmod(ctx, "/src/small", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ctx, "/src/a/inline", []byte("rewritten"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := f.OpenFile(ctx, "/src/open", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Write([]byte("unflushed")); err != nil {
		t.Fatal(err)
	}
	if err := f.CopyTree(ctx, "/src", "/dst", vfs.CopyOptions{PreserveMode: true}); err != nil {
		t.Fatal(err)
	}
	h.Close()
	for p, want := range map[string]string{"/dst/a/new": "pending", "/dst/a/inline": "rewritten", "/dst/open": "unflushed"} {
		if b, err := f.ReadFile(ctx, p); err != nil || string(b) != want {
			t.Errorf("%s: %q %v, want %q", p, b, err, want)
		}
	}
	if fi, err := f.Stat(ctx, "/dst/small"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("/dst/small: %v %v, want the pending chmod's 0600", fi, err)
	}
	if fi, err := f.Stat(ctx, "/dst/n1/n2"); err != nil || fi.Mode().Perm() != 0o750 {
		t.Errorf("/dst/n1/n2: %v %v", fi, err)
	}
	a, _ := base.ReadFile(ctx, "/src/n1/n2/deep")
	if b, err := base.ReadFile(ctx, "/dst/n1/n2/deep"); err != nil || !bytes.Equal(a, b) {
		t.Errorf("/dst/n1/n2/deep differs: %v", err)
	}
}

// copyDeny refuses one path (as a read or a write) with EACCES.
type copyDeny struct {
	path  string
	write bool
}

func (d copyDeny) AllowPath(p string, write bool) syscall.Errno {
	if p == d.path && write == d.write {
		return syscall.EACCES
	}
	return 0
}

// TestCopyTreeAccess: the caller's path rules are checked for every source
// (as a read) and destination (as a write); a refusal anywhere is the
// call's error and nothing is copied.
func TestCopyTreeAccess(t *testing.T) {
	ctx := context.Background()
	f := openStore(t, vfs.Options{})
	copyFixture(t, ctx, f)
	seq := f.Seq()
	for _, d := range []copyDeny{{"/src/a/b/chunk", false}, {"/dst/priv/secret", true}, {"/src", false}, {"/dst", true}} {
		if err := f.CopyTree(vfs.WithAccess(ctx, d), "/src", "/dst", vfs.CopyOptions{}); vfs.Errno(err) != syscall.EACCES {
			t.Errorf("copy with %+v refused: %v, want EACCES", d, err)
		}
	}
	if f.Seq() != seq {
		t.Errorf("refused copies changed the store")
	}
	if err := f.CopyTree(vfs.WithAccess(ctx, copyDeny{"/src/a/b/chunk", true}), "/src", "/dst", vfs.CopyOptions{}); err != nil {
		t.Errorf("copy whose sources may be read: %v", err)
	}
}

// copyCrashEnv makes the test binary a TestCopyTreeCrash child on the store
// it names.
const copyCrashEnv = "DESK_VFS_COPY_CRASH_CHILD"

// copyCrashFiles is the size of the tree the child copies again and again:
// large enough that a copy takes a while, so kills land inside copies.
const copyCrashFiles = 3000

// copyCrashChild makes /src (copyCrashFiles files in 30 directories, small
// and chunked) and copies it to /c0, /c1, ... printing "ACK i" when copy i
// returned.
func copyCrashChild(db string) {
	ctx := context.Background()
	f, err := vfs.Open(ctx, db, crashOpts)
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	if _, err := f.Lstat(ctx, "/src"); err != nil {
		if err := f.Mkdir(ctx, "/src", 0o755); err != nil {
			fmt.Println("ERR", err)
			return
		}
		if err := f.Batch(ctx, func(b *vfs.Batch) error {
			for d := 0; d < 30; d++ {
				if err := b.Mkdir(fmt.Sprintf("/src/d%d", d), 0o755); err != nil {
					return err
				}
			}
			for i := 0; i < copyCrashFiles; i++ {
				if err := b.WriteFile(fmt.Sprintf("/src/d%d/f%d", i%30, i), crashContent(i, []int{10, 3000, 20000}[i%3]), 0o644); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			fmt.Println("ERR", err)
			return
		}
	}
	fmt.Println("READY")
	for i := 0; ; i++ {
		if err := f.CopyTree(ctx, "/src", fmt.Sprintf("/c%d", i), vfs.CopyOptions{}); err != nil {
			fmt.Println("ERR", i, err)
			return
		}
		fmt.Println("ACK", i)
	}
}

// TestCopyTreeCrash kills (SIGKILL) a process that copies a tree of
// copyCrashFiles files again and again, at a random point: after reopening,
// Check passes, every acknowledged copy is whole, the copy in flight is
// whole or absent, and nothing else is there.
func TestCopyTreeCrash(t *testing.T) {
	rng := mathrand.New(mathrand.NewPCG(uint64(time.Now().UnixNano()), 11))
	for round := 0; round < killRounds(6, 2); round++ {
		db := filepath.Join(t.TempDir(), "copy.db")
		acked := -1
		// The clock starts when the tree is made; kills land within the
		// first few copies.
		delay := time.Duration(rng.IntN(1500)) * time.Millisecond
		killChild(t, []string{copyCrashEnv + "=" + db}, delay, func(l string, _ bool) bool {
			if strings.HasPrefix(l, "ERR") {
				t.Errorf("child: %s", l)
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(l, "ACK ")); err == nil {
				acked = n
			}
			return l == "READY"
		})
		f, err := vfs.Open(context.Background(), db, crashOpts)
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		ctx := context.Background()
		rep, err := f.Check(ctx)
		if err != nil || !rep.OK() {
			t.Fatalf("round %d: check after kill: %v %v", round, err, rep.Problems)
		}
		ents, err := f.ReadDir(ctx, "/")
		if err != nil {
			t.Fatal(err)
		}
		var copies []string
		for _, e := range ents {
			if e.Name != "src" {
				copies = append(copies, e.Name)
			}
		}
		if len(copies) < acked+1 || len(copies) > acked+2 {
			t.Fatalf("round %d: %d copies acknowledged, %d there: %v", round, acked+1, len(copies), copies)
		}
		for _, c := range copies {
			n, err := strconv.Atoi(strings.TrimPrefix(c, "c"))
			if err != nil || n > acked+1 {
				t.Fatalf("round %d: unexpected entry /%s", round, c)
			}
			files := 0
			for d := 0; d < 30; d++ {
				ents, err := f.ReadDir(ctx, fmt.Sprintf("/%s/d%d", c, d))
				if err != nil {
					t.Fatalf("round %d: /%s is not whole: %v", round, c, err)
				}
				files += len(ents)
			}
			if files != copyCrashFiles {
				t.Fatalf("round %d: /%s has %d files of %d", round, c, files, copyCrashFiles)
			}
		}
		// Spot-check content of the newest copy.
		if len(copies) > 0 {
			c := copies[len(copies)-1]
			for _, i := range []int{0, 1, 2, copyCrashFiles - 1} {
				b, err := f.ReadFile(ctx, fmt.Sprintf("/%s/d%d/f%d", c, i%30, i))
				if err != nil || !bytes.Equal(b, crashContent(i, []int{10, 3000, 20000}[i%3])) {
					t.Fatalf("round %d: /%s file %d: %v", round, c, i, err)
				}
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %d copies acknowledged, %d found, all whole; store consistent", round, acked+1, len(copies))
	}
}

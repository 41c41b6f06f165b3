package vfstest

import (
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// testMkdir checks Mkdir's results and errors.
func testMkdir(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "d/", "f=x", "l->d", "dangling->nope")
	must(t, "Mkdir", fsys.Mkdir(ctx, "/m", 0o750))
	a := lstat(t, fsys, "/m")
	if a.Mode != vfs.S_IFDIR|0o750 || a.Nlink != 2 {
		t.Errorf("new directory: mode %#o nlink %d, want %#o 2", a.Mode, a.Nlink, vfs.S_IFDIR|0o750)
	}
	if ents, err := fsys.ReadDir(ctx, "/m"); err != nil || len(ents) != 0 {
		t.Errorf("ReadDir of a new directory = %v, %s", ents, describeErr(err))
	}
	must(t, "Mkdir with trailing slash", fsys.Mkdir(ctx, "/m2/", 0o755))
	checkMode(t, fsys, "/m2", vfs.S_IFDIR|0o755)
	must(t, "Mkdir through a symlink", fsys.Mkdir(ctx, "/l/sub", 0o700))
	checkMode(t, fsys, "/d/sub", vfs.S_IFDIR|0o700)
	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/d", syscall.EEXIST},
		{"/d/", syscall.EEXIST},
		{"/f", syscall.EEXIST},
		{"/f/", syscall.EEXIST},
		{"/l", syscall.EEXIST},
		{"/dangling", syscall.EEXIST},
		{"/dangling/", syscall.EEXIST},
		{"/", syscall.EEXIST},
		{"/nope/x", syscall.ENOENT},
		{"/nope/x/y", syscall.ENOENT},
		{"/dangling/x", syscall.ENOENT},
		{"/f/x", syscall.ENOTDIR},
	} {
		checkErr(t, "Mkdir "+tc.name, fsys.Mkdir(ctx, tc.name, 0o755), tc.want)
	}
	checkTree(t, fsys, "/", "d/", "d/sub/", "f=x", "l->d", "dangling->nope", "m/", "m2/")
}

// testMkdirAll checks MkdirAll, which behaves like os.MkdirAll.
func testMkdirAll(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "d/", "l->d", "dangling->nope", "lf->f", "loop->loop")
	must(t, "MkdirAll", fsys.MkdirAll(ctx, "/a/b/c", 0o750))
	for _, name := range []string{"/a", "/a/b", "/a/b/c"} {
		checkMode(t, fsys, name, vfs.S_IFDIR|0o750)
	}
	must(t, "MkdirAll existing", fsys.MkdirAll(ctx, "/a/b/c", 0o700))
	must(t, "MkdirAll existing parent", fsys.MkdirAll(ctx, "/a/b", 0o700))
	must(t, "MkdirAll trailing slash", fsys.MkdirAll(ctx, "/a/b/c/d/", 0o755))
	must(t, "MkdirAll root", fsys.MkdirAll(ctx, "/", 0o755))
	must(t, "MkdirAll through a symlink", fsys.MkdirAll(ctx, "/l/x/y", 0o755))
	must(t, "MkdirAll of a symlink to a directory", fsys.MkdirAll(ctx, "/l", 0o755))
	checkMode(t, fsys, "/a/b/c", vfs.S_IFDIR|0o750)
	checkMode(t, fsys, "/a/b/c/d", vfs.S_IFDIR|0o755)
	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/f", syscall.ENOTDIR},
		{"/f/x", syscall.ENOTDIR},
		{"/f/x/y", syscall.ENOTDIR},
		{"/dangling", syscall.EEXIST},
		{"/dangling/", syscall.EEXIST},
		{"/lf", syscall.ENOTDIR},
		{"/lf/x", syscall.ENOTDIR},
		{"/loop", syscall.EEXIST},
		{"/loop/x", syscall.EEXIST},
		// With a trailing slash os.MkdirAll's Stat fails on a non-directory,
		// and mkdir's EEXIST is the answer.
		{"/f/", syscall.EEXIST},
		{"/lf/", syscall.EEXIST},
		{"/loop/", syscall.EEXIST},
		{"/l/", 0},
		{"/d/", 0},
	} {
		checkErr(t, "MkdirAll "+tc.name, fsys.MkdirAll(ctx, tc.name, 0o755), tc.want)
	}
	checkTree(t, fsys, "/", "a/", "a/b/", "a/b/c/", "a/b/c/d/", "d/", "d/x/", "d/x/y/", "f=x", "l->d", "dangling->nope",
		"lf->f", "loop->loop")
}

// testReadDir checks the order and content of directory listings.
func testReadDir(t *testing.T, fsys FS) {
	ctx := t.Context()
	mkdir(t, fsys, "/d")
	names := []string{"b", "a", "B", "10", "9", "a.b", "a-b", "zz", "é", "_", "~", "A", ".hidden", "..."}
	for i, n := range names {
		p := "/d/" + n
		switch i % 3 {
		case 0:
			writeFile(t, fsys, p, n)
		case 1:
			mkdir(t, fsys, p)
		case 2:
			symlink(t, fsys, "target-"+n, p)
		}
	}
	ents, err := fsys.ReadDir(ctx, "/d")
	must(t, "ReadDir", err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name)
		a := lstat(t, fsys, "/d/"+e.Name)
		if e.Ino != a.Ino || e.Mode != a.Mode {
			t.Errorf("ReadDir entry %q: ino %d mode %#o; Lstat: ino %d mode %#o", e.Name, e.Ino, e.Mode, a.Ino, a.Mode)
		}
	}
	want := slices.Sorted(slices.Values(names))
	if !slices.Equal(got, want) {
		t.Errorf("ReadDir /d names = %q, want %q (byte order)", got, want)
	}
	// Through a symlink, and with a trailing slash.
	symlink(t, fsys, "d", "/ld")
	for _, name := range []string{"/ld", "/d/", "/ld/", "/d/../d"} {
		ents2, err := fsys.ReadDir(ctx, name)
		if checkErr(t, "ReadDir "+name, err, 0) && !slices.Equal(ents2, ents) {
			t.Errorf("ReadDir %s = %v, want %v", name, ents2, ents)
		}
	}
	// Changes show up.
	must(t, "Remove", fsys.Remove(ctx, "/d/b"))
	must(t, "Rename", fsys.Rename(ctx, "/d/zz", "/d/0", 0))
	checkNames := func(dir string, want ...string) {
		t.Helper()
		ents, err := fsys.ReadDir(ctx, dir)
		must(t, "ReadDir "+dir, err)
		got := []string{}
		for _, e := range ents {
			got = append(got, e.Name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("ReadDir %s = %q, want %q", dir, got, want)
		}
	}
	checkNames("/d", "...", ".hidden", "0", "10", "9", "A", "B", "_", "a", "a-b", "a.b", "~", "é")
	checkNames("/", "d", "ld")
	checkNames("/d/a")
	// A big directory stays sorted.
	mkdir(t, fsys, "/big")
	var bigNames []string
	for i := range 300 {
		n := fmt.Sprintf("f%d", (i*7919)%1000)
		bigNames = append(bigNames, n)
		writeFile(t, fsys, "/big/"+n, "")
	}
	checkNames("/big", slices.Sorted(slices.Values(bigNames))...)

	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/nope", syscall.ENOENT},
		{"/d/.hidden", syscall.ENOTDIR},
		{"/d/10/", syscall.ENOTDIR},
		{"/d/10/x", syscall.ENOTDIR},
		{"/d/B", syscall.ENOENT},
		{"/d/a/x", syscall.ENOENT},
	} {
		_, err := fsys.ReadDir(ctx, tc.name)
		checkErr(t, "ReadDir "+tc.name, err, tc.want)
	}
}

// testRemove checks Remove on every kind of name.
func testRemove(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "d/", "full/", "full/x=1", "l->f", "ld->d", "dangling->nope", "h=>f", "e/",
		"loop->loop", "lfull->full")
	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/nope", syscall.ENOENT},
		{"/nope/x", syscall.ENOENT},
		{"/full", syscall.ENOTEMPTY},
		{"/full/", syscall.ENOTEMPTY},
		{"/f/", syscall.ENOTDIR},
		{"/f/x", syscall.ENOTDIR},
		{"/l/", syscall.ENOTDIR},
		// A trailing slash does not follow a final symlink: the name is the
		// symlink, not a directory, and its target stays.
		{"/ld/", syscall.ENOTDIR},
		{"/lfull/", syscall.ENOTDIR},
		{"/dangling/", syscall.ENOTDIR},
		{"/loop/", syscall.ENOTDIR},
		{"/loop", 0},
		{"/lfull", 0},
		{"/f", 0},
		{"/f", syscall.ENOENT},
		{"/l", 0},
		{"/ld", 0},
		{"/dangling", 0},
		{"/d", 0},
		{"/e/", 0},
		{"/full/x", 0},
		{"/full", 0},
	} {
		checkErr(t, "Remove "+tc.name, fsys.Remove(ctx, tc.name), tc.want)
	}
	// The other name of the removed file survives; removing the links removed
	// neither the file nor the directory they pointed to (which are gone by now
	// for other reasons).
	checkTree(t, fsys, "/", "h=x")
	if a := lstat(t, fsys, "/h"); a.Nlink != 1 {
		t.Errorf("nlink after removing one of two names: %d, want 1", a.Nlink)
	}
	if a := lstat(t, fsys, "/"); a.Nlink != 2 {
		t.Errorf("nlink of / after removing its subdirectories: %d, want 2", a.Nlink)
	}
	// Removing a symlink to a directory leaves the directory and its content.
	build(t, fsys, "/", "t/", "t/x=1", "lt->t")
	must(t, "Remove", fsys.Remove(ctx, "/lt"))
	checkTree(t, fsys, "/", "h=x", "t/", "t/x=1")
	// The root cannot be removed, like the root of a mount.
	checkErr(t, "Remove /", fsys.Remove(ctx, "/"), syscall.EBUSY)
	checkErr(t, "Remove /.", fsys.Remove(ctx, "/."), syscall.EBUSY)
	checkTree(t, fsys, "/", "h=x", "t/", "t/x=1")
}

// testRemoveAll checks RemoveAll, which behaves like os.RemoveAll.
func testRemoveAll(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/",
		"keep/", "keep/x=1", "keep/h=2",
		"t/", "t/a/", "t/a/b/", "t/a/b/c=3", "t/f=4", "t/l->../keep", "t/abs->/keep/x", "t/h=>keep/h", "t/e/",
		"f=5", "ld->keep")
	must(t, "RemoveAll", fsys.RemoveAll(ctx, "/t"))
	checkTree(t, fsys, "/", "keep/", "keep/x=1", "keep/h=2", "f=5", "ld->keep")
	must(t, "RemoveAll missing", fsys.RemoveAll(ctx, "/t"))
	must(t, "RemoveAll missing parent", fsys.RemoveAll(ctx, "/nope/x"))
	must(t, "RemoveAll file", fsys.RemoveAll(ctx, "/f"))
	must(t, "RemoveAll symlink to a directory", fsys.RemoveAll(ctx, "/ld"))
	checkTree(t, fsys, "/", "keep/", "keep/x=1", "keep/h=2")
	writeFile(t, fsys, "/f", "x")
	checkErr(t, "RemoveAll /f/x", fsys.RemoveAll(ctx, "/f/x"), syscall.ENOTDIR)
	must(t, "RemoveAll empty directory", fsys.RemoveAll(ctx, "/keep/"))
	checkTree(t, fsys, "/", "f=x")
	// RemoveAll of the root empties it, then fails like rmdir of a mount root.
	build(t, fsys, "/", "d/", "d/e/", "d/e/f=1", "l->d")
	checkErr(t, "RemoveAll /", fsys.RemoveAll(ctx, "/"), syscall.EBUSY)
	checkTree(t, fsys, "/")
	if _, err := fsys.Stat(ctx, "/"); err != nil {
		t.Errorf("Stat / after RemoveAll /: %s", describeErr(err))
	}
}

// renameCase is one row of testRename: in a fresh directory, build setup, rename
// old to new with flags, expect errno want, and then the tree want (the setup when
// the rename fails).
type renameCase struct {
	name     string
	setup    []string
	old, new string
	flags    vfs.RenameFlags
	want     syscall.Errno
	tree     []string
}

// testRename checks rename(2) and renameat2(2) semantics, case by case.
func testRename(t *testing.T, fsys FS) {
	ctx := t.Context()
	const (
		noRepl = vfs.RenameNoReplace
		exch   = vfs.RenameExchange
	)
	cases := []renameCase{
		{"file", []string{"a=1"}, "a", "b", 0, 0, []string{"b=1"}},
		{"file-over-file", []string{"a=1", "b=2"}, "a", "b", 0, 0, []string{"b=1"}},
		{"file-into-dir", []string{"a=1", "d/"}, "a", "d/a", 0, 0, []string{"d/", "d/a=1"}},
		{"file-out-of-dir", []string{"d/", "d/a=1"}, "d/a", "a", 0, 0, []string{"d/", "a=1"}},
		{"dir", []string{"d/", "d/f=1"}, "d", "e", 0, 0, []string{"e/", "e/f=1"}},
		{"dir-trailing-slashes", []string{"d/", "d/f=1"}, "d/", "e/", 0, 0, []string{"e/", "e/f=1"}},
		{"dir-over-empty-dir", []string{"d/", "d/f=1", "e/"}, "d", "e", 0, 0, []string{"e/", "e/f=1"}},
		{"dir-over-nonempty-dir", []string{"d/", "e/", "e/g=2"}, "d", "e", 0, syscall.ENOTEMPTY, nil},
		{"file-over-dir", []string{"a=1", "d/"}, "a", "d", 0, syscall.EISDIR, nil},
		{"file-over-nonempty-dir", []string{"a=1", "d/", "d/x=2"}, "a", "d", 0, syscall.EISDIR, nil},
		{"dir-over-file", []string{"d/", "a=1"}, "d", "a", 0, syscall.ENOTDIR, nil},
		{"dir-into-itself", []string{"d/"}, "d", "d/x", 0, syscall.EINVAL, nil},
		{"dir-into-subtree", []string{"d/", "d/s/"}, "d", "d/s/x", 0, syscall.EINVAL, nil},
		{"dir-over-own-subdir", []string{"d/", "d/s/"}, "d", "d/s", 0, syscall.EINVAL, nil},
		{"dir-over-ancestor", []string{"d/", "d/s/"}, "d/s", "d", 0, syscall.ENOTEMPTY, nil},
		{"file-to-itself", []string{"a=1"}, "a", "a", 0, 0, nil},
		{"dir-to-itself", []string{"d/", "d/f=1"}, "d", "d", 0, 0, nil},
		{"hard-links-same-inode", []string{"a=1", "b=>a"}, "a", "b", 0, 0, nil},
		{"missing-source", []string{"b=2"}, "a", "b", 0, syscall.ENOENT, nil},
		{"missing-dest-parent", []string{"a=1"}, "a", "x/y", 0, syscall.ENOENT, nil},
		{"dest-parent-is-file", []string{"a=1", "b=2"}, "a", "b/c", 0, syscall.ENOTDIR, nil},
		{"source-through-file", []string{"b=2"}, "b/c", "x", 0, syscall.ENOTDIR, nil},
		{"file-trailing-slash", []string{"a=1"}, "a/", "b", 0, syscall.ENOTDIR, nil},
		{"file-to-trailing-slash", []string{"a=1"}, "a", "b/", 0, syscall.ENOTDIR, nil},
		// A trailing slash does not follow a final symlink: the name is the
		// symlink, which is not a directory.
		{"symlink-to-dir-trailing-slash", []string{"d/", "d/f=1", "l->d"}, "l/", "m", 0, syscall.ENOTDIR, nil},
		{"dangling-trailing-slash", []string{"l->nope"}, "l/", "m", 0, syscall.ENOTDIR, nil},
		{"looping-trailing-slash", []string{"l->l"}, "l/", "m", 0, syscall.ENOTDIR, nil},
		{"dir-over-symlink-trailing-slash", []string{"d/", "e/", "l->e"}, "d", "l/", 0, syscall.ENOTDIR, nil},
		{"dir-to-missing-through-slash", []string{"d/", "l->d"}, "d/", "l/", noRepl, syscall.EEXIST, nil},
		// The flags' checks come before the trailing slash's.
		{"noreplace-file-onto-slash", []string{"a=1", "d/"}, "a", "d/", noRepl, syscall.EEXIST, nil},
		{"exchange-missing-slash", []string{"a=1"}, "a", "b/", exch, syscall.ENOENT, nil},
		{"exchange-file-slash", []string{"a=1", "b=2"}, "a", "b/", exch, syscall.ENOTDIR, nil},
		{"exchange-slash-file", []string{"a=1", "d/"}, "a/", "d", exch, syscall.ENOTDIR, nil},
		{"exchange-file-with-dir-slash", []string{"a=1", "d/"}, "a", "d/", exch, 0, []string{"a/", "d=1"}},
		{"exchange-dir-slash-with-file", []string{"a=1", "d/"}, "d/", "a", exch, 0, []string{"a/", "d=1"}},
		{"symlink-not-target", []string{"a=1", "l->a"}, "l", "m", 0, 0, []string{"a=1", "m->a"}},
		{"symlink-to-dir-not-target", []string{"d/", "l->d"}, "l", "d/l", 0, 0, []string{"d/", "d/l->d"}},
		{"symlink-over-dir", []string{"l->x", "d/"}, "l", "d", 0, syscall.EISDIR, nil},
		{"dir-over-symlink-to-dir", []string{"d/", "e/", "l->e"}, "d", "l", 0, syscall.ENOTDIR, nil},
		{"file-over-symlink", []string{"a=1", "b=2", "l->b"}, "a", "l", 0, 0, []string{"b=2", "l=1"}},
		{"file-over-hard-link", []string{"a=1", "b=2", "c=>b"}, "a", "c", 0, 0, []string{"b=2", "c=1"}},
		{"file-over-dangling", []string{"a=1", "l->nope"}, "a", "l", 0, 0, []string{"l=1"}},
		{"noreplace-missing", []string{"a=1"}, "a", "b", noRepl, 0, []string{"b=1"}},
		{"noreplace-existing", []string{"a=1", "b=2"}, "a", "b", noRepl, syscall.EEXIST, nil},
		{"noreplace-dir", []string{"d/", "e/"}, "d", "e", noRepl, syscall.EEXIST, nil},
		{"noreplace-dangling", []string{"a=1", "l->nope"}, "a", "l", noRepl, syscall.EEXIST, nil},
		{"noreplace-itself", []string{"a=1"}, "a", "a", noRepl, syscall.EEXIST, nil},
		{"noreplace-missing-source", []string{"b=1"}, "a", "c", noRepl, syscall.ENOENT, nil},
		{"exchange-files", []string{"a=1", "b=2"}, "a", "b", exch, 0, []string{"a=2", "b=1"}},
		{"exchange-file-dir", []string{"a=1", "d/", "d/f=x"}, "a", "d", exch, 0, []string{"a/", "a/f=x", "d=1"}},
		{"exchange-dirs", []string{"p/", "p/x/", "p/x/f=1", "q/", "q/y/", "q/y/z/"}, "p/x", "q/y", exch, 0,
			[]string{"p/", "p/x/", "p/x/z/", "q/", "q/y/", "q/y/f=1"}},
		{"exchange-symlinks", []string{"l->a", "m->b"}, "l", "m", exch, 0, []string{"l->b", "m->a"}},
		{"exchange-across-dirs", []string{"p/", "p/a=1", "q/", "q/b/"}, "p/a", "q/b", exch, 0,
			[]string{"p/", "p/a/", "q/", "q/b=1"}},
		{"exchange-missing-dest", []string{"a=1"}, "a", "b", exch, syscall.ENOENT, nil},
		{"exchange-missing-source", []string{"b=1"}, "a", "b", exch, syscall.ENOENT, nil},
		{"exchange-into-subtree", []string{"d/", "d/s/"}, "d", "d/s", exch, syscall.EINVAL, nil},
		{"exchange-with-ancestor", []string{"d/", "d/s/"}, "d/s", "d", exch, syscall.EINVAL, nil},
		{"exchange-itself", []string{"a=1"}, "a", "a", exch, 0, nil},
		{"exchange-hard-links", []string{"a=1", "b=>a"}, "a", "b", exch, 0, nil},
		{"exchange-and-noreplace", []string{"a=1", "b=2"}, "a", "b", exch | noRepl, syscall.EINVAL, nil},
		{"unknown-flag", []string{"a=1"}, "a", "b", 1 << 7, syscall.EINVAL, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := "/" + tc.name
			mkdir(t, fsys, dir)
			build(t, fsys, dir, tc.setup...)
			before := tree(t, fsys, dir)
			var oldIno uint64
			if a, err := fsys.Lstat(ctx, path.Join(dir, tc.old)); err == nil {
				oldIno = a.Sys().(*vfs.Attr).Ino
			}
			// Not path.Join: it would drop trailing slashes.
			err := fsys.Rename(ctx, dir+"/"+tc.old, dir+"/"+tc.new, tc.flags)
			checkErr(t, fmt.Sprintf("Rename %s %s %d", tc.old, tc.new, tc.flags), err, tc.want)
			want := tc.tree
			if want == nil {
				want = before
			}
			checkTree(t, fsys, dir, want...)
			if err == nil && tc.flags&exch == 0 && tc.old != tc.new {
				// The inode moved: the new name has the old name's inode number.
				if a := lstat(t, fsys, path.Join(dir, tc.new)); a.Ino != oldIno {
					t.Errorf("after rename, %s has inode %d, want the source's %d", tc.new, a.Ino, oldIno)
				}
			}
			checkInvariants(t, fsys, dir)
		})
	}
	// The root cannot be renamed.
	checkErr(t, "Rename /", fsys.Rename(ctx, "/", "/x", 0), syscall.EBUSY)
}

// testLink checks hard links.
func testLink(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "a=1", "d/", "l->a", "dangling->nope", "e/")
	must(t, "Link", fsys.Link(ctx, "/a", "/b"))
	must(t, "Link", fsys.Link(ctx, "/b", "/d/c"))
	a, b, c := lstat(t, fsys, "/a"), lstat(t, fsys, "/b"), lstat(t, fsys, "/d/c")
	if a.Ino != b.Ino || a.Ino != c.Ino || a.Nlink != 3 || b.Nlink != 3 || c.Nlink != 3 {
		t.Errorf("three names: inodes %d %d %d nlink %d %d %d; want one inode with nlink 3", a.Ino, b.Ino, c.Ino, a.Nlink, b.Nlink, c.Nlink)
	}
	// The names share content and attributes.
	writeFile(t, fsys, "/b", "shared")
	checkContent(t, fsys, "/a", []byte("shared"))
	must(t, "Chmod", fsys.Chmod(ctx, "/d/c", 0o600))
	checkMode(t, fsys, "/a", vfs.S_IFREG|0o600)
	must(t, "Remove", fsys.Remove(ctx, "/a"))
	if b := lstat(t, fsys, "/b"); b.Nlink != 2 {
		t.Errorf("nlink after removing a name: %d, want 2", b.Nlink)
	}
	must(t, "Remove", fsys.Remove(ctx, "/d/c"))
	if b := lstat(t, fsys, "/b"); b.Nlink != 1 {
		t.Errorf("nlink after removing two names: %d, want 1", b.Nlink)
	}
	checkContent(t, fsys, "/b", []byte("shared"))

	// A link to a symlink links the symlink itself (Linux does not follow).
	must(t, "Link", fsys.Link(ctx, "/l", "/l2"))
	if l2 := lstat(t, fsys, "/l2"); !l2.IsSymlink() || l2.Nlink != 2 || l2.Ino != lstat(t, fsys, "/l").Ino {
		t.Errorf("Link of a symlink: mode %#o nlink %d; want the symlink itself with nlink 2", l2.Mode, l2.Nlink)
	}
	must(t, "Link", fsys.Link(ctx, "/dangling", "/dangling2"))
	if target, err := fsys.Readlink(ctx, "/dangling2"); err != nil || target != "nope" {
		t.Errorf("Readlink of a link to a dangling symlink = %q, %s", target, describeErr(err))
	}

	for _, tc := range []struct {
		old, new string
		want     syscall.Errno
	}{
		{"/d", "/d2", syscall.EPERM},
		{"/d/", "/d2", syscall.EPERM},
		{"/b", "/e", syscall.EEXIST},
		{"/b", "/l", syscall.EEXIST},
		{"/b", "/dangling", syscall.EEXIST},
		{"/b", "/b", syscall.EEXIST},
		{"/nope", "/x", syscall.ENOENT},
		{"/b", "/nope/x", syscall.ENOENT},
		{"/b", "/b/x", syscall.ENOTDIR},
		{"/b/x", "/x", syscall.ENOTDIR},
		{"/b/", "/x", syscall.ENOTDIR},
		{"/b", "/x/", syscall.ENOENT},
	} {
		checkErr(t, "Link "+tc.old+" "+tc.new, fsys.Link(ctx, tc.old, tc.new), tc.want)
	}
	checkTree(t, fsys, "/", "b=shared", "d/", "e/", "l->a", "l2->a", "dangling->nope", "dangling2->nope")
}

// testSymlink checks symlink creation, Readlink and resolution.
func testSymlink(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "a/", "a/b/", "a/b/c/", "a/b/c/f=deep", "f=top", "x/", "y/")
	symlink(t, fsys, "target", "/l")
	if got, err := fsys.Readlink(ctx, "/l"); got != "target" || err != nil {
		t.Errorf("Readlink /l = %q, %s", got, describeErr(err))
	}
	if a := lstat(t, fsys, "/l"); a.Mode != vfs.S_IFLNK|0o777 || a.Size != 6 || a.Nlink != 1 {
		t.Errorf("Lstat /l: mode %#o size %d nlink %d, want %#o 6 1", a.Mode, a.Size, a.Nlink, vfs.S_IFLNK|0o777)
	}
	// Targets are stored verbatim: not cleaned, not checked.
	for i, target := range []string{"a//b/./c/", "../../..", "/abs/olute", " spaces ", "\x01\xff", strings.Repeat("t", 255) + "/" + strings.Repeat("u", 300)} {
		name := fmt.Sprintf("/t%d", i)
		symlink(t, fsys, target, name)
		if got, err := fsys.Readlink(ctx, name); got != target || err != nil {
			t.Errorf("Readlink of a symlink to %q = %q, %s", target, got, describeErr(err))
		}
		if a := lstat(t, fsys, name); a.Size != int64(len(target)) {
			t.Errorf("Lstat of a symlink to %q: size %d, want %d", target, a.Size, len(target))
		}
	}
	long := strings.Repeat("x/", 2047) + "y" // 4095 bytes
	symlink(t, fsys, long, "/long")
	checkErr(t, "Symlink with a 4096-byte target", fsys.Symlink(ctx, long+"z", "/toolong"), syscall.ENAMETOOLONG)
	checkErr(t, "Symlink with an empty target", fsys.Symlink(ctx, "", "/empty"), syscall.ENOENT)

	// Resolution: relative chains through directories, absolute targets, ".." in
	// targets (which stops at the root), links to directories.
	symlink(t, fsys, "../a", "/x/l1")
	symlink(t, fsys, "../x/l1/b", "/y/l2")
	symlink(t, fsys, "y/l2/c/f", "/l3")
	symlink(t, fsys, "/a/b/c/f", "/abs")
	symlink(t, fsys, "../../../../../a/b/c/f", "/a/up")
	symlink(t, fsys, "/../../a/b", "/absup")
	symlink(t, fsys, "a/b", "/ld")
	symlink(t, fsys, "ld/c/", "/ldslash")
	symlink(t, fsys, ".", "/self")
	symlink(t, fsys, "..", "/parent")
	for _, name := range []string{"/l3", "/abs", "/a/up", "/absup/c/f", "/ld/c/f", "/ldslash/f", "/x/l1/b/c/f",
		"/self/self/ld/c/f", "/parent/a/b/c/f", "/a/b/c/../c/f"} {
		checkContent(t, fsys, name, []byte("deep"))
		if a := stat(t, fsys, name); a.Ino != lstat(t, fsys, "/a/b/c/f").Ino {
			t.Errorf("Stat %s: inode %d, want /a/b/c/f's", name, a.Ino)
		}
	}
	// Creating through a symlinked directory.
	writeFile(t, fsys, "/ld/new", "n")
	checkContent(t, fsys, "/a/b/new", []byte("n"))
	must(t, "Mkdir", fsys.Mkdir(ctx, "/x/l1/m", 0o755))
	checkMode(t, fsys, "/a/m", vfs.S_IFDIR|0o755)
	must(t, "Rename", fsys.Rename(ctx, "/ld/new", "/x/l1/new", 0))
	checkContent(t, fsys, "/a/new", []byte("n"))

	// Dangling symlinks and loops.
	symlink(t, fsys, "nope", "/dangling")
	symlink(t, fsys, "loop2", "/loop1")
	symlink(t, fsys, "loop1", "/loop2")
	symlink(t, fsys, "selfloop", "/selfloop")
	symlink(t, fsys, "f/", "/fslash")
	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/dangling", syscall.ENOENT},
		{"/dangling/x", syscall.ENOENT},
		{"/loop1", syscall.ELOOP},
		{"/loop2/x", syscall.ELOOP},
		{"/selfloop", syscall.ELOOP},
		{"/fslash", syscall.ENOTDIR},
		{"/l3/", syscall.ENOTDIR},
	} {
		_, err := fsys.Stat(ctx, tc.name)
		checkErr(t, "Stat "+tc.name, err, tc.want)
		_, err = fsys.ReadFile(ctx, tc.name)
		checkErr(t, "ReadFile "+tc.name, err, tc.want)
	}
	for _, name := range []string{"/dangling", "/loop1", "/selfloop"} {
		if a := lstat(t, fsys, name); !a.IsSymlink() {
			t.Errorf("Lstat %s: mode %#o, want a symlink", name, a.Mode)
		}
	}
	if got, err := fsys.Readlink(ctx, "/loop1"); got != "loop2" || err != nil {
		t.Errorf("Readlink /loop1 = %q, %s", got, describeErr(err))
	}

	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/f", syscall.EINVAL},
		{"/a", syscall.EINVAL},
		{"/", syscall.EINVAL},
		{"/ld/", syscall.EINVAL},
		{"/nope", syscall.ENOENT},
		{"/f/x", syscall.ENOTDIR},
		{"/dangling/", syscall.ENOENT},
	} {
		_, err := fsys.Readlink(ctx, tc.name)
		checkErr(t, "Readlink "+tc.name, err, tc.want)
	}
	for _, tc := range []struct {
		name string
		want syscall.Errno
	}{
		{"/f", syscall.EEXIST},
		{"/a", syscall.EEXIST},
		{"/l", syscall.EEXIST},
		{"/dangling", syscall.EEXIST},
		{"/", syscall.EEXIST},
		{"/nope/x", syscall.ENOENT},
		{"/f/x", syscall.ENOTDIR},
		{"/dangling/x", syscall.ENOENT},
		{"/new/", syscall.ENOENT},
	} {
		checkErr(t, "Symlink "+tc.name, fsys.Symlink(ctx, "t", tc.name), tc.want)
	}
}

// testSymlinkLimit checks that resolution follows at most 40 symlinks.
func testSymlinkLimit(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/f", "end")
	symlink(t, fsys, "f", "/l1")
	for i := 2; i <= 41; i++ {
		symlink(t, fsys, fmt.Sprintf("l%d", i-1), fmt.Sprintf("/l%d", i))
	}
	checkContent(t, fsys, "/l40", []byte("end"))
	_, err := fsys.Stat(ctx, "/l41")
	checkErr(t, "Stat through 41 symlinks", err, syscall.ELOOP)
	_, err = fsys.ReadFile(ctx, "/l41")
	checkErr(t, "ReadFile through 41 symlinks", err, syscall.ELOOP)
	// The count is per lookup, across components.
	mkdir(t, fsys, "/d")
	symlink(t, fsys, "d", "/d1")
	for i := 2; i <= 40; i++ {
		symlink(t, fsys, fmt.Sprintf("d%d", i-1), fmt.Sprintf("/d%d", i))
	}
	symlink(t, fsys, "../f", "/d/up")
	_, err = fsys.Stat(ctx, "/d39/up")
	checkErr(t, "Stat through 39+1 symlinks", err, 0)
	_, err = fsys.Stat(ctx, "/d40/up")
	checkErr(t, "Stat through 40+1 symlinks", err, syscall.ELOOP)
	// A chain of 41 with no loop is still ELOOP for Lstat of a path through it.
	_, err = fsys.Lstat(ctx, "/d40/up")
	checkErr(t, "Lstat of a name under 40 symlinks", err, 0)
	_, err = fsys.Lstat(ctx, "/d40/up/")
	checkErr(t, "Lstat of a name under 40+1 symlinks", err, syscall.ELOOP)
}

// testRealpath checks Realpath.
func testRealpath(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "a/", "a/b/", "a/b/f=x", "l->a/b", "abs->/a/b/f", "up->../../a", "a/rel->../l/f",
		"dangling->nope", "loop->loop", "file=y", "a/self->.")
	for _, tc := range []struct {
		name, want string
		err        syscall.Errno
	}{
		{"/", "/", 0},
		{"/a/b/f", "/a/b/f", 0},
		{"/a/b/", "/a/b", 0},
		{"/l", "/a/b", 0},
		{"/l/f", "/a/b/f", 0},
		{"/abs", "/a/b/f", 0},
		{"/up/b", "/a/b", 0},
		{"/a/rel", "/a/b/f", 0},
		{"/a/self/self/b", "/a/b", 0},
		{"/../a/../a/b", "/a/b", 0},
		{"/nope", "", syscall.ENOENT},
		{"/dangling", "", syscall.ENOENT},
		{"/loop", "", syscall.ELOOP},
		{"/file/x", "", syscall.ENOTDIR},
		{"/file/", "", syscall.ENOTDIR},
	} {
		got, err := fsys.Realpath(ctx, tc.name)
		if checkErr(t, "Realpath "+tc.name, err, tc.err) && got != tc.want {
			t.Errorf("Realpath %s = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// testNameMax checks that names of 255 bytes work and 256 bytes are ENAMETOOLONG.
func testNameMax(t *testing.T, fsys FS) {
	ctx := t.Context()
	n255 := strings.Repeat("n", 255)
	n256 := n255 + "n"
	u255 := strings.Repeat("é", 127) + "x" // 255 bytes, 128 characters
	u256 := strings.Repeat("é", 128)
	writeFile(t, fsys, "/"+n255, "ok")
	checkContent(t, fsys, "/"+n255, []byte("ok"))
	must(t, "Mkdir", fsys.Mkdir(ctx, "/"+u255, 0o755))
	writeFile(t, fsys, "/"+u255+"/"+n255, "deep")
	must(t, "Symlink", fsys.Symlink(ctx, n255, "/s"+n255[1:]))
	must(t, "Rename", fsys.Rename(ctx, "/"+n255, "/m"+n255[1:], 0))
	must(t, "Link", fsys.Link(ctx, "/m"+n255[1:], "/"+n255))
	checkTree(t, fsys, "/", n255+"=ok nlink=2", "m"+n255[1:]+"=ok nlink=2", u255+"/", u255+"/"+n255+"=deep", "s"+n255[1:]+"->"+n255)

	symlink(t, fsys, n256, "/longtarget")
	for _, name := range []string{"/" + n256, "/" + u256, "/" + n256 + "/x", "/" + u255 + "/" + n256} {
		tl := syscall.ENAMETOOLONG
		checkErr(t, "WriteFile "+name, fsys.WriteFile(ctx, name, nil, 0o644), tl)
		_, err := fsys.OpenFile(ctx, name, os.O_RDONLY, 0)
		checkErr(t, "OpenFile "+name, err, tl)
		_, err = fsys.Stat(ctx, name)
		checkErr(t, "Stat "+name, err, tl)
		_, err = fsys.Lstat(ctx, name)
		checkErr(t, "Lstat "+name, err, tl)
		checkErr(t, "Mkdir "+name, fsys.Mkdir(ctx, name, 0o755), tl)
		checkErr(t, "Symlink "+name, fsys.Symlink(ctx, "x", name), tl)
		checkErr(t, "Rename to "+name, fsys.Rename(ctx, "/"+n255, name, 0), tl)
		checkErr(t, "Link to "+name, fsys.Link(ctx, "/"+n255, name), tl)
		checkErr(t, "Remove "+name, fsys.Remove(ctx, name), tl)
	}
	_, err := fsys.Stat(ctx, "/longtarget")
	checkErr(t, "Stat through a symlink to a 256-byte name", err, syscall.ENAMETOOLONG)
}

// testNotDir checks that a path through a regular file fails with ENOTDIR for every
// operation.
func testNotDir(t *testing.T, fsys FS) {
	ctx := t.Context()
	build(t, fsys, "/", "f=x", "lf->f", "ok=y")
	for _, name := range []string{"/f/x", "/f/x/y", "/lf/x", "/f/", "/lf/"} {
		var errs []struct {
			op  string
			err error
		}
		add := func(op string, err error) {
			errs = append(errs, struct {
				op  string
				err error
			}{op, err})
		}
		_, err := fsys.Stat(ctx, name)
		add("Stat", err)
		_, err = fsys.Lstat(ctx, name)
		add("Lstat", err)
		_, err = fsys.ReadDir(ctx, name)
		add("ReadDir", err)
		_, err = fsys.OpenFile(ctx, name, os.O_RDONLY, 0)
		add("OpenFile", err)
		_, err = fsys.ReadFile(ctx, name)
		add("ReadFile", err)
		add("Remove", fsys.Remove(ctx, name))
		add("Rename from", fsys.Rename(ctx, name, "/z", 0))
		add("Rename to", fsys.Rename(ctx, "/ok", name, 0))
		add("Link from", fsys.Link(ctx, name, "/z"))
		_, err = fsys.Readlink(ctx, name)
		add("Readlink", err)
		add("Chmod", fsys.Chmod(ctx, name, 0o644))
		add("Chown", fsys.Chown(ctx, name, -1, -1))
		add("Lchown", fsys.Lchown(ctx, name, -1, -1))
		add("Chtimes", fsys.Chtimes(ctx, name, vfs.UtimeNow, vfs.UtimeNow))
		add("Truncate", fsys.Truncate(ctx, name, 0))
		_, err = fsys.Getxattr(ctx, name, "user.x")
		add("Getxattr", err)
		add("Setxattr", fsys.Setxattr(ctx, name, "user.x", nil, 0))
		_, err = fsys.Listxattr(ctx, name)
		add("Listxattr", err)
		add("Removexattr", fsys.Removexattr(ctx, name, "user.x"))
		_, err = fsys.Realpath(ctx, name)
		add("Realpath", err)
		if !strings.HasSuffix(name, "/") {
			// With a trailing slash, these name an existing file (EEXIST) or ask
			// for a directory (EISDIR); see the tests of each operation.
			add("Mkdir", fsys.Mkdir(ctx, name, 0o755))
			add("MkdirAll", fsys.MkdirAll(ctx, name, 0o755))
			add("WriteFile", fsys.WriteFile(ctx, name, nil, 0o644))
			_, err = fsys.OpenFile(ctx, name, os.O_RDWR|os.O_CREATE, 0o644)
			add("OpenFile O_CREATE", err)
			add("Link to", fsys.Link(ctx, "/ok", name))
			add("Symlink", fsys.Symlink(ctx, "t", name))
			add("RemoveAll", fsys.RemoveAll(ctx, name))
		}
		for _, e := range errs {
			checkErr(t, e.op+" "+name, e.err, syscall.ENOTDIR)
		}
	}
	checkTree(t, fsys, "/", "f=x", "lf->f", "ok=y")
}

// testDotDot checks that names are cleaned: ".." at the root stays at the root,
// and "." and repeated slashes are ignored.
func testDotDot(t *testing.T, fsys FS) {
	ctx := t.Context()
	writeFile(t, fsys, "/../../a", "1")
	checkContent(t, fsys, "/a", []byte("1"))
	must(t, "Mkdir", fsys.Mkdir(ctx, "/..//./d", 0o755))
	writeFile(t, fsys, "//d///./f", "2")
	checkContent(t, fsys, "/d/../../d/f", []byte("2"))
	must(t, "Mkdir", fsys.Mkdir(ctx, "/x/../e", 0o755)) // lexical: /x need not exist
	must(t, "Rename", fsys.Rename(ctx, "/d/../a", "/./e/../../b", 0))
	if a, b := stat(t, fsys, "/.."), stat(t, fsys, "/"); a.Ino != b.Ino {
		t.Errorf("Stat /.. is inode %d, want the root's %d", a.Ino, b.Ino)
	}
	ents, err := fsys.ReadDir(ctx, "/../..")
	must(t, "ReadDir", err)
	if len(ents) != 3 || ents[0].Name != "b" || ents[1].Name != "d" || ents[2].Name != "e" {
		t.Errorf("ReadDir /../.. = %v, want b d e", ents)
	}
	if got, err := fsys.Realpath(ctx, "/../../d/./f"); got != "/d/f" || err != nil {
		t.Errorf("Realpath /../../d/./f = %q, %s", got, describeErr(err))
	}
	checkTree(t, fsys, "/", "b=1", "d/", "d/f=2", "e/")
}

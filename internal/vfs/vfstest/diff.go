package vfstest

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Diff decodes program into a sequence of operations, applies each to a and b, and
// fails t when the two disagree: a different errno, a different result, or an error
// that is not a *fs.PathError with a syscall.Errno. After the sequence it closes the
// open files and compares the whole trees. Both filesystems should start empty,
// with roots of the same mode and owner.
//
// Every byte string is a valid program (missing bytes read as zero), so Diff is
// meant for fuzzing, with one side the kernel:
//
//	func FuzzVFS(f *testing.F) {
//		f.Add([]byte("\x02\x00\x05\x01"))
//		f.Fuzz(func(t *testing.T, prog []byte) {
//			vfstest.Diff(t, newVFS(t), vfstest.OS(t.TempDir()), prog)
//		})
//	}
//
// The operations work on a small fixed namespace (see DiffPaths), so that they
// collide: names are created, linked, renamed over and removed under open files.
// Results compared are errnos, data read, Stat attributes (type and permission bits,
// size except for directories, link count, owner, and mtime when it was set
// explicitly by the program on both sides), directory listings, symlink targets,
// xattrs and resolved paths. Inode numbers, atime, ctime, birth time, block counts
// and directory sizes are not compared; the final tree comparison checks which
// names share an inode instead of inode numbers.
func Diff(t testing.TB, a, b FS, program []byte) {
	t.Helper()
	ops := Decode(program)
	e := &differ{t: t, fs: [2]FS{a, b}}
	defer e.closeAll()
	for i, o := range ops {
		ra, rb := e.apply(0, o), e.apply(1, o)
		if ra.bad != nil || rb.bad != nil || ra != rb {
			t.Fatalf("vfstest.Diff: op %d %v:\n a: %v\n b: %v\nprogram:\n%s", i, o, ra, rb, listing(ops[:i+1]))
		}
	}
	e.closeAll()
	ta, tb := snapshot(t, a), snapshot(t, b)
	if !slices.Equal(ta, tb) {
		i := 0
		for i < len(ta) && i < len(tb) && ta[i] == tb[i] {
			i++
		}
		at, bt := "(end)", "(end)"
		if i < len(ta) {
			at = ta[i]
		}
		if i < len(tb) {
			bt = tb[i]
		}
		t.Fatalf("vfstest.Diff: trees differ after %d ops, first at line %d:\n a: %s\n b: %s\nprogram:\n%s", len(ops), i, at, bt, listing(ops))
	}
}

// listing renders ops one per line.
func listing(ops []Op) string {
	var sb strings.Builder
	for i, o := range ops {
		fmt.Fprintf(&sb, "%4d %v\n", i, o)
	}
	return sb.String()
}

// DiffPaths is the namespace Diff's operations act on: names that collide, nest,
// pass through symlinks (programs create "/l" and "/a/l" as symlinks), end in a
// slash or need cleaning.
var DiffPaths = [16]string{
	"/a", "/b", "/c", "/l", "/a/a", "/a/b", "/a/l", "/b/a",
	"/b/c", "/a/a/b", "/l/a", "/l/l", "/a/", "/b/a/", "/", "/a/../c",
}

// diffTargets are the symlink targets Diff uses: relative, absolute, dangling,
// looping, and escaping the root (which must stay inside it).
var diffTargets = [16]string{
	"a", "b", "../a", "/a", "..", ".", "l", "a/a",
	"/b/a", "nope", "../../../b", "l/a", "c/", "/a/l", "a/b/../l", "b/a",
}

var diffSizes = [16]int{0, 1, 2, 3, 5, 16, 100, 511, 512, 1000, 4095, 4096, 4097, 8193, 65536, 70001}

var diffOffsets = [16]int64{0, 1, 2, 3, 7, 100, 511, 512, 4095, 4096, 4097, 8192, 65535, 65536, 65537, 200000}

var diffModes = [16]uint32{0o644, 0o755, 0o600, 0o777, 0, 0o4755, 0o2755, 0o1777, 0o7777, 0o444, 0o700, 0o640, 0o511, 0o6711, 0o1000, 0o2000}

var diffFlags = [16]int{
	os.O_RDONLY, os.O_WRONLY, os.O_RDWR, os.O_RDWR | os.O_CREATE,
	os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_RDWR | os.O_CREATE | os.O_EXCL, os.O_WRONLY | os.O_APPEND, os.O_RDWR | os.O_APPEND | os.O_CREATE,
	os.O_RDONLY | os.O_TRUNC, os.O_RDONLY | syscall.O_DIRECTORY, os.O_RDONLY | syscall.O_NOFOLLOW, os.O_WRONLY | os.O_CREATE | os.O_EXCL,
	os.O_RDWR | os.O_TRUNC, os.O_WRONLY | os.O_APPEND | os.O_TRUNC | os.O_CREATE, os.O_RDWR | os.O_CREATE | syscall.O_NOFOLLOW, os.O_RDWR,
}

// diffTimes are the times Chtimes uses: explicit ones (recognisable, so that an
// mtime equal to one of them is compared exactly), UtimeOmit and UtimeNow.
var diffTimes = [8]time.Time{
	time.Unix(1000000000, 123456789), time.Unix(1234567890, 1), time.Unix(86400, 999999999), time.Unix(1500000000, 0),
	time.Unix(2000000000, 500), vfs.UtimeOmit, vfs.UtimeNow, time.Date(1960, 1, 2, 3, 4, 5, 6, time.UTC),
}

// isDiffTime reports whether t is one of the explicit times of diffTimes.
func isDiffTime(t time.Time) bool {
	for _, d := range diffTimes {
		if d.Equal(t) && !d.Equal(vfs.UtimeOmit) && !d.Equal(vfs.UtimeNow) {
			return true
		}
	}
	return false
}

var diffXattrNames = [4]string{"user.a", "user.b", "user.ccc", "plain"}

var diffXattrSizes = [8]int{0, 1, 3, 16, 100, 255, 7, 2}

var diffIDs = [4]int{-1, 0, 1000, 4242}

// OpKind is the kind of a Diff operation.
type OpKind uint8

// The operations of Diff. Those on handles (OpOpen to OpSync) use one of three
// slots; an operation on an empty slot does nothing.
const (
	OpMkdir OpKind = iota
	OpMkdirAll
	OpWriteFile
	OpReadFile
	OpStat
	OpLstat
	OpReadDir
	OpRemove
	OpRemoveAll
	OpRename
	OpLink
	OpSymlink
	OpReadlink
	OpChmod
	OpChtimes
	OpTruncate
	OpSetxattr
	OpGetxattr
	OpListxattr
	OpRemovexattr
	OpRealpath
	OpChown // Chown or Lchown; only when running as root
	OpOpen
	OpClose
	OpWrite
	OpRead
	OpReadAt
	OpWriteAt
	OpSeek
	OpFTruncate
	OpFStat
	OpSync
	numOps
)

var opNames = [numOps]string{
	"Mkdir", "MkdirAll", "WriteFile", "ReadFile", "Stat", "Lstat", "ReadDir", "Remove",
	"RemoveAll", "Rename", "Link", "Symlink", "Readlink", "Chmod", "Chtimes", "Truncate",
	"Setxattr", "Getxattr", "Listxattr", "Removexattr", "Realpath", "Chown", "Open", "Close",
	"Write", "Read", "ReadAt", "WriteAt", "Seek", "FTruncate", "FStat", "Sync",
}

// String returns the operation's name.
func (k OpKind) String() string {
	if k < numOps {
		return opNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Op is one decoded operation of a Diff program. Which fields matter depends on
// Kind; String shows them.
type Op struct {
	Kind   OpKind
	Path   string // the name acted on
	Path2  string // Rename and Link: the new name
	Target string // Symlink: the target
	Mode   uint32 // Mkdir, MkdirAll, WriteFile, Chmod, Open: permission bits
	Flag   int    // Open: flags; Setxattr: XattrCreate/XattrReplace; Seek: whence
	Rename vfs.RenameFlags
	Size   int   // bytes to write or read
	Seed   byte  // the content written: byte i is Seed+7i
	Off    int64 // offset, truncation size, or Seek offset
	Slot   int   // handle slot
	Attr   string
	Atime  time.Time
	Mtime  time.Time
	Uid    int
	Gid    int
	Follow bool // Chown (true) or Lchown (false)
}

// data returns the bytes the operation writes.
func (o Op) data() []byte {
	b := make([]byte, o.Size)
	for i := range b {
		b[i] = o.Seed + byte(7*i)
	}
	return b
}

func timeString(t time.Time) string {
	switch {
	case t.Equal(vfs.UtimeOmit):
		return "UtimeOmit"
	case t.Equal(vfs.UtimeNow):
		return "UtimeNow"
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// String renders the operation as a call.
func (o Op) String() string {
	switch o.Kind {
	case OpMkdir, OpMkdirAll, OpChmod:
		return fmt.Sprintf("%v(%q, %#o)", o.Kind, o.Path, o.Mode)
	case OpWriteFile:
		return fmt.Sprintf("WriteFile(%q, %d bytes from %d, %#o)", o.Path, o.Size, o.Seed, o.Mode)
	case OpRename:
		flags := map[vfs.RenameFlags]string{0: "0", vfs.RenameNoReplace: "RenameNoReplace", vfs.RenameExchange: "RenameExchange"}[o.Rename]
		return fmt.Sprintf("Rename(%q, %q, %s)", o.Path, o.Path2, flags)
	case OpLink:
		return fmt.Sprintf("Link(%q, %q)", o.Path, o.Path2)
	case OpSymlink:
		return fmt.Sprintf("Symlink(%q, %q)", o.Target, o.Path)
	case OpChtimes:
		return fmt.Sprintf("Chtimes(%q, %s, %s)", o.Path, timeString(o.Atime), timeString(o.Mtime))
	case OpTruncate:
		return fmt.Sprintf("Truncate(%q, %d)", o.Path, o.Off)
	case OpSetxattr:
		return fmt.Sprintf("Setxattr(%q, %q, %d bytes from %d, %d)", o.Path, o.Attr, o.Size, o.Seed, o.Flag)
	case OpGetxattr, OpRemovexattr:
		return fmt.Sprintf("%v(%q, %q)", o.Kind, o.Path, o.Attr)
	case OpChown:
		name := "Lchown"
		if o.Follow {
			name = "Chown"
		}
		return fmt.Sprintf("%s(%q, %d, %d)", name, o.Path, o.Uid, o.Gid)
	case OpOpen:
		return fmt.Sprintf("f%d = Open(%q, %s, %#o)", o.Slot, o.Path, flagString(o.Flag), o.Mode)
	case OpClose, OpFStat, OpSync:
		return fmt.Sprintf("f%d.%v()", o.Slot, o.Kind)
	case OpWrite:
		return fmt.Sprintf("f%d.Write(%d bytes from %d)", o.Slot, o.Size, o.Seed)
	case OpRead:
		return fmt.Sprintf("f%d.Read(%d)", o.Slot, o.Size)
	case OpReadAt:
		return fmt.Sprintf("f%d.ReadAt(%d, %d)", o.Slot, o.Size, o.Off)
	case OpWriteAt:
		return fmt.Sprintf("f%d.WriteAt(%d bytes from %d, %d)", o.Slot, o.Size, o.Seed, o.Off)
	case OpSeek:
		return fmt.Sprintf("f%d.Seek(%d, %d)", o.Slot, o.Off, o.Flag)
	case OpFTruncate:
		return fmt.Sprintf("f%d.Truncate(%d)", o.Slot, o.Off)
	}
	return fmt.Sprintf("%v(%q)", o.Kind, o.Path)
}

// MaxOps is the most operations Decode returns; the rest of a program is ignored.
const MaxOps = 200

// Decode turns bytes into operations. It is total: every byte string decodes, and
// bytes missing at the end read as zero. The first byte of an operation selects its
// kind (modulo the number of kinds); the following bytes select arguments from
// small tables, each modulo the table's size.
func Decode(program []byte) []Op {
	d := decoder{p: program}
	var ops []Op
	for !d.done() && len(ops) < MaxOps {
		o := Op{Kind: OpKind(d.next() % byte(numOps))}
		switch o.Kind {
		case OpMkdir, OpMkdirAll, OpChmod:
			o.Path = d.path()
			o.Mode = diffModes[d.next()%16]
		case OpWriteFile:
			o.Path = d.path()
			o.Size = diffSizes[d.next()%16]
			o.Seed = d.next()
			o.Mode = diffModes[d.next()%16]
		case OpReadFile, OpStat, OpLstat, OpReadDir, OpRemove, OpRemoveAll, OpReadlink, OpListxattr, OpRealpath:
			o.Path = d.path()
		case OpRename:
			o.Path, o.Path2 = d.path(), d.path()
			o.Rename = [4]vfs.RenameFlags{0, vfs.RenameNoReplace, vfs.RenameExchange, 0}[d.next()%4]
		case OpLink:
			o.Path, o.Path2 = d.path(), d.path()
		case OpSymlink:
			o.Target = diffTargets[d.next()%16]
			o.Path = d.path()
		case OpChtimes:
			o.Path = d.path()
			o.Atime = diffTimes[d.next()%8]
			o.Mtime = diffTimes[d.next()%8]
		case OpTruncate:
			o.Path = d.path()
			o.Off = diffOffsets[d.next()%16]
		case OpSetxattr:
			o.Path = d.path()
			o.Attr = diffXattrNames[d.next()%4]
			o.Size = diffXattrSizes[d.next()%8]
			o.Seed = d.next()
			o.Flag = int(d.next() % 4)
		case OpGetxattr, OpRemovexattr:
			o.Path = d.path()
			o.Attr = diffXattrNames[d.next()%4]
		case OpChown:
			o.Path = d.path()
			c := d.next()
			o.Uid, o.Gid, o.Follow = diffIDs[c%4], diffIDs[c/4%4], c&16 != 0
		case OpOpen:
			o.Slot = d.slot()
			o.Path = d.path()
			o.Flag = diffFlags[d.next()%16]
			o.Mode = diffModes[d.next()%16]
		case OpClose, OpFStat, OpSync:
			o.Slot = d.slot()
		case OpWrite:
			o.Slot = d.slot()
			o.Size = diffSizes[d.next()%16]
			o.Seed = d.next()
		case OpRead:
			o.Slot = d.slot()
			o.Size = diffSizes[d.next()%16]
		case OpReadAt:
			o.Slot = d.slot()
			o.Size = diffSizes[d.next()%16]
			o.Off = diffOffsets[d.next()%16]
		case OpWriteAt:
			o.Slot = d.slot()
			o.Size = diffSizes[d.next()%16]
			o.Seed = d.next()
			o.Off = diffOffsets[d.next()%16]
		case OpSeek:
			o.Slot = d.slot()
			c := d.next()
			o.Off = diffOffsets[c%16]
			if c&16 != 0 {
				o.Off = -o.Off
			}
			o.Flag = int(c/32) % 3
		case OpFTruncate:
			o.Slot = d.slot()
			c := d.next()
			o.Off = diffOffsets[c%16]
			if c&16 != 0 {
				o.Off = -o.Off
			}
		}
		ops = append(ops, o)
	}
	return ops
}

type decoder struct {
	p []byte
	i int
}

func (d *decoder) done() bool { return d.i >= len(d.p) }

func (d *decoder) next() byte {
	if d.i >= len(d.p) {
		return 0
	}
	c := d.p[d.i]
	d.i++
	return c
}

func (d *decoder) path() string { return DiffPaths[d.next()%16] }

func (d *decoder) slot() int { return int(d.next() % 3) }

// result is what one operation did on one filesystem, in comparable form.
type result struct {
	errno syscall.Errno
	eof   bool
	val   string
	bad   error // an error that is not a *fs.PathError with an errno
}

func (r result) String() string {
	s := errnoName(r.errno)
	if r.eof {
		s = "io.EOF"
	}
	if r.bad != nil {
		s = fmt.Sprintf("BAD ERROR %v (%T): want a *fs.PathError with a syscall.Errno", r.bad, r.bad)
	}
	if r.val != "" {
		v := r.val
		if len(v) > 200 {
			v = fmt.Sprintf("%s...(%d bytes, sha256 %x)", v[:160], len(v), sha256.Sum256([]byte(v)))
		}
		s += " " + v
	}
	return s
}

// differ holds the state of a Diff run.
type differ struct {
	t     testing.TB
	fs    [2]FS
	files [2][3]File
}

func (e *differ) closeAll() {
	for i := range e.files {
		for j, f := range e.files[i] {
			if f != nil {
				f.Close()
				e.files[i][j] = nil
			}
		}
	}
}

func mkResult(val string, err error) result {
	if err == nil {
		return result{val: val}
	}
	if err == io.EOF {
		return result{eof: true, val: val}
	}
	errno, ok := errnoOf(err)
	if !ok {
		return result{bad: err}
	}
	return result{errno: errno, val: val}
}

// describeAttr renders the compared part of a FileInfo.
func describeAttr(fi fs.FileInfo) string {
	a, ok := fi.Sys().(*vfs.Attr)
	if !ok {
		return fmt.Sprintf("Sys() is %T, not *vfs.Attr", fi.Sys())
	}
	s := fmt.Sprintf("name=%q mode=%#o nlink=%d uid=%d gid=%d", fi.Name(), a.Mode, a.Nlink, a.Uid, a.Gid)
	if !a.IsDir() {
		s += fmt.Sprintf(" size=%d", a.Size)
	}
	if isDiffTime(a.Mtime) {
		s += " mtime=" + timeString(a.Mtime)
	}
	if fi.Mode() != vfs.UnixToFileMode(a.Mode) || fi.Size() != a.Size || fi.IsDir() != a.IsDir() || !fi.ModTime().Equal(a.Mtime) {
		s += fmt.Sprintf(" INCONSISTENT FileInfo: Mode %v Size %d IsDir %v ModTime %v", fi.Mode(), fi.Size(), fi.IsDir(), fi.ModTime())
	}
	return s
}

// apply runs o on side i.
func (e *differ) apply(i int, o Op) result {
	fsys := e.fs[i]
	ctx := e.t.Context()
	switch o.Kind {
	case OpMkdir:
		return mkResult("", fsys.Mkdir(ctx, o.Path, perm(o.Mode)))
	case OpMkdirAll:
		return mkResult("", fsys.MkdirAll(ctx, o.Path, perm(o.Mode)))
	case OpWriteFile:
		return mkResult("", fsys.WriteFile(ctx, o.Path, o.data(), perm(o.Mode)))
	case OpReadFile:
		data, err := fsys.ReadFile(ctx, o.Path)
		return mkResult(string(data), err)
	case OpStat, OpLstat:
		stat := fsys.Stat
		if o.Kind == OpLstat {
			stat = fsys.Lstat
		}
		fi, err := stat(ctx, o.Path)
		if err != nil {
			return mkResult("", err)
		}
		return result{val: describeAttr(fi)}
	case OpReadDir:
		ents, err := fsys.ReadDir(ctx, o.Path)
		var sb strings.Builder
		for _, d := range ents {
			fmt.Fprintf(&sb, "%s:%#o ", d.Name, d.Mode)
		}
		return mkResult(sb.String(), err)
	case OpRemove:
		return mkResult("", fsys.Remove(ctx, o.Path))
	case OpRemoveAll:
		return mkResult("", fsys.RemoveAll(ctx, o.Path))
	case OpRename:
		return mkResult("", fsys.Rename(ctx, o.Path, o.Path2, o.Rename))
	case OpLink:
		return mkResult("", fsys.Link(ctx, o.Path, o.Path2))
	case OpSymlink:
		return mkResult("", fsys.Symlink(ctx, o.Target, o.Path))
	case OpReadlink:
		target, err := fsys.Readlink(ctx, o.Path)
		return mkResult(target, err)
	case OpChmod:
		return mkResult("", fsys.Chmod(ctx, o.Path, perm(o.Mode)))
	case OpChtimes:
		return mkResult("", fsys.Chtimes(ctx, o.Path, o.Atime, o.Mtime))
	case OpTruncate:
		return mkResult("", fsys.Truncate(ctx, o.Path, o.Off))
	case OpSetxattr:
		return mkResult("", fsys.Setxattr(ctx, o.Path, o.Attr, o.data(), o.Flag))
	case OpGetxattr:
		val, err := fsys.Getxattr(ctx, o.Path, o.Attr)
		return mkResult(fmt.Sprintf("%q", val), err)
	case OpListxattr:
		names, err := fsys.Listxattr(ctx, o.Path)
		names = slices.Sorted(slices.Values(names))
		return mkResult(strings.Join(names, ","), err)
	case OpRemovexattr:
		return mkResult("", fsys.Removexattr(ctx, o.Path, o.Attr))
	case OpRealpath:
		p, err := fsys.Realpath(ctx, o.Path)
		return mkResult(p, err)
	case OpChown:
		if os.Geteuid() != 0 {
			return result{val: "skipped: not root"}
		}
		if o.Follow {
			return mkResult("", fsys.Chown(ctx, o.Path, o.Uid, o.Gid))
		}
		return mkResult("", fsys.Lchown(ctx, o.Path, o.Uid, o.Gid))
	case OpOpen:
		if f := e.files[i][o.Slot]; f != nil {
			f.Close()
			e.files[i][o.Slot] = nil
		}
		f, err := fsys.OpenFile(ctx, o.Path, o.Flag, perm(o.Mode))
		if err == nil {
			e.files[i][o.Slot] = f
		}
		return mkResult("", err)
	}

	f := e.files[i][o.Slot]
	if f == nil {
		return result{val: "no file"}
	}
	switch o.Kind {
	case OpClose:
		e.files[i][o.Slot] = nil
		return mkResult("", f.Close())
	case OpWrite:
		n, err := f.Write(o.data())
		return mkResult(fmt.Sprint(n), err)
	case OpRead:
		buf := make([]byte, o.Size)
		n, err := f.Read(buf)
		return mkResult(fmt.Sprintf("%d %s", n, buf[:n]), err)
	case OpReadAt:
		buf := make([]byte, o.Size)
		n, err := f.ReadAt(buf, o.Off)
		if err == io.EOF && n == len(buf) {
			err = nil // io.ReaderAt allows either
		}
		return mkResult(fmt.Sprintf("%d %s", n, buf[:n]), err)
	case OpWriteAt:
		n, err := f.WriteAt(o.data(), o.Off)
		return mkResult(fmt.Sprint(n), err)
	case OpSeek:
		off, err := f.Seek(o.Off, o.Flag)
		if err != nil {
			off = 0
		}
		return mkResult(fmt.Sprint(off), err)
	case OpFTruncate:
		return mkResult("", f.Truncate(o.Off))
	case OpFStat:
		fi, err := f.Stat()
		if err != nil {
			return mkResult("", err)
		}
		return result{val: describeAttr(fi)}
	case OpSync:
		return mkResult("", f.Sync())
	}
	return result{val: "unknown op"}
}

// snapshot renders a whole tree for comparison, one line per name in walk order:
// path, type and permission bits, link count, owner, size and content hash,
// symlink target, xattrs, explicit mtimes, and for a name that shares its inode with
// an earlier one, that name.
func snapshot(t testing.TB, fsys FS) []string {
	ctx := t.Context()
	var lines []string
	first := map[uint64]string{} // inode -> first name
	var walk func(p string)
	walk = func(p string) {
		ents, err := fsys.ReadDir(ctx, p)
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s: ReadDir: %s", p, describeErr(err)))
			return
		}
		for _, d := range ents {
			c := path.Join(p, d.Name)
			fi, err := fsys.Lstat(ctx, c)
			if err != nil {
				lines = append(lines, fmt.Sprintf("%s: Lstat: %s", c, describeErr(err)))
				continue
			}
			a, ok := fi.Sys().(*vfs.Attr)
			if !ok {
				lines = append(lines, fmt.Sprintf("%s: Sys() is %T", c, fi.Sys()))
				continue
			}
			line := c + " " + describeAttr(fi)
			if d.Ino != a.Ino || d.Mode != a.Mode {
				line += fmt.Sprintf(" INCONSISTENT ReadDir ino %d mode %#o vs Lstat ino %d mode %#o", d.Ino, d.Mode, a.Ino, a.Mode)
			}
			if !a.IsDir() {
				if f, seen := first[a.Ino]; seen {
					line += " same-inode-as=" + f
				} else {
					first[a.Ino] = c
				}
			}
			switch {
			case a.IsSymlink():
				target, err := fsys.Readlink(ctx, c)
				line += fmt.Sprintf(" target=%q %s", target, describeErrIf(err))
			case a.IsRegular():
				data, err := fsys.ReadFile(ctx, c)
				line += fmt.Sprintf(" content=%x/%d %s", sha256.Sum256(data), len(data), describeErrIf(err))
			}
			if !a.IsSymlink() {
				names, err := fsys.Listxattr(ctx, c)
				slices.Sort(names)
				line += " xattrs=" + describeErrIf(err)
				for _, n := range names {
					v, err := fsys.Getxattr(ctx, c, n)
					line += fmt.Sprintf("%s=%q%s,", n, v, describeErrIf(err))
				}
			}
			lines = append(lines, line)
			if a.IsDir() {
				walk(c)
			}
		}
	}
	if fi, err := fsys.Lstat(ctx, "/"); err == nil {
		lines = append(lines, "/ "+describeAttr(fi))
	}
	walk("/")
	return lines
}

func describeErrIf(err error) string {
	if err == nil {
		return ""
	}
	return describeErr(err)
}

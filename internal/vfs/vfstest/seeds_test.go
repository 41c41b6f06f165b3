package vfstest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

var update = flag.Bool("update", false, "rewrite the seed corpus in testdata/fuzz/FuzzDiff")

// ix returns the index of v in table; the seeds only use values from the tables.
func ix[T comparable](table []T, v T) byte {
	i := slices.Index(table, v)
	if i < 0 {
		panic(fmt.Sprintf("value %v is not in the table %v", v, table))
	}
	return byte(i)
}

func timeIx(t time.Time) byte {
	for i, d := range diffTimes {
		if d.Equal(t) {
			return byte(i)
		}
	}
	panic(fmt.Sprintf("time %v is not in diffTimes", t))
}

// encode is the inverse of Decode.
func encode(ops ...Op) []byte {
	var b []byte
	for _, o := range ops {
		b = append(b, byte(o.Kind))
		p := func(s string) byte { return ix(DiffPaths[:], s) }
		neg := func(off int64) byte {
			if off < 0 {
				return ix(diffOffsets[:], -off) + 16
			}
			return ix(diffOffsets[:], off)
		}
		switch o.Kind {
		case OpMkdir, OpMkdirAll, OpChmod:
			b = append(b, p(o.Path), ix(diffModes[:], o.Mode))
		case OpWriteFile:
			b = append(b, p(o.Path), ix(diffSizes[:], o.Size), o.Seed, ix(diffModes[:], o.Mode))
		case OpReadFile, OpStat, OpLstat, OpReadDir, OpRemove, OpRemoveAll, OpReadlink, OpListxattr, OpRealpath:
			b = append(b, p(o.Path))
		case OpRename:
			b = append(b, p(o.Path), p(o.Path2), ix([]vfs.RenameFlags{0, vfs.RenameNoReplace, vfs.RenameExchange}, o.Rename))
		case OpLink:
			b = append(b, p(o.Path), p(o.Path2))
		case OpSymlink:
			b = append(b, ix(diffTargets[:], o.Target), p(o.Path))
		case OpChtimes:
			b = append(b, p(o.Path), timeIx(o.Atime), timeIx(o.Mtime))
		case OpTruncate:
			b = append(b, p(o.Path), ix(diffOffsets[:], o.Off))
		case OpSetxattr:
			b = append(b, p(o.Path), ix(diffXattrNames[:], o.Attr), ix(diffXattrSizes[:], o.Size), o.Seed, byte(o.Flag))
		case OpGetxattr, OpRemovexattr:
			b = append(b, p(o.Path), ix(diffXattrNames[:], o.Attr))
		case OpChown:
			c := ix(diffIDs[:], o.Uid) + 4*ix(diffIDs[:], o.Gid)
			if o.Follow {
				c += 16
			}
			b = append(b, p(o.Path), c)
		case OpOpen:
			b = append(b, byte(o.Slot), p(o.Path), ix(diffFlags[:], o.Flag), ix(diffModes[:], o.Mode))
		case OpClose, OpFStat, OpSync:
			b = append(b, byte(o.Slot))
		case OpWrite:
			b = append(b, byte(o.Slot), ix(diffSizes[:], o.Size), o.Seed)
		case OpRead:
			b = append(b, byte(o.Slot), ix(diffSizes[:], o.Size))
		case OpReadAt:
			b = append(b, byte(o.Slot), ix(diffSizes[:], o.Size), ix(diffOffsets[:], o.Off))
		case OpWriteAt:
			b = append(b, byte(o.Slot), ix(diffSizes[:], o.Size), o.Seed, ix(diffOffsets[:], o.Off))
		case OpSeek:
			b = append(b, byte(o.Slot), neg(o.Off)+32*byte(o.Flag))
		case OpFTruncate:
			b = append(b, byte(o.Slot), neg(o.Off))
		}
	}
	return b
}

// Shorthands for writing seed programs.
func mk(p string, mode uint32) Op { return Op{Kind: OpMkdir, Path: p, Mode: mode} }
func mkAll(p string) Op           { return Op{Kind: OpMkdirAll, Path: p, Mode: 0o755} }
func wf(p string, size int) Op {
	return Op{Kind: OpWriteFile, Path: p, Size: size, Seed: byte(size), Mode: 0o644}
}
func on(k OpKind, p string) Op { return Op{Kind: k, Path: p} }
func ren(a, b string, f vfs.RenameFlags) Op {
	return Op{Kind: OpRename, Path: a, Path2: b, Rename: f}
}
func ln(a, b string) Op       { return Op{Kind: OpLink, Path: a, Path2: b} }
func sym(target, p string) Op { return Op{Kind: OpSymlink, Target: target, Path: p} }
func open(slot int, p string, flag int, mode uint32) Op {
	return Op{Kind: OpOpen, Slot: slot, Path: p, Flag: flag, Mode: mode}
}
func fop(k OpKind, slot, size int, off int64) Op {
	o := Op{Kind: k, Slot: slot, Size: size, Off: off}
	if k == OpWrite || k == OpWriteAt {
		o.Seed = byte(size + 1)
	}
	return o
}
func seek(slot int, off int64, whence int) Op {
	return Op{Kind: OpSeek, Slot: slot, Off: off, Flag: whence}
}
func xset(p, attr string, size, flags int) Op {
	return Op{Kind: OpSetxattr, Path: p, Attr: attr, Size: size, Seed: 9, Flag: flags}
}
func xop(k OpKind, p, attr string) Op { return Op{Kind: k, Path: p, Attr: attr} }

// seeds are the committed seed corpus of FuzzDiff, by file name.
var seeds = map[string][]Op{
	"files": {
		wf("/a", 100), on(OpReadFile, "/a"), on(OpStat, "/a"), {Kind: OpTruncate, Path: "/a", Off: 7},
		on(OpReadFile, "/a"), {Kind: OpTruncate, Path: "/a", Off: 4097}, on(OpReadFile, "/a"), wf("/a", 3), on(OpStat, "/a"),
	},
	"dirs": {
		mk("/a", 0o755), mk("/a/a", 0o700), wf("/a/b", 5), on(OpReadDir, "/a"), on(OpRemove, "/a"),
		on(OpStat, "/a"), mk("/a", 0o755), on(OpRemove, "/a/a"), on(OpLstat, "/a"), on(OpRemoveAll, "/a"),
		on(OpStat, "/a"), mkAll("/a/a/b"), on(OpReadDir, "/a/a"), on(OpReadDir, "/"),
	},
	"symlinks": {
		mk("/a", 0o755), sym("a", "/l"), wf("/l/a", 16), on(OpReadFile, "/a/a"), on(OpReadlink, "/l"),
		on(OpRealpath, "/l/a"), sym("../../../b", "/a/l"), wf("/b", 2), on(OpReadFile, "/a/l"), sym("l", "/l"),
		sym("/a/l", "/c"), on(OpRealpath, "/c"), on(OpStat, "/l/l"), on(OpLstat, "/l/l"), on(OpReadlink, "/a"),
	},
	"loops": {
		sym("l", "/b"), sym("b", "/l"), on(OpStat, "/l"), on(OpLstat, "/l"), on(OpReadFile, "/b"),
		sym(".", "/a"), on(OpReadDir, "/a"), on(OpRealpath, "/a"), sym("nope", "/c"), on(OpStat, "/c"),
		open(0, "/c", os.O_RDWR|os.O_CREATE, 0o600), on(OpLstat, "/c"), on(OpRemove, "/l"),
	},
	"hardlinks": {
		wf("/a", 5), ln("/a", "/b"), on(OpStat, "/b"), on(OpRemove, "/a"), on(OpStat, "/b"),
		ln("/b", "/c"), ren("/b", "/c", 0), on(OpStat, "/c"), mk("/a", 0o755), ln("/a", "/l"), ln("/c", "/a/a"),
		sym("b", "/l"), ln("/l", "/a/l"), on(OpLstat, "/a/l"),
	},
	"renames": {
		mk("/a", 0o755), mk("/b", 0o755), wf("/c", 1), ren("/a", "/b", 0), ren("/c", "/b", 0), ren("/b", "/c", 0),
		ren("/b", "/c", vfs.RenameExchange), on(OpStat, "/b"), ren("/b", "/c", vfs.RenameNoReplace),
		mk("/b/a", 0o755), ren("/b", "/b/a/", 0), ren("/b/a", "/a", vfs.RenameNoReplace), ren("/a", "/a", vfs.RenameExchange),
		ren("/l", "/a", vfs.RenameExchange), on(OpReadDir, "/"),
	},
	"handles": {
		open(0, "/a", os.O_RDWR|os.O_CREATE, 0o644), fop(OpWrite, 0, 100, 0), seek(0, 3, 0), fop(OpRead, 0, 5, 0),
		fop(OpReadAt, 0, 16, 7), fop(OpWriteAt, 0, 3, 4097), Op{Kind: OpFStat, Slot: 0}, Op{Kind: OpFTruncate, Slot: 0, Off: 2},
		seek(0, -1, 1), seek(0, -4095, 2), fop(OpRead, 0, 4096, 0), Op{Kind: OpSync}, Op{Kind: OpClose}, fop(OpRead, 0, 1, 0),
		open(1, "/a", os.O_RDONLY, 0), fop(OpWrite, 1, 1, 0), open(2, "/a", os.O_WRONLY, 0), fop(OpRead, 2, 1, 0),
	},
	"append": {
		open(0, "/a", os.O_WRONLY|os.O_APPEND|os.O_TRUNC|os.O_CREATE, 0o644), fop(OpWrite, 0, 5, 0), seek(0, 0, 0),
		fop(OpWrite, 0, 3, 0), fop(OpWriteAt, 0, 2, 0), Op{Kind: OpFStat}, on(OpReadFile, "/a"),
		open(1, "/a", os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600), fop(OpWrite, 1, 1, 0), fop(OpReadAt, 1, 100, 0),
	},
	"unlinked": {
		open(0, "/a", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644), fop(OpWrite, 0, 16, 0), on(OpRemove, "/a"),
		fop(OpWrite, 0, 3, 0), Op{Kind: OpFStat}, fop(OpReadAt, 0, 100, 0), wf("/a", 2), on(OpReadFile, "/a"),
		open(1, "/a", os.O_RDONLY, 0), wf("/b", 1), ren("/b", "/a", 0), fop(OpRead, 1, 100, 0), Op{Kind: OpFStat, Slot: 1},
	},
	"modes-times": {
		wf("/a", 1), {Kind: OpChmod, Path: "/a", Mode: 0o7777}, on(OpStat, "/a"),
		{Kind: OpChtimes, Path: "/a", Atime: diffTimes[0], Mtime: diffTimes[1]}, on(OpStat, "/a"),
		mk("/b", 0o2755), on(OpStat, "/b"), mk("/b/a", 0o7777), on(OpStat, "/b/a"),
		{Kind: OpChtimes, Path: "/b", Atime: vfs.UtimeOmit, Mtime: diffTimes[7]}, on(OpLstat, "/b"),
		wf("/b/c", 0), on(OpStat, "/b"), {Kind: OpChown, Path: "/a", Uid: 1000, Gid: -1, Follow: true}, on(OpStat, "/a"),
	},
	"xattrs": {
		wf("/a", 1), xset("/a", "user.a", 16, 0), xop(OpGetxattr, "/a", "user.a"), on(OpListxattr, "/a"),
		xset("/a", "user.a", 1, vfs.XattrCreate), xset("/a", "user.b", 1, vfs.XattrReplace), xop(OpRemovexattr, "/a", "user.a"),
		xop(OpRemovexattr, "/a", "user.a"), xset("/a", "plain", 1, 0), xset("/a", "user.ccc", 255, 3),
		sym("a", "/l"), xset("/l", "user.a", 1, 0), mk("/b", 0o755), xset("/b", "user.b", 0, 0), on(OpListxattr, "/b"),
	},
	"names": {
		mk("/a/", 0o755), wf("/a/../c", 5), on(OpStat, "/a/../c"), on(OpRemove, "/a/"),
		open(0, "/a/", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644), mk("/a", 0o755), wf("/a/a", 1),
		open(1, "/a/", os.O_RDONLY|syscall.O_DIRECTORY, 0), fop(OpRead, 1, 1, 0), on(OpReadDir, "/a/"),
		on(OpRemove, "/"), on(OpRemoveAll, "/"), on(OpStat, "/"), on(OpReadDir, "/"),
	},
}

// TestSeedCorpus checks that testdata/fuzz/FuzzDiff holds the seeds (run with
// -update to rewrite it) and that Decode inverts encode.
func TestSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDiff")
	for name, ops := range seeds {
		prog := encode(ops...)
		if got := Decode(prog); !slices.Equal(got, ops) {
			t.Errorf("seed %s: Decode(encode(ops)) differs:\n got  %v\n want %v", name, got, ops)
		}
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", prog)
		file := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil || string(got) != want {
			t.Errorf("%s is out of date (%v); run go test -run TestSeedCorpus -update", file, err)
		}
	}
}

// TestDecodeTotal checks that Decode accepts anything and stops at MaxOps.
func TestDecodeTotal(t *testing.T) {
	for _, prog := range [][]byte{nil, {}, {0}, {255}, {byte(OpWriteFile)}, make([]byte, 10000)} {
		ops := Decode(prog)
		if len(prog) > 0 && len(ops) == 0 {
			t.Errorf("Decode(%d bytes) = no ops", len(prog))
		}
		if len(ops) > MaxOps {
			t.Errorf("Decode(%d bytes) = %d ops, more than MaxOps", len(prog), len(ops))
		}
		for _, o := range ops {
			_ = o.String()
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	kinds := map[OpKind]bool{}
	for i := range 256 {
		for _, o := range Decode(all[i:]) {
			kinds[o.Kind] = true
		}
	}
	if len(kinds) != int(numOps) {
		t.Errorf("decoding all byte values reached %d kinds of %d", len(kinds), numOps)
	}
}

package cmds

import (
	"bufio"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("du", Du) }

// duOpts are du's settings.
type duOpts struct {
	all, summarize, total, apparent, human, nul, follow, followArgs bool
	maxDepth                                                        int // -1: none
	unit                                                            int64
	exclude                                                         []string
}

// Du estimates file space usage as GNU du does: disk usage from the
// files' allocated blocks (directories count 4096 bytes, as on ext4), in
// 1024-byte units, each directory after its contents. Flags: -s -a -c -h
// -b (--apparent-size --block-size=1) -k -m -B/--block-size N
// --apparent-size -d/--max-depth N -L -H -D -x -0 --exclude PAT.
// Hard links are counted once. Directories are visited in name order (GNU
// uses on-disk order).
func Du(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "a|all", "s|summarize", "c|total", "h|human-readable",
		"b|bytes", "k", "m", "B|block-size=", "|apparent-size", "d|max-depth=", "L|dereference",
		"H|dereference-args", "D", "x|one-file-system", "0|null", "|exclude=", "l|count-links", "|si")
	if !ok {
		return 1
	}
	o := duOpts{maxDepth: -1, unit: 1024}
	for _, v := range opts {
		switch v.name {
		case "all":
			o.all = true
		case "summarize":
			o.summarize = true
		case "total":
			o.total = true
		case "human-readable", "si":
			o.human = true
		case "bytes":
			o.apparent, o.unit, o.human = true, 1, false
		case "k":
			o.unit, o.human = 1024, false
		case "m":
			o.unit, o.human = 1<<20, false
		case "block-size":
			u, ok := duBlockSize(v.val)
			if !ok {
				env.Errorf("du", "invalid --block-size argument '%s'", v.val)
				return 1
			}
			o.unit, o.human = u, false
		case "apparent-size":
			o.apparent = true
		case "max-depth":
			n, err := strconv.Atoi(v.val)
			if err != nil || n < 0 {
				env.Errorf("du", "invalid maximum depth %s", quote(env, v.val))
				fuTryHelp(env, "du")
				return 1
			}
			o.maxDepth = n
		case "dereference":
			o.follow = true
		case "dereference-args", "D":
			o.followArgs = true
		case "null":
			o.nul = true
		case "exclude":
			o.exclude = append(o.exclude, v.val)
		}
	}
	if o.summarize && o.all {
		env.Errorf("du", "cannot both summarize and show all entries")
		fuTryHelp(env, "du")
		return 1
	}
	if o.summarize && o.maxDepth > 0 {
		env.Errorf("du", "warning: summarizing conflicts with --max-depth=%d", o.maxDepth)
		fuTryHelp(env, "du")
		return 1
	}
	if o.summarize {
		o.maxDepth = 0
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	d := &duRun{env: env, o: o, w: bufio.NewWriter(env.Stdout), seen: map[uint64]bool{}, fn: fnCache{}}
	defer d.w.Flush()
	var total int64
	for _, op := range operands {
		if env.Canceled() {
			return 1
		}
		p := fuAbs(env, op)
		fi, err := env.FS.Lstat(env.Ctx, p)
		if err == nil && fuIsLinkMode(fi.Attr().Mode) && (o.follow || o.followArgs || strings.HasSuffix(op, "/")) {
			if t, terr := env.FS.Stat(env.Ctx, p); terr == nil {
				fi = t
			}
		}
		if err != nil {
			d.w.Flush()
			env.Errorf("du", "cannot access %s: %s", quoteaf(env, op), Strerror(err))
			d.status = 1
			continue
		}
		total += d.walk(op, strings.TrimSuffix(p, "/"), fi.Attr(), 0)
	}
	if o.total {
		d.line(total, "total")
	}
	if env.Canceled() {
		return 1
	}
	return d.status
}

// duBlockSize parses --block-size: a number with an optional K, M, G
// (powers of 1024, or of 1000 with a "B" suffix).
func duBlockSize(s string) (int64, bool) {
	mult := int64(1)
	num := s
	suffixes := []struct {
		s string
		m int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1e6}, {"GB", 1e9},
		{"K", 1 << 10}, {"k", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}}
	for _, x := range suffixes {
		if strings.HasSuffix(s, x.s) {
			mult, num = x.m, strings.TrimSuffix(s, x.s)
			break
		}
	}
	n := int64(1)
	if num != "" {
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil || v <= 0 {
			return 0, false
		}
		n = v
	}
	return n * mult, true
}

type duRun struct {
	fn     fnCache
	env    *Env
	o      duOpts
	w      *bufio.Writer
	seen   map[uint64]bool
	stack  map[uint64]bool // directories being walked (-L loops)
	status int
}

// size is one file's own usage in bytes.
func (d *duRun) size(a vfs.Attr) int64 {
	if d.o.apparent {
		if a.IsDir() || a.IsRegular() || a.IsSymlink() {
			return a.Size
		}
		return 0
	}
	return fuBlocks(a) * 512
}

// line prints one "size\tname" line.
func (d *duRun) line(n int64, name string) {
	var s string
	if d.o.human {
		s = fuHumanSize(n)
	} else {
		s = strconv.FormatInt((n+d.o.unit-1)/d.o.unit, 10)
	}
	end := "\n"
	if d.o.nul {
		end = "\x00"
	}
	fmt.Fprintf(d.w, "%s\t%s%s", s, name, end)
}

// walk returns the usage of a file or tree in bytes, printing what the
// options ask for.
func (d *duRun) walk(disp, abs string, a vfs.Attr, depth int) int64 {
	if a.Nlink > 1 && !a.IsDir() {
		if d.seen[a.Ino] {
			return 0
		}
		d.seen[a.Ino] = true
	}
	n := d.size(a)
	show := d.o.maxDepth < 0 || depth <= d.o.maxDepth
	if !a.IsDir() {
		if show && (d.o.all || depth == 0) {
			d.line(n, disp)
		}
		return n
	}
	if d.stack == nil {
		d.stack = map[uint64]bool{}
	}
	if d.stack[a.Ino] {
		d.w.Flush()
		d.env.Errorf("du", "WARNING: Circular directory structure.\nThis almost certainly means that you have a corrupted file system.\nNOTIFY YOUR SYSTEM MANAGER.\nThe following directory is part of the cycle:\n  %s\n", quoteaf(d.env, disp))
		d.status = 1
		return 0
	}
	d.stack[a.Ino] = true
	defer delete(d.stack, a.Ino)
	// Every entry's attributes with its page (one statement a page), not
	// a Lstat (a path walk and a query) per entry.
	ents, err := fuReadDirAttrs(d.env, abs)
	if err != nil {
		if d.env.Canceled() {
			return n
		}
		d.w.Flush()
		d.env.Errorf("du", "cannot read directory %s: %s", quoteaf(d.env, disp), Strerror(err))
		d.status = 1
	}
	for _, e := range ents {
		if d.env.Canceled() {
			return n
		}
		if d.excluded(e.Name) {
			continue
		}
		cp := path.Join(abs, e.Name)
		a := e.Attr
		if d.o.follow && fuIsLinkMode(a.Mode) {
			if t, terr := d.env.FS.Stat(d.env.Ctx, cp); terr == nil {
				a = t.Attr()
			}
		}
		n += d.walk(fuJoinPath(disp, e.Name), cp, a, depth+1)
	}
	if show {
		d.line(n, disp)
	}
	return n
}

func (d *duRun) excluded(name string) bool {
	for _, p := range d.o.exclude {
		if d.fn.match(p, name, false) {
			return true
		}
	}
	return false
}

package cmds

import (
	"bufio"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("tree", Tree) }

// treeOpts are tree's settings.
type treeOpts struct {
	all, dirsOnly, fullPath, classify, noIndent, follow, noReport bool
	dirsFirst, reverse, prune, matchDirs, ignoreCase, ascii       bool
	size, human, perms                                            bool
	level                                                         int // 0: no limit
	include, exclude                                              []string
}

// Tree lists directories as a tree, as tree(1) v2.1 does: the drawing is
// "├── └── │" in a UTF-8 locale (from LC_ALL, LC_MESSAGES or LANG) and
// "|-- `-- |" otherwise or with --charset=ascii, followed by the report
// "N directories, M files" (each non-empty starting directory counts,
// as tree 2.1 counts it). Flags: -a -d -f -F -i -l -L N -I PAT -P PAT
// (patterns separated by '|') --prune --matchdirs --ignore-case
// --dirsfirst -r -s -h -p --noreport --charset; -n -C -U are accepted and
// ignored. Entries are sorted by name (byte order).
func Tree(env *Env, args []string) int {
	var o treeOpts
	var roots []string
	usage := func(format string, a ...any) int {
		env.Errorf("tree", format, a...)
		fmt.Fprint(env.Stderr, treeUsage)
		return 1
	}
	rest := args[1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		next := func(opt string) (string, bool) {
			if i+1 >= len(rest) {
				return "", false
			}
			i++
			return rest[i], true
		}
		if a == "--" {
			roots = append(roots, rest[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "noreport":
				o.noReport = true
			case "dirsfirst":
				o.dirsFirst = true
			case "prune":
				o.prune = true
			case "matchdirs":
				o.matchDirs = true
			case "ignore-case":
				o.ignoreCase = true
			case "charset":
				if !hasVal {
					v, ok := next(a)
					if !ok {
						env.Errorf("tree", "Missing argument to --charset option.")
						return 1
					}
					val = v
				}
				o.ascii = !strings.EqualFold(val, "utf-8") && !strings.EqualFold(val, "utf8")
			case "filelimit", "timefmt", "sort":
				if !hasVal {
					if _, ok := next(a); !ok {
						env.Errorf("tree", "Missing argument to --%s option.", name)
						return 1
					}
				}
			case "nolinks", "si", "du", "gitignore", "inodes", "device", "filesfirst", "metafirst", "info":
			case "help":
				fmt.Fprint(env.Stdout, treeUsage)
				return 0
			case "version":
				fmt.Fprintln(env.Stdout, "tree v2.1.0 (c) 1996 - 2022 by Steve Baker, Thomas Moore, Francesc Rocher, Florian Sesser, Kyosuke Tokoro")
				return 0
			default:
				return usage("Invalid argument `%s'.", a)
			}
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			roots = append(roots, a)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			switch c {
			case 'a':
				o.all = true
			case 'd':
				o.dirsOnly = true
			case 'f':
				o.fullPath = true
			case 'F':
				o.classify = true
			case 'i':
				o.noIndent = true
			case 'l':
				o.follow = true
			case 'r':
				o.reverse = true
			case 's':
				o.size = true
			case 'h':
				o.human, o.size = true, true
			case 'p':
				o.perms = true
			case 'n', 'C', 'U', 'N', 'q', 'A', 'S', 'D', 'u', 'g', 'x', 'c', 't', 'v':
			case 'L', 'I', 'P':
				val := a[j+1:]
				if val == "" {
					v, ok := next(a)
					if !ok {
						env.Errorf("tree", "Missing argument to -%c option.", c)
						return 1
					}
					val = v
				}
				j = len(a)
				switch c {
				case 'L':
					n, err := strconv.Atoi(val)
					if err != nil || n < 1 {
						env.Errorf("tree", "Invalid level, must be greater than 0.")
						return 1
					}
					o.level = n
				case 'I':
					o.exclude = append(o.exclude, strings.Split(val, "|")...)
				case 'P':
					o.include = append(o.include, strings.Split(val, "|")...)
				}
			default:
				return usage("Invalid argument -`%c'.", c)
			}
		}
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	if !utf8Locale(env) {
		o.ascii = true
	}
	t := &treeRun{env: env, o: o, w: bufio.NewWriter(env.Stdout), fn: fnCache{}}
	defer t.w.Flush()
	status := 0
	for _, r := range roots {
		if env.Canceled() {
			return 1
		}
		if !t.root(r) {
			status = 2
		}
	}
	if !o.noReport {
		if o.dirsOnly {
			fmt.Fprintf(t.w, "\n%d director%s\n", t.dirs, treePlural(t.dirs, "y", "ies"))
		} else {
			fmt.Fprintf(t.w, "\n%d director%s, %d file%s\n", t.dirs, treePlural(t.dirs, "y", "ies"), t.files, treePlural(t.files, "", "s"))
		}
	}
	return status
}

const treeUsage = `usage: tree [-acdfghilnpqrstuvxACDFJQNSUX] [-L level [-R]] [-H  baseHREF]
	[-T title] [-o filename] [-P pattern] [-I pattern] [--gitignore]
	[--gitfile[=]file] [--matchdirs] [--metafirst] [--ignore-case]
	[--nolinks] [--hintro[=]file] [--houtro[=]file] [--inodes] [--device]
	[--sort[=]<name>] [--dirsfirst] [--filesfirst] [--filelimit #] [--si]
	[--du] [--prune] [--charset[=]X] [--timefmt[=]format] [--fromfile]
	[--fflinks] [--info] [--infofile[=]file] [--noreport] [--version]
	[--help] [--] [directory ...]
`

func treePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

type treeRun struct {
	fn          fnCache
	env         *Env
	o           treeOpts
	w           *bufio.Writer
	dirs, files int
}

// treeNode is one listed entry.
type treeNode struct {
	name   string
	abs    string
	attr   vfs.Attr // lstat
	isDir  bool     // a directory, or a symlink to one
	target string
	kids   []*treeNode
	loop   bool
	err    bool
}

// root prints one starting point; false when it could not be opened.
func (t *treeRun) root(r string) bool {
	abs := t.env.Abs(r)
	fi, err := t.env.FS.Stat(t.env.Ctx, abs)
	if err != nil {
		fmt.Fprintf(t.w, "%s  [error opening dir]\n", r)
		return false
	}
	if !fi.IsDir() {
		fmt.Fprintf(t.w, "%s  [error opening dir]\n", r)
		t.files++
		return true
	}
	n := &treeNode{name: r, abs: abs, attr: fi.Attr(), isDir: true}
	kids := t.read(n, 1, []uint64{fi.Attr().Ino})
	if len(kids) > 0 {
		t.dirs++
	}
	label := r
	if t.o.classify && !strings.HasSuffix(r, "/") {
		label += "/"
	}
	if meta := t.meta(n); meta != "" {
		label = "[" + meta + "]  " + label
	}
	fmt.Fprintf(t.w, "%s\n", label)
	t.print(kids, "", r)
	return true
}

// read lists a directory's entries as they will be shown, recursively.
func (t *treeRun) read(n *treeNode, depth int, anc []uint64) []*treeNode {
	if t.o.level > 0 && depth > t.o.level {
		return nil
	}
	if t.env.Canceled() {
		return nil
	}
	ents, err := fuReadDir(t.env, n.abs)
	if err != nil {
		n.err = true
		return nil
	}
	var out []*treeNode
	for _, e := range ents {
		if t.env.Canceled() {
			return nil
		}
		if !t.o.all && strings.HasPrefix(e.Name, ".") {
			continue
		}
		if t.match(t.o.exclude, e.Name) {
			continue
		}
		c := &treeNode{name: e.Name, abs: path.Join(n.abs, e.Name)}
		fi, err := t.env.FS.Lstat(t.env.Ctx, c.abs)
		if err != nil {
			continue
		}
		c.attr = fi.Attr()
		c.isDir = c.attr.IsDir()
		var ino = c.attr.Ino
		if c.attr.IsSymlink() {
			c.target, _ = t.env.FS.Readlink(t.env.Ctx, c.abs)
			if ti, err := t.env.FS.Stat(t.env.Ctx, c.abs); err == nil && ti.IsDir() {
				c.isDir = true
				ino = ti.Attr().Ino
			}
		}
		if t.o.dirsOnly && !c.isDir {
			continue
		}
		if len(t.o.include) > 0 && !c.isDir && !t.match(t.o.include, e.Name) {
			continue
		}
		if c.isDir && (!c.attr.IsSymlink() || t.o.follow) {
			for _, a := range anc {
				if a == ino {
					c.loop = true
				}
			}
			if !c.loop {
				c.kids = t.read(c, depth+1, append(anc, ino))
			}
		}
		if t.o.prune && c.isDir && len(c.kids) == 0 {
			continue
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if t.o.dirsFirst && out[i].isDir != out[j].isDir {
			return out[i].isDir
		}
		if t.o.reverse {
			return out[i].name > out[j].name
		}
		return out[i].name < out[j].name
	})
	return out
}

func (t *treeRun) match(pats []string, name string) bool {
	for _, p := range pats {
		if p != "" && t.fn.match(p, name, t.o.ignoreCase) {
			return true
		}
	}
	return false
}

// print draws entries under a prefix; dir is the displayed parent path (-f).
func (t *treeRun) print(kids []*treeNode, prefix, dir string) {
	branch, last, vert, blank := "├── ", "└── ", "│\u00a0\u00a0 ", "    "
	if t.o.ascii {
		branch, last, vert = "|-- ", "`-- ", "|   "
	}
	if t.o.noIndent {
		branch, last, vert, blank = "", "", "", ""
	}
	for i, c := range kids {
		if t.env.Canceled() {
			return
		}
		conn, sub := branch, vert
		if i == len(kids)-1 {
			conn, sub = last, blank
		}
		name := c.name
		if t.o.fullPath {
			name = fuJoinPath(dir, c.name)
		}
		var b strings.Builder
		b.WriteString(prefix)
		b.WriteString(conn)
		if meta := t.meta(c); meta != "" {
			b.WriteString("[" + meta + "]  ")
		}
		b.WriteString(name)
		if c.attr.IsSymlink() {
			if t.o.classify && c.isDir {
				b.WriteString(" -> " + c.target + "/")
			} else {
				b.WriteString(" -> " + c.target)
			}
		} else if t.o.classify {
			switch {
			case c.isDir:
				b.WriteByte('/')
			case c.attr.Mode&0o111 != 0:
				b.WriteByte('*')
			}
		}
		if c.loop {
			b.WriteString("  [recursive, not followed]")
		} else if c.err {
			b.WriteString("  [error opening dir]")
		}
		b.WriteByte('\n')
		t.w.WriteString(b.String())
		if c.isDir {
			t.dirs++
		} else {
			t.files++
		}
		t.print(c.kids, prefix+sub, fuJoinPath(dir, c.name))
	}
}

// meta is the bracketed -p/-s/-h column.
func (t *treeRun) meta(c *treeNode) string {
	var parts []string
	if t.o.perms {
		parts = append(parts, vfs.ModeString(c.attr.Mode))
	}
	if t.o.size {
		if t.o.human {
			parts = append(parts, fmt.Sprintf("%4s", treeHuman(c.attr.Size)))
		} else {
			parts = append(parts, fmt.Sprintf("%11d", c.attr.Size))
		}
	}
	return strings.Join(parts, " ")
}

// treeHuman is tree -h's size: one decimal below 10 ("4.0K"), else whole.
func treeHuman(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	units := "KMGTPE"
	v := float64(n)
	i := -1
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if v < 9.95 {
		return fmt.Sprintf("%.1f%c", v, units[i])
	}
	return fmt.Sprintf("%.0f%c", v, units[i])
}

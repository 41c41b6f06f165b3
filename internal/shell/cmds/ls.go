package cmds

import (
	"bufio"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("ls", Ls) }

// lsOpts are ls's settings.
type lsOpts struct {
	long, all, almost, human, recursive, dirs, classify, slash, reverse bool
	inode, numeric, noSort, deref                                       bool
	commas, quote                                                       bool   // -m, -Q
	sortBy                                                              byte   // 0 name, 't' time, 'S' size, 'X' extension
	timeFmt                                                             string // --time-style: strftime formats "old\nrecent" ("" the default)
}

// lsEntry is one file to list.
type lsEntry struct {
	name   string // as displayed
	path   string // absolute
	attr   vfs.Attr
	target string // symlink target (long format)
	tattr  *vfs.Attr
}

// Ls lists directory contents as GNU ls does when its output is not a
// terminal: one name per line, or the long format with -l (mode, links,
// owner, group, size, mtime in UTC, name and "-> target"). Flags: -a -A -l
// -h -R -1 -d -F -p -t -S -X -r -U -i -n -L -m -Q, --time-style and
// --full-time; -C, -x and --color are accepted and ignored. Missing operands
// are reported and make the status 2.
func Ls(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "a|all", "A|almost-all", "l", "h|human-readable",
		"R|recursive", "1", "d|directory", "F|classify", "p", "t", "S", "r|reverse", "U", "i|inode",
		"n|numeric-uid-gid", "L|dereference", "C", "x", "|color?", "g", "o", "|group-directories-first",
		"X", "m", "Q|quote-name", "|time-style=", "|full-time")
	if !ok {
		return 2
	}
	var o lsOpts
	style, haveStyle := "", false
	for _, v := range opts {
		switch v.name {
		case "all":
			o.all, o.almost = true, false
		case "almost-all":
			o.almost, o.all = true, false
		case "l", "g", "o":
			o.long, o.commas = true, false
		case "numeric-uid-gid":
			o.long, o.numeric = true, true
		case "human-readable":
			o.human = true
		case "recursive":
			o.recursive = true
		case "1", "C", "x":
			if v.name == "1" {
				o.long = false
			}
			o.commas = false
		case "m":
			o.commas, o.long = true, false
		case "directory":
			o.dirs = true
		case "classify":
			o.classify = true
		case "p":
			o.slash = true
		case "t":
			o.sortBy = 't'
		case "S":
			o.sortBy = 'S'
		case "X":
			o.sortBy = 'X'
		case "quote-name":
			o.quote = true
		case "full-time":
			o.long, o.commas, o.timeFmt = true, false, "%Y-%m-%d %H:%M:%S.%N %z"
		case "time-style":
			style, haveStyle = v.val, true
		case "r":
			o.reverse = true
		case "reverse":
			o.reverse = true
		case "U":
			o.noSort = true
		case "inode":
			o.inode = true
		case "dereference":
			o.deref = true
		}
	}
	if haveStyle && o.long { // as GNU, checked only for the long format
		f, ok := lsTimeStyle(style)
		if !ok {
			env.Errorf("ls", "invalid argument %s for %s", quote(env, style), quote(env, "time style"))
			fmt.Fprint(env.Stderr, "Valid arguments are:\n  - [posix-]full-iso\n  - [posix-]long-iso\n  - [posix-]iso\n"+
				"  - [posix-]locale\n  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\n")
			fuTryHelp(env, "ls")
			return 2
		}
		o.timeFmt = f
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	l := &fuLister{env: env, o: o, w: w}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	var files, dirs []lsEntry
	for _, op := range operands {
		p := fuAbs(env, op)
		follow := o.deref || !(o.dirs || o.classify || o.long)
		fi, err := env.FS.Lstat(env.Ctx, p)
		if err == nil && fuIsLinkMode(fi.Attr().Mode) && (follow || strings.HasSuffix(op, "/")) {
			if t, terr := env.FS.Stat(env.Ctx, p); terr == nil && (o.deref || t.IsDir()) {
				fi = t
			}
		}
		if err != nil {
			w.Flush()
			env.Errorf("ls", "cannot access %s: %s", quoteaf(env, op), Strerror(err))
			l.status = 2
			continue
		}
		e := lsEntry{name: op, path: p, attr: fi.Attr()}
		if e.attr.IsDir() && !o.dirs {
			dirs = append(dirs, e)
		} else {
			files = append(files, l.fill(e))
		}
	}
	l.sort(files)
	if len(files) > 0 {
		l.print(files)
		l.printed = true
	}
	l.sort(dirs)
	header := len(operands) > 1 || o.recursive
	for _, d := range dirs {
		if env.Canceled() {
			return 1
		}
		l.listDir(d.name, d.path, header)
	}
	return l.status
}

type fuLister struct {
	env     *Env
	o       lsOpts
	w       *bufio.Writer
	status  int
	printed bool
}

// fill adds what the long format and -F need: the symlink target.
func (l *fuLister) fill(e lsEntry) lsEntry {
	if e.attr.IsSymlink() && (l.o.long || l.o.classify) {
		e.target, _ = l.env.FS.Readlink(l.env.Ctx, e.path)
		if t, err := l.env.FS.Stat(l.env.Ctx, e.path); err == nil {
			a := t.Attr()
			e.tattr = &a
		}
	}
	return e
}

// lsPage is how many entries ls reads in one statement.
const lsPage = 1024

// readDir lists directory p in name order a page at a time, with every
// entry's attributes when attrs is set (vfs.ReadDirFiles: one statement
// per page, not a stat per entry), else names and modes (ReadDirPage).
// Entries that are hidden and not asked for are left out.
func (l *fuLister) readDir(p string, attrs bool, list []lsEntry) ([]lsEntry, error) {
	env := l.env
	hidden := l.o.all || l.o.almost
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			return list, err
		}
		var n int
		if attrs {
			ents, err := env.FS.ReadDirFiles(env.Ctx, p, after, lsPage, 0)
			if err != nil {
				return list, err
			}
			for i := range ents {
				if hidden || !strings.HasPrefix(ents[i].Name, ".") {
					list = append(list, lsEntry{name: ents[i].Name, attr: ents[i].Attr})
				}
			}
			if n = len(ents); n > 0 {
				after = ents[n-1].Name
			}
		} else {
			ents, err := env.FS.ReadDirNames(env.Ctx, p, after, lsPage)
			if err != nil {
				return list, err
			}
			for _, de := range ents {
				if hidden || !strings.HasPrefix(de.Name, ".") {
					list = append(list, lsEntry{name: de.Name, attr: vfs.Attr{Mode: de.Mode, Ino: de.Ino}})
				}
			}
			if n = len(ents); n > 0 {
				after = ents[n-1].Name
			}
		}
		if n < lsPage {
			return list, nil
		}
	}
}

func (l *fuLister) listDir(name, p string, header bool) {
	env := l.env
	var list []lsEntry
	if l.o.all {
		for _, dn := range []string{".", ".."} {
			if fi, err := env.FS.Stat(env.Ctx, vfs.Clean(p+"/"+dn)); err == nil {
				list = append(list, lsEntry{name: dn, path: p, attr: fi.Attr()})
			}
		}
	}
	dots := len(list)
	attrs := l.o.long || l.o.sortBy != 0 || l.o.classify || l.o.deref || l.o.recursive
	if !attrs && !l.o.all && !l.o.commas && (l.o.noSort || !l.o.reverse) {
		l.streamDir(name, p, header)
		return
	}
	list, err := l.readDir(p, attrs, list)
	if err != nil {
		l.w.Flush()
		env.Errorf("ls", "cannot open directory %s: %s", quoteaf(env, name), Strerror(err))
		l.status = 2
		return
	}
	if l.printed {
		l.w.WriteString("\n")
	}
	l.printed = true
	if header {
		fmt.Fprintf(l.w, "%s:\n", name)
	}
	for i := dots; i < len(list); i++ {
		e := &list[i]
		if !attrs {
			continue
		}
		// A path only where one is needed: links, and directories to recurse.
		if e.attr.IsSymlink() || e.attr.IsDir() {
			e.path = vfs.Clean(p + "/" + e.name)
		}
		if l.o.deref && e.attr.IsSymlink() {
			if t, err := env.FS.Stat(env.Ctx, e.path); err == nil {
				e.attr = t.Attr()
			}
		}
		*e = l.fill(*e)
	}
	l.sort(list)
	if l.o.long {
		var blocks int64
		for _, e := range list {
			blocks += e.attr.Blocks
		}
		if l.o.human {
			fmt.Fprintf(l.w, "total %s\n", fuHumanSize(blocks*512))
		} else {
			fmt.Fprintf(l.w, "total %d\n", (blocks+1)/2)
		}
	}
	l.print(list)
	if l.o.recursive {
		for _, e := range list {
			if env.Canceled() {
				return
			}
			if e.attr.IsDir() && e.name != "." && e.name != ".." {
				l.listDir(fuJoinPath(name, e.name), e.path, true)
			}
		}
	}
}

// streamDir prints a listing that needs names and modes only, in the
// store's order (name order, which is ls's here, or -U's "directory order"),
// a page at a time as it is read: no list of the whole directory.
func (l *fuLister) streamDir(name, p string, header bool) {
	env := l.env
	hidden := l.o.almost
	after := ""
	for first := true; ; first = false {
		if err := env.Ctx.Err(); err != nil {
			return
		}
		ents, err := env.FS.ReadDirNames(env.Ctx, p, after, lsPage)
		if err != nil {
			l.w.Flush()
			env.Errorf("ls", "cannot open directory %s: %s", quoteaf(env, name), Strerror(err))
			l.status = 2
			return
		}
		if first {
			if l.printed {
				l.w.WriteString("\n")
			}
			l.printed = true
			if header {
				fmt.Fprintf(l.w, "%s:\n", name)
			}
		}
		for _, de := range ents {
			if !hidden && strings.HasPrefix(de.Name, ".") {
				continue
			}
			if l.o.inode {
				l.w.WriteString(strconv.FormatUint(de.Ino, 10))
				l.w.WriteByte(' ')
			}
			l.w.WriteString(l.quoted(de.Name))
			l.w.WriteString(l.indicator(vfs.Attr{Mode: de.Mode, Ino: de.Ino}, false))
			l.w.WriteByte('\n')
		}
		if len(ents) < lsPage {
			return
		}
		after = ents[len(ents)-1].Name
	}
}

func (l *fuLister) sort(list []lsEntry) {
	if l.o.noSort {
		return
	}
	less := func(a, b lsEntry) bool {
		switch l.o.sortBy {
		case 't':
			if !a.attr.Mtime.Equal(b.attr.Mtime) {
				return a.attr.Mtime.After(b.attr.Mtime)
			}
		case 'S':
			if a.attr.Size != b.attr.Size {
				return a.attr.Size > b.attr.Size
			}
		case 'X':
			if ea, eb := lsExt(a.name), lsExt(b.name); ea != eb {
				return ea < eb
			}
		}
		return a.name < b.name
	}
	if l.o.sortBy == 0 && slices.IsSortedFunc(list, func(a, b lsEntry) int { return strings.Compare(a.name, b.name) }) {
		// In name order already, as the store lists a directory.
		if l.o.reverse {
			slices.Reverse(list)
		}
		return
	}
	sort.SliceStable(list, func(i, j int) bool {
		if l.o.reverse {
			return less(list[j], list[i])
		}
		return less(list[i], list[j])
	})
}

// indicator is the -F / -p suffix for a mode.
func (l *fuLister) indicator(a vfs.Attr, inLink bool) string {
	switch {
	case a.IsDir():
		if l.o.classify || l.o.slash {
			return "/"
		}
	case a.IsSymlink():
		if l.o.classify && !inLink {
			return "@"
		}
	case a.IsRegular():
		if l.o.classify && a.Mode&0o111 != 0 {
			return "*"
		}
	}
	return ""
}

func (l *fuLister) print(list []lsEntry) {
	if l.o.commas {
		l.printCommas(list)
		return
	}
	if !l.o.long {
		for _, e := range list {
			if l.o.inode {
				fmt.Fprintf(l.w, "%d ", e.attr.Ino)
			}
			l.w.WriteString(l.quoted(e.name))
			l.w.WriteString(l.indicator(e.attr, false))
			l.w.WriteByte('\n')
		}
		return
	}
	type row struct{ ino, links, owner, group, size string }
	rows := make([]row, len(list))
	var wi, wl, wo, wg, ws int
	for i, e := range list {
		r := row{ino: strconv.FormatUint(e.attr.Ino, 10), links: strconv.Itoa(int(e.attr.Nlink))}
		if l.o.numeric {
			r.owner, r.group = strconv.Itoa(int(e.attr.Uid)), strconv.Itoa(int(e.attr.Gid))
		} else {
			r.owner, r.group = fuUserName(e.attr.Uid), fuGroupName(e.attr.Gid)
		}
		if l.o.human {
			r.size = fuHumanSize(e.attr.Size)
		} else {
			r.size = strconv.FormatInt(e.attr.Size, 10)
		}
		wi, wl, wo = max(wi, len(r.ino)), max(wl, len(r.links)), max(wo, len(r.owner))
		wg, ws = max(wg, len(r.group)), max(ws, len(r.size))
		rows[i] = r
	}
	now := l.env.Clock()
	for i, e := range list {
		r := rows[i]
		if l.o.inode {
			fmt.Fprintf(l.w, "%*s ", wi, r.ino)
		}
		fmt.Fprintf(l.w, "%s %*s %-*s %-*s %*s %s %s", vfs.ModeString(e.attr.Mode), wl, r.links, wo, r.owner,
			wg, r.group, ws, r.size, l.time(e.attr.Mtime, now), l.quoted(e.name))
		if e.attr.IsSymlink() {
			fmt.Fprintf(l.w, " -> %s", l.quoted(e.target))
			if e.tattr != nil {
				l.w.WriteString(l.indicator(*e.tattr, true))
			}
		} else {
			l.w.WriteString(l.indicator(e.attr, false))
		}
		l.w.WriteString("\n")
	}
}

// printCommas is -m: names separated by ", ", lines broken before a name
// that would reach the line width (80, or $COLUMNS), as GNU's
// print_with_separator.
func (l *fuLister) printCommas(list []lsEntry) {
	width := 80
	if n, err := strconv.Atoi(l.env.Getenv("COLUMNS")); err == nil && n > 0 {
		width = n
	}
	pos := 0
	for i, e := range list {
		name := l.quoted(e.name) + l.indicator(e.attr, false)
		if l.o.inode {
			name = strconv.FormatUint(e.attr.Ino, 10) + " " + name
		}
		n := runeCount([]byte(name))
		if i > 0 {
			if pos+n+2 < width {
				pos += 2
				l.w.WriteString(", ")
			} else {
				pos = 0
				l.w.WriteString(",\n")
			}
		}
		l.w.WriteString(name)
		pos += n
	}
	if len(list) > 0 {
		l.w.WriteString("\n")
	}
}

// quoted is name as -Q prints it: in double quotes with C escapes
// (c_quoting_style, which escapes what the locale cannot print).
func (l *fuLister) quoted(name string) string {
	if !l.o.quote {
		return name
	}
	return quoteC(l.env, name)
}

// lsExt is the extension -X sorts on: from the last dot ("" without one).
func lsExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

// lsTimeStyle turns a --time-style argument into strftime formats "old\nrecent"
// ("" for the default, locale, style).
func lsTimeStyle(style string) (string, bool) {
	if f, ok := strings.CutPrefix(style, "+"); ok {
		if !strings.Contains(f, "\n") {
			f += "\n" + f
		}
		return f, true
	}
	switch strings.TrimPrefix(style, "posix-") {
	case "full-iso":
		return "%Y-%m-%d %H:%M:%S.%N %z\n%Y-%m-%d %H:%M:%S.%N %z", true
	case "long-iso":
		return "%Y-%m-%d %H:%M\n%Y-%m-%d %H:%M", true
	case "iso":
		return "%Y-%m-%d \n%m-%d %H:%M", true
	case "locale":
		return "", true
	}
	return "", false
}

// time formats a modification time for the long format.
func (l *fuLister) time(t, now time.Time) string {
	if l.o.timeFmt == "" {
		return fuLsTime(t, now)
	}
	old, recent, _ := strings.Cut(l.o.timeFmt, "\n")
	if recent == "" {
		recent = old
	}
	t = t.UTC()
	sixMonths := time.Duration(31556952/2) * time.Second
	if t.After(now.Add(-sixMonths)) && !t.After(now.Add(time.Second)) {
		return strftime(recent, t)
	}
	return strftime(old, t)
}

// fuLsTime formats a time as ls -l does: "%b %e %H:%M" within the last six
// months, else "%b %e  %Y"; in UTC.
func fuLsTime(t, now time.Time) string {
	t = t.UTC()
	sixMonths := time.Duration(31556952/2) * time.Second
	if t.After(now.Add(-sixMonths)) && !t.After(now.Add(time.Second)) {
		return t.Format("Jan _2 15:04")
	}
	return t.Format("Jan _2  2006")
}

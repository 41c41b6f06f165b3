package cmds

import (
	"bufio"
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/glob"
	pf "github.com/desk-dev/desk/internal/shell/printf"
	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("find", Find) }

// Find searches directory trees as GNU find (findutils 4.9) does. Options:
// -H -L -P before the paths (default .). Expression: operators ( ) ! -not -a
// -and -o -or ,; global options -maxdepth -mindepth -depth -follow (and the
// ignored -xdev -mount -noleaf -ignore_readdir_race -regextype); tests -name
// -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype
// -size -empty -mtime -mmin -atime -amin -ctime -cmin -newer -perm -user
// -group -uid -gid -links -inum -readable -writable -executable -true
// -false; actions -print -print0 -printf -ls -delete -exec/-execdir with ';'
// or '+', -prune -quit. With no action the expression is followed by -print.
//
// Directories are visited in the store's order, which is name order (GNU
// lists them in on-disk order, which on a real file system is arbitrary).
// Diagnostics quote names as findutils does in the C locale ('x'), or with
// ‘x’ when the environment selects a UTF-8 locale. Commands run by -exec go
// through Env.Exec; a command that is not found is reported by the shell,
// not as "find: 'cmd': No such file or directory".
func Find(env *Env, args []string) int {
	f := &finder{env: env, maxDepth: -1, now: env.Clock()}
	f.w = bufio.NewWriter(env.Stdout)
	defer f.w.Flush()
	rest := args[1:]
	// Leading options.
	for len(rest) > 0 {
		a := rest[0]
		if a == "-H" || a == "-L" || a == "-P" {
			f.follow = a[1]
			rest = rest[1:]
			continue
		}
		if a == "-D" || a == "-O" || strings.HasPrefix(a, "-O") {
			if a == "-D" && len(rest) > 1 {
				rest = rest[1:]
			}
			rest = rest[1:]
			continue
		}
		if a == "--" {
			rest = rest[1:]
		}
		break
	}
	var paths []string
	for len(rest) > 0 && !fdIsExprStart(rest[0]) {
		paths = append(paths, rest[0])
		rest = rest[1:]
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	f.toks = rest
	expr, ok := f.parse()
	if !ok {
		return 1
	}
	if f.depthFirst {
		f.prunable = false
	}
	for _, p := range paths {
		if f.quit || env.Canceled() {
			break
		}
		f.start(p, expr)
	}
	f.flushBatches(true)
	if env.Canceled() {
		return 1
	}
	return f.status
}

// fdIsExprStart says whether a command-line argument begins the expression.
func fdIsExprStart(a string) bool {
	switch a {
	case "(", ")", "!", ",":
		return true
	}
	return len(a) > 1 && a[0] == '-'
}

// fdItem is one file being evaluated.
type fdItem struct {
	// path is the name as printed and abs the absolute one in the
	// workspace; for an entry of a directory listing both are made when
	// first asked for (P, A) from the directory's (dirPath, dirAbs) and
	// name: most entries of a walk are printed at most, and their absolute
	// names never needed.
	path, abs       string
	dirPath, dirAbs string
	name            string // base name (for -name)
	start           string // the starting point it was found under
	depth           int
	attr            vfs.Attr
	lattr           vfs.Attr // lstat attributes
	prune           bool
}

// P is the name of it as printed.
func (it *fdItem) P() string {
	if it.path == "" {
		it.path = fuJoinPath(it.dirPath, it.name)
	}
	return it.path
}

// A is the absolute name of it in the workspace.
func (it *fdItem) A() string {
	if it.abs == "" {
		it.abs = fdAbsJoin(it.dirAbs, it.name)
	}
	return it.abs
}

// fdNode is a node of the parsed expression.
type fdNode struct {
	op   byte // 'a' and, 'o' or, ',' list, '!' not, 't' test
	l, r *fdNode
	test func(*fdItem) bool
}

func (n *fdNode) eval(it *fdItem) bool {
	switch n.op {
	case 'a':
		return n.l.eval(it) && n.r.eval(it)
	case 'o':
		return n.l.eval(it) || n.r.eval(it)
	case ',':
		n.l.eval(it)
		return n.r.eval(it)
	case '!':
		return !n.l.eval(it)
	}
	return n.test(it)
}

type fdBatch struct {
	argv  []string // the command before {}
	dir   string   // -execdir: the directory the batch runs in ("" for -exec)
	paths []string
	size  int
}

type finder struct {
	env        *Env
	w          *bufio.Writer
	follow     byte // 'P' (default), 'L', 'H'
	maxDepth   int
	minDepth   int
	depthFirst bool
	prunable   bool
	hasAction  bool
	quit       bool
	status     int
	now        time.Time
	toks       []string
	prev       string // the last predicate parsed (for diagnostics)
	batches    []*fdBatch
	regexType  string
	// fullAttrs: a predicate reads more of an entry than its name, type,
	// permission bits and inode number, so walks read every entry's
	// attributes with its directory page (vfs.ReadDirFiles); otherwise
	// they read names and modes only (vfs.ReadDirPage), about half the
	// store's work an entry.
	fullAttrs bool
	// perms: a predicate reads permission bits (-perm, -executable), so
	// the names-only walks read modes (vfs.ReadDirPage, a join with each
	// entry's inode); without, names and types (vfs.ReadDirNames, the
	// directory's entries alone).
	perms bool
}

// fdNamesOnly are the predicates that need of an entry no more than a
// directory page gives with its names (vfs.DirEntry: name, inode number,
// type and permission bits); they are evaluated on those alone. Any other
// predicate sets finder.fullAttrs.
var fdNamesOnly = map[string]bool{
	"-maxdepth": true, "-mindepth": true, "-depth": true, "-d": true, "-follow": true, "-xdev": true, "-mount": true,
	"-noleaf": true, "-ignore_readdir_race": true, "-noignore_readdir_race": true, "-nowarn": true, "-warn": true,
	"-regextype": true, "-true": true, "-false": true, "-name": true, "-iname": true, "-path": true, "-ipath": true,
	"-wholename": true, "-iwholename": true, "-lname": true, "-ilname": true, "-regex": true, "-iregex": true,
	"-type": true, "-xtype": true, "-perm": true, "-inum": true, "-nouser": true, "-nogroup": true, "-readable": true,
	"-writable": true, "-executable": true, "-print": true, "-print0": true, "-prune": true, "-quit": true,
	"-delete": true, "-exec": true, "-execdir": true,
}

// fail prints a fatal parse diagnostic.
func (f *finder) fail(format string, a ...any) (*fdNode, bool) {
	f.w.Flush()
	f.env.Errorf("find", format, a...)
	return nil, false
}

func (f *finder) parse() (*fdNode, bool) {
	f.prunable = true
	f.regexType = "emacs"
	if len(f.toks) == 0 {
		return &fdNode{op: 't', test: f.print("\n")}, true
	}
	n, ok := f.parseList()
	if !ok {
		return nil, false
	}
	if len(f.toks) > 0 {
		if f.toks[0] == ")" {
			return f.fail("you have too many ')'")
		}
		return f.fail("paths must precede expression: `%s'", f.toks[0])
	}
	if n == nil {
		n = &fdNode{op: 't', test: func(*fdItem) bool { return true }}
	}
	if !f.hasAction {
		n = &fdNode{op: 'a', l: n, r: &fdNode{op: 't', test: f.print("\n")}}
	}
	return n, true
}

func (f *finder) peek() string {
	if len(f.toks) == 0 {
		return ""
	}
	return f.toks[0]
}

func (f *finder) parseList() (*fdNode, bool) {
	l, ok := f.parseOr()
	if !ok {
		return nil, false
	}
	for f.peek() == "," {
		f.toks = f.toks[1:]
		r, ok := f.rightOperand(",", l, f.parseOr)
		if !ok {
			return nil, false
		}
		l = &fdNode{op: ',', l: l, r: r}
	}
	return l, true
}

// rightOperand parses the right operand of the binary operator op (already
// taken) whose left operand is l, refusing, as GNU find does, an operator
// with nothing before it or after it.
func (f *finder) rightOperand(op string, l *fdNode, parse func() (*fdNode, bool)) (*fdNode, bool) {
	if l == nil {
		return f.fail("invalid expression; you have used a binary operator '%s' with nothing before it.", op)
	}
	r, ok := parse()
	if !ok {
		return nil, false
	}
	if r == nil {
		return f.fail("expected an expression after '%s'", op)
	}
	return r, true
}

func (f *finder) parseOr() (*fdNode, bool) {
	l, ok := f.parseAnd()
	if !ok {
		return nil, false
	}
	for f.peek() == "-o" || f.peek() == "-or" {
		op := f.peek()
		f.toks = f.toks[1:]
		r, ok := f.rightOperand(op, l, f.parseAnd)
		if !ok {
			return nil, false
		}
		l = &fdNode{op: 'o', l: l, r: r}
	}
	return l, true
}

func (f *finder) parseAnd() (*fdNode, bool) {
	l, ok := f.parseNot()
	if !ok {
		return nil, false
	}
	for {
		t := f.peek()
		if t == "" || t == ")" || t == "-o" || t == "-or" || t == "," {
			return l, true
		}
		if t == "-a" || t == "-and" {
			f.toks = f.toks[1:]
			r, ok := f.rightOperand(t, l, f.parseNot)
			if !ok {
				return nil, false
			}
			l = &fdNode{op: 'a', l: l, r: r}
			continue
		}
		r, ok := f.parseNot()
		if !ok {
			return nil, false
		}
		if r == nil {
			return l, true
		}
		if l == nil {
			l = r
		} else {
			l = &fdNode{op: 'a', l: l, r: r}
		}
	}
}

func (f *finder) parseNot() (*fdNode, bool) {
	t := f.peek()
	if t == "!" || t == "-not" {
		f.toks = f.toks[1:]
		n, ok := f.parseNot()
		if !ok {
			return nil, false
		}
		if n == nil {
			return f.fail("expected an expression after '%s'", t)
		}
		return &fdNode{op: '!', l: n}, true
	}
	return f.parsePrimary()
}

func (f *finder) parsePrimary() (*fdNode, bool) {
	t := f.peek()
	switch t {
	case "", ")", "-o", "-or", "-a", "-and", ",":
		return nil, true
	case "(":
		f.toks = f.toks[1:]
		if f.peek() == ")" {
			return f.fail("invalid expression; empty parentheses are not allowed.")
		}
		n, ok := f.parseList()
		if !ok {
			return nil, false
		}
		if f.peek() != ")" {
			return f.fail("invalid expression; I was expecting to find a ')' somewhere but did not see one.")
		}
		f.toks = f.toks[1:]
		if n == nil {
			return f.fail("invalid expression; empty parentheses are not allowed.")
		}
		return n, true
	}
	if !strings.HasPrefix(t, "-") || t == "-" {
		msg := fmt.Sprintf("paths must precede expression: `%s'", t)
		f.w.Flush()
		f.env.Errorf("find", "%s", msg)
		switch f.prev {
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex":
			f.env.Errorf("find", "possible unquoted pattern after predicate `%s'?", f.prev)
		}
		return nil, false
	}
	f.toks = f.toks[1:]
	f.prev = t
	return f.predicate(t)
}

// arg takes the argument of a predicate.
func (f *finder) arg(pred string) (string, bool) {
	if len(f.toks) == 0 {
		f.w.Flush()
		f.env.Errorf("find", "missing argument to `%s'", pred)
		return "", false
	}
	a := f.toks[0]
	f.toks = f.toks[1:]
	return a, true
}

// patternArg takes the shell pattern argument of -name, -path, -lname and
// their -i forms (which match case-insensitively).
func (f *finder) patternArg(pred string) (func(string) bool, bool) {
	pat, ok := f.arg(pred)
	if !ok {
		return nil, false
	}
	fold := pred[1] == 'i'
	if m := fdLiteralMatch(pat, fold); m != nil {
		return m, true
	}
	m, _ := glob.CompileShell(pat, fold)
	return m.Match, true
}

// fdLiteralMatch matches the patterns that are a literal with at most a "*"
// at either end ("*.go", "Makefile", "test_*", "*tmp*") by comparing bytes:
// what the compiled pattern answers (its "*" matches any bytes, newlines and
// bytes that are not UTF-8 too), without a regexp run per name. Nil for any
// other pattern, and for case-insensitive matching.
func fdLiteralMatch(pat string, fold bool) func(string) bool {
	if fold {
		return nil
	}
	lit := pat
	lead := strings.HasPrefix(lit, "*")
	if lead {
		lit = lit[1:]
	}
	trail := strings.HasSuffix(lit, "*")
	if trail {
		lit = lit[:len(lit)-1]
	}
	if strings.ContainsAny(lit, "*?[\\") {
		return nil
	}
	switch {
	case lead && trail:
		return func(s string) bool { return strings.Contains(s, lit) }
	case lead:
		return func(s string) bool { return strings.HasSuffix(s, lit) }
	case trail:
		return func(s string) bool { return strings.HasPrefix(s, lit) }
	}
	return func(s string) bool { return s == lit }
}

func fdTest(fn func(*fdItem) bool) (*fdNode, bool) { return &fdNode{op: 't', test: fn}, true }

func fdTrue(*fdItem) bool { return true }

func (f *finder) predicate(p string) (*fdNode, bool) {
	if !fdNamesOnly[p] {
		f.fullAttrs = true
	}
	if p == "-perm" || p == "-executable" {
		f.perms = true
	}
	switch p {
	case "-maxdepth", "-mindepth":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		n, err := strconv.Atoi(a)
		if err != nil || n < 0 || a == "" || a[0] == '+' || a[0] == '-' {
			return f.fail("Expected a positive decimal integer argument to %s, but got %s", p, quote(f.env, a))
		}
		if p == "-maxdepth" {
			f.maxDepth = n
		} else {
			f.minDepth = n
		}
		return fdTest(fdTrue)
	case "-depth", "-d":
		f.depthFirst = true
		return fdTest(fdTrue)
	case "-follow":
		f.follow = 'L'
		return fdTest(fdTrue)
	case "-xdev", "-mount", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-nowarn", "-warn":
		return fdTest(fdTrue)
	case "-regextype":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		switch a {
		case "emacs", "posix-basic", "posix-extended", "posix-egrep", "egrep", "grep", "sed", "findutils-default", "posix-awk", "awk", "gnu-awk", "ed", "posix-minimal-basic":
			f.regexType = a
		default:
			return f.fail("Unknown regular expression type %s; valid types are 'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', 'posix-basic', 'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed'.", quote(f.env, a))
		}
		return fdTest(fdTrue)
	case "-true":
		return fdTest(fdTrue)
	case "-false":
		return fdTest(func(*fdItem) bool { return false })
	case "-name", "-iname":
		m, ok := f.patternArg(p)
		if !ok {
			return nil, false
		}
		return fdTest(func(it *fdItem) bool { return m(it.name) })
	case "-path", "-ipath", "-wholename", "-iwholename":
		m, ok := f.patternArg(p)
		if !ok {
			return nil, false
		}
		return fdTest(func(it *fdItem) bool { return m(it.P()) })
	case "-lname", "-ilname":
		m, ok := f.patternArg(p)
		if !ok {
			return nil, false
		}
		return fdTest(func(it *fdItem) bool {
			if !it.lattr.IsSymlink() {
				return false
			}
			t, err := f.env.FS.Readlink(f.env.Ctx, it.A())
			return err == nil && m(t)
		})
	case "-regex", "-iregex":
		pat, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		re, err := fdRegexp(pat, f.regexType, p == "-iregex")
		if err != nil {
			return f.fail("Invalid regular expression %s", quote(f.env, pat))
		}
		return fdTest(func(it *fdItem) bool { return re.MatchString(it.P()) })
	case "-type", "-xtype":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		var want []uint32
		for i, c := range strings.Split(a, ",") {
			_ = i
			switch c {
			case "f":
				want = append(want, vfs.S_IFREG)
			case "d":
				want = append(want, vfs.S_IFDIR)
			case "l":
				want = append(want, vfs.S_IFLNK)
			case "b", "c", "p", "s", "D":
				want = append(want, 1) // never matches: the store has none
			case "":
				return f.fail("Unknown argument to %s: %s", p, a)
			default:
				if len(c) > 1 {
					return f.fail("Must separate multiple arguments to %s using: ','", p)
				}
				return f.fail("Unknown argument to %s: %s", p, c)
			}
		}
		x := p == "-xtype"
		return fdTest(func(it *fdItem) bool {
			m := it.attr.Mode & vfs.S_IFMT
			if x {
				m = f.xtype(it)
			}
			for _, w := range want {
				if m == w {
					return true
				}
			}
			return false
		})
	case "-size":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		cmp, num := fdSign(a)
		unit := int64(512)
		if num != "" {
			switch num[len(num)-1] {
			case 'c':
				unit, num = 1, num[:len(num)-1]
			case 'w':
				unit, num = 2, num[:len(num)-1]
			case 'b':
				num = num[:len(num)-1]
			case 'k':
				unit, num = 1024, num[:len(num)-1]
			case 'M':
				unit, num = 1<<20, num[:len(num)-1]
			case 'G':
				unit, num = 1<<30, num[:len(num)-1]
			default:
				if c := num[len(num)-1]; c < '0' || c > '9' {
					return f.fail("invalid -size type `%c'", c)
				}
			}
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || num == "" || num[0] == '+' || num[0] == '-' {
			return f.fail("invalid argument `%s' to `-size'", a)
		}
		return fdTest(func(it *fdItem) bool {
			s := (it.attr.Size + unit - 1) / unit
			return fdCompare(cmp, s, n)
		})
	case "-empty":
		return fdTest(func(it *fdItem) bool {
			switch {
			case it.attr.IsRegular():
				return it.attr.Size == 0
			case it.attr.IsDir():
				ents, err := f.env.FS.ReadDirPage(f.env.Ctx, it.A(), "", 1)
				return err == nil && len(ents) == 0
			}
			return false
		})
	case "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		cmp, num := fdSign(a)
		n, err := strconv.ParseFloat(num, 64)
		if err != nil || num == "" || num[0] == '+' || num[0] == '-' || math.IsNaN(n) || math.IsInf(n, 0) {
			return f.fail("invalid argument `%s' to `%s'", a, p)
		}
		unit := 86400.0
		if strings.HasSuffix(p, "min") {
			unit = 60
		}
		which := p[1]
		return fdTest(func(it *fdItem) bool {
			d := f.now.Sub(fdTimeOf(it, which)).Seconds() / unit
			if unit == 86400 {
				d = math.Floor(d)
				return fdCompare(cmp, d, n)
			}
			// -mmin: GNU compares the age in minutes, rounded up.
			return fdCompare(cmp, math.Ceil(d), n)
		})
	case "-newer", "-anewer", "-cnewer", "-newermm":
		fi, ok := f.refArg(p)
		if !ok {
			return nil, false
		}
		ref := fi.Attr().Mtime
		which := p[1]
		return fdTest(func(it *fdItem) bool { return fdTimeOf(it, which).After(ref) })
	case "-samefile":
		fi, ok := f.refArg(p)
		if !ok {
			return nil, false
		}
		ino := fi.Attr().Ino
		return fdTest(func(it *fdItem) bool { return it.attr.Ino == ino })
	case "-perm":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		kind := byte('=')
		spec := a
		if strings.HasPrefix(spec, "-") || strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "+") && len(spec) > 1 && spec[1] >= '0' && spec[1] <= '7' {
			kind, spec = spec[0], spec[1:]
		}
		m, okm := fuParseMode(spec, 0, false, 0)
		if !okm {
			return f.fail("invalid mode %s", quote(f.env, a))
		}
		return fdTest(func(it *fdItem) bool {
			have := it.attr.Mode & 0o7777
			switch kind {
			case '-':
				return have&m == m
			case '/', '+':
				return m == 0 || have&m != 0
			}
			return have == m
		})
	case "-user", "-group", "-uid", "-gid", "-links", "-inum":
		a, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		cmp, num := fdSign(a)
		if p == "-user" || p == "-group" {
			cmp = '='
			if a == "root" {
				num = "0"
			} else {
				num = a
			}
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || num == "" {
			switch p {
			case "-user":
				return f.fail("%s is not the name of a known user", quote(f.env, a))
			case "-group":
				return f.fail("%s is not the name of an existing group", quote(f.env, a))
			}
			return f.fail("invalid argument `%s' to `%s'", a, p)
		}
		return fdTest(func(it *fdItem) bool {
			var v int64
			switch p {
			case "-user", "-uid":
				v = int64(it.attr.Uid)
			case "-group", "-gid":
				v = int64(it.attr.Gid)
			case "-links":
				v = int64(it.attr.Nlink)
			case "-inum":
				v = int64(it.attr.Ino)
			}
			return fdCompare(cmp, v, n)
		})
	case "-nouser", "-nogroup":
		return fdTest(func(*fdItem) bool { return false })
	case "-readable", "-writable", "-executable":
		return fdTest(func(it *fdItem) bool {
			switch p {
			case "-executable":
				return it.attr.IsDir() || it.attr.Mode&0o111 != 0
			}
			return true // the shell runs as root
		})
	case "-print":
		f.hasAction = true
		return fdTest(f.print("\n"))
	case "-print0":
		f.hasAction = true
		return fdTest(f.print("\x00"))
	case "-printf":
		f.hasAction = true
		format, ok := f.arg(p)
		if !ok {
			return nil, false
		}
		return fdTest(func(it *fdItem) bool {
			f.w.WriteString(f.printf(format, it))
			return true
		})
	case "-ls":
		f.hasAction = true
		return fdTest(func(it *fdItem) bool {
			f.w.WriteString(f.ls(it))
			return true
		})
	case "-fprint", "-fprint0", "-fprintf", "-fls", "-ok", "-okdir":
		return f.fail("%s is not supported by the shell backend", p)
	case "-prune":
		return fdTest(func(it *fdItem) bool {
			if f.prunable {
				it.prune = true
			}
			return true
		})
	case "-quit":
		f.hasAction = true
		return fdTest(func(*fdItem) bool {
			f.quit = true
			return true
		})
	case "-delete":
		f.hasAction = true
		f.depthFirst = true
		return fdTest(f.delete)
	case "-exec", "-execdir":
		f.hasAction = true
		return f.parseExec(p)
	}
	return f.fail("unknown predicate `%s'", p)
}

// refArg takes the argument of a predicate that names a reference file
// (-newer, -samefile) and stats it, reporting a failure.
func (f *finder) refArg(pred string) (*vfs.FileInfo, bool) {
	a, ok := f.arg(pred)
	if !ok {
		return nil, false
	}
	fi, err := f.statArg(a)
	if err != nil {
		f.w.Flush()
		f.env.Errorf("find", "%s: %s", quote(f.env, a), Strerror(err))
		return nil, false
	}
	return fi, true
}

// statArg stats a file named on the command line (following a symlink with
// -L or -H).
func (f *finder) statArg(a string) (*vfs.FileInfo, error) {
	p := f.env.Abs(a)
	if f.follow == 'L' || f.follow == 'H' {
		if fi, err := f.env.FS.Stat(f.env.Ctx, p); err == nil {
			return fi, nil
		}
	}
	return f.env.FS.Lstat(f.env.Ctx, p)
}

// xtype is -xtype's type: the target's type for a symlink (without -L), the
// link's for a broken one.
func (f *finder) xtype(it *fdItem) uint32 {
	if f.follow == 'L' {
		return it.lattr.Mode & vfs.S_IFMT
	}
	if it.lattr.IsSymlink() {
		if fi, err := f.env.FS.Stat(f.env.Ctx, it.A()); err == nil {
			return fi.Attr().Mode & vfs.S_IFMT
		}
	}
	return it.lattr.Mode & vfs.S_IFMT
}

// fdSign splits a numeric argument's '+' or '-' prefix.
func fdSign(a string) (byte, string) {
	if strings.HasPrefix(a, "+") {
		return '+', a[1:]
	}
	if strings.HasPrefix(a, "-") {
		return '-', a[1:]
	}
	return '=', a
}

// fdCompare compares v with n as a numeric argument whose sign fdSign
// split off: '+' is more than, '-' less than, '=' exactly.
func fdCompare[T int64 | float64](cmp byte, v, n T) bool {
	switch cmp {
	case '+':
		return v > n
	case '-':
		return v < n
	}
	return v == n
}

// fdRegexp compiles a find -regex pattern, which must match the whole path.
// The emacs and basic syntaxes are translated (\( \) \| groups, literal
// parentheses and bars); the extended ones are used as Go's RE2.
func fdRegexp(pat, typ string, fold bool) (*regexp.Regexp, error) {
	re := pat
	switch typ {
	case "posix-extended", "posix-egrep", "egrep", "posix-awk", "awk", "gnu-awk":
	default:
		var b strings.Builder
		for i := 0; i < len(pat); i++ {
			c := pat[i]
			if c == '\\' && i+1 < len(pat) {
				i++
				switch n := pat[i]; n {
				case '(', ')', '|', '{', '}':
					b.WriteByte(n)
				default:
					b.WriteByte('\\')
					b.WriteByte(n)
				}
				continue
			}
			switch c {
			case '(', ')', '|', '{', '}':
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		re = b.String()
	}
	if fold {
		re = "(?i)" + re
	}
	if err := checkRegexp("^(?s:" + re + ")$"); err != nil {
		return nil, err
	}
	return regexp.Compile("^(?s:" + re + ")$")
}

// print is -print and -print0.
func (f *finder) print(term string) func(*fdItem) bool {
	return func(it *fdItem) bool {
		if it.path == "" {
			f.w.WriteString(it.dirPath)
			if !strings.HasSuffix(it.dirPath, "/") {
				f.w.WriteByte('/')
			}
			f.w.WriteString(it.name)
		} else {
			f.w.WriteString(it.path)
		}
		f.w.WriteString(term)
		return true
	}
}

// delete is -delete.
func (f *finder) delete(it *fdItem) bool {
	if it.depth == 0 && (it.name == "." || it.name == "..") {
		return true
	}
	if err := f.env.FS.Remove(f.env.Ctx, it.A()); err != nil {
		f.w.Flush()
		f.env.Errorf("find", "cannot delete %s: %s", quote(f.env, it.P()), Strerror(err))
		f.status = 1
		return false
	}
	return true
}

func (f *finder) parseExec(p string) (*fdNode, bool) {
	var argv []string
	plus := false
	found := false
	for len(f.toks) > 0 {
		t := f.toks[0]
		f.toks = f.toks[1:]
		if t == ";" {
			found = true
			break
		}
		if t == "+" && len(argv) > 0 && argv[len(argv)-1] == "{}" {
			found, plus = true, true
			argv = argv[:len(argv)-1]
			break
		}
		argv = append(argv, t)
	}
	if !found || len(argv) == 0 {
		return f.fail("missing argument to `%s'", p)
	}
	dir := p == "-execdir"
	if plus {
		for _, a := range argv {
			if strings.Contains(a, "{}") {
				return f.fail("Only one instance of {} is supported with %s ... +", p)
			}
		}
		b := &fdBatch{argv: argv}
		f.batches = append(f.batches, b)
		return fdTest(func(it *fdItem) bool {
			arg := it.P()
			if dir {
				d, name := f.execDir(it)
				if b.dir != d && len(b.paths) > 0 {
					f.runBatch(b)
				}
				b.dir, arg = d, name
			}
			b.paths = append(b.paths, arg)
			b.size += len(arg) + 1
			if b.size > 128<<10 || len(b.paths) >= 4096 {
				f.runBatch(b)
			}
			return true
		})
	}
	return fdTest(func(it *fdItem) bool {
		arg := it.P()
		env := f.env
		if dir {
			d, name := f.execDir(it)
			e2 := *env
			e2.Dir = d
			env, arg = &e2, name
		}
		full := make([]string, len(argv))
		for i, a := range argv {
			full[i] = strings.ReplaceAll(a, "{}", arg)
		}
		f.w.Flush()
		return f.exec(env, full) == 0
	})
}

// execDir is -execdir's working directory and "./name" argument.
func (f *finder) execDir(it *fdItem) (string, string) {
	return path.Dir(it.A()), "./" + path.Base(it.A())
}

func (f *finder) runBatch(b *fdBatch) {
	if len(b.paths) == 0 {
		return
	}
	env := f.env
	if b.dir != "" {
		e2 := *env
		e2.Dir = b.dir
		env = &e2
	}
	argv := append(append([]string{}, b.argv...), b.paths...)
	b.paths, b.size = nil, 0
	f.w.Flush()
	if f.exec(env, argv) != 0 {
		f.status = 1
	}
}

// exec runs a command of -exec/-execdir/-ok; a missing one is reported as
// GNU find reports a failed execvp (the predicate is then false; with "+"
// the caller makes the exit status 1, as for any failure).
func (f *finder) exec(env *Env, argv []string) int {
	status := env.Exec(env.Ctx, env, argv)
	if status == NotFound {
		env.Errorf("find", "%s: No such file or directory", quote(env, argv[0]))
		return 127
	}
	return status
}

func (f *finder) flushBatches(bool) {
	for _, b := range f.batches {
		if f.env.Canceled() {
			return
		}
		f.runBatch(b)
	}
}

// start walks one starting point.
func (f *finder) start(p string, expr *fdNode) {
	abs := fuAbs(f.env, p)
	lfi, err := f.env.FS.Lstat(f.env.Ctx, abs)
	if err != nil {
		f.report(p, err)
		return
	}
	it := &fdItem{path: p, abs: strings.TrimSuffix(abs, "/"), name: fuBaseOf(p), start: p, lattr: lfi.Attr()}
	if it.abs == "" {
		it.abs = "/"
	}
	it.attr = it.lattr
	if it.lattr.IsSymlink() && (f.follow == 'L' || f.follow == 'H' || strings.HasSuffix(p, "/")) {
		if fi, err := f.env.FS.Stat(f.env.Ctx, abs); err == nil {
			it.attr = fi.Attr()
		}
	}
	f.visit(it, expr, nil)
}

func (f *finder) report(p string, err error) {
	f.w.Flush()
	f.env.Errorf("find", "%s: %s", quote(f.env, p), Strerror(err))
	f.status = 1
}

type fdAncestor struct {
	ino  uint64
	path string
}

func (f *finder) visit(it *fdItem, expr *fdNode, anc []fdAncestor) {
	if f.quit || f.env.Canceled() {
		return
	}
	if it.attr.IsDir() && f.follow == 'L' {
		for _, a := range anc {
			if a.ino == it.attr.Ino {
				f.w.Flush()
				f.env.Errorf("find", "File system loop detected; %s is part of the same file system loop as %s.",
					quote(f.env, it.P()), quote(f.env, a.path))
				f.status = 1
				return
			}
		}
	}
	inRange := it.depth >= f.minDepth
	if !f.depthFirst && inRange {
		expr.eval(it)
	}
	descend := it.attr.IsDir() && (f.maxDepth < 0 || it.depth < f.maxDepth) && !it.prune && !f.quit
	if descend {
		names, ents, err := f.readDir(it.A())
		if err != nil {
			if !f.env.Canceled() {
				f.report(it.P(), err)
			}
		} else {
			anc = append(anc, fdAncestor{it.attr.Ino, it.P()})
			// One item for every entry of the directory in turn: nothing
			// keeps an item past its visit.
			c := &fdItem{}
			n := max(len(names), len(ents))
			for i := range n {
				if f.quit || f.env.Canceled() {
					return
				}
				var name string
				if names != nil {
					e := &names[i]
					name = e.Name
					*c = fdItem{lattr: vfs.Attr{Ino: e.Ino, Mode: e.Mode}}
				} else {
					name = ents[i].Name
					*c = fdItem{lattr: ents[i].Attr} // as Lstat gives it, read with the page
				}
				c.dirPath, c.dirAbs, c.name = it.P(), it.A(), name
				c.start, c.depth = it.start, it.depth+1
				c.attr = c.lattr
				if c.lattr.IsSymlink() && f.follow == 'L' {
					if ti, err := f.env.FS.Stat(f.env.Ctx, c.A()); err == nil {
						c.attr = ti.Attr()
					}
				}
				f.visit(c, expr, anc)
			}
		}
	}
	if f.depthFirst && inRange && !f.quit {
		expr.eval(it)
	}
}

// readDir lists a directory whole (as GNU find's fts reads one before it
// visits its entries): with every entry's attributes (ents) when an
// expression needs them, else with names, inode numbers and modes (names;
// the type bits alone unless f.perms).
func (f *finder) readDir(abs string) (names []vfs.DirEntry, ents []vfs.DirFile, err error) {
	if f.fullAttrs {
		ents, err = fuReadDirAttrs(f.env, abs)
		return nil, ents, err
	}
	after := ""
	for {
		var page []vfs.DirEntry
		var err error
		if f.perms {
			page, err = f.env.FS.ReadDirPage(f.env.Ctx, abs, after, 4096)
		} else {
			page, err = f.env.FS.ReadDirNames(f.env.Ctx, abs, after, 4096)
		}
		if err != nil {
			return nil, nil, err
		}
		if names == nil {
			names = page
		} else {
			names = append(names, page...)
		}
		if len(page) < 4096 {
			if names == nil {
				names = []vfs.DirEntry{}
			}
			return names, nil, nil
		}
		after = page[len(page)-1].Name
	}
}

// fdAbsJoin is path.Join(dir, name) for a clean absolute dir and a name
// from a directory listing (never empty, ".", ".." or with a "/").
func fdAbsJoin(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// fdTimeLayout is the layout of find's %t, %a and %c (ctime(3) with
// nanoseconds).
const fdTimeLayout = "Mon Jan _2 15:04:05.0000000000 2006"

// printf renders a -printf format for one file.
func (f *finder) printf(format string, it *fdItem) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && i+1 < len(format) {
			i++
			if e, ok := pf.CEscape(format[i]); ok {
				b.WriteByte(e)
				continue
			}
			switch format[i] {
			case '0':
				b.WriteByte(0)
			case 'c':
				return b.String()
			default:
				b.WriteByte('\\')
				b.WriteByte(format[i])
			}
			continue
		}
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		// Flags and width.
		j := fmtSpecEnd(format, i+1, "-+ #0")
		if j >= len(format) {
			b.WriteString(format[i:])
			break
		}
		spec := format[i+1 : j]
		d := format[j]
		i = j
		var s string
		num := false
		switch d {
		case '%':
			b.WriteByte('%')
			continue
		case 'p':
			s = it.P()
		case 'f':
			s = it.name
			if it.depth > 0 {
				s = path.Base(it.A())
			}
		case 'h':
			s = "."
			if k := strings.LastIndexByte(strings.TrimRight(it.P(), "/"), '/'); k > 0 {
				s = it.P()[:k]
			} else if k == 0 {
				s = "/"
			}
			if it.depth == 0 && !strings.Contains(strings.TrimRight(it.P(), "/"), "/") {
				s = "."
			}
		case 'P':
			s = strings.TrimPrefix(strings.TrimPrefix(it.P(), it.start), "/")
		case 'H':
			s = it.start
		case 'd':
			s, num = strconv.Itoa(it.depth), true
		case 's':
			s, num = strconv.FormatInt(it.attr.Size, 10), true
		case 'k':
			s, num = strconv.FormatInt((fuBlocks(it.attr)+1)/2, 10), true
		case 'b':
			s, num = strconv.FormatInt(fuBlocks(it.attr), 10), true
		case 'm':
			s = strconv.FormatUint(uint64(it.attr.Mode&0o7777), 8)
		case 'M':
			s = vfs.ModeString(it.attr.Mode)
		case 'y', 'Y':
			m := it.lattr.Mode
			if d == 'Y' || f.follow == 'L' {
				m = it.attr.Mode
				if d == 'Y' && it.lattr.IsSymlink() {
					if fi, err := f.env.FS.Stat(f.env.Ctx, it.A()); err == nil {
						m = fi.Attr().Mode
					} else {
						m = 0
						s = "N"
					}
				}
			}
			if s == "" {
				switch m & vfs.S_IFMT {
				case vfs.S_IFDIR:
					s = "d"
				case vfs.S_IFLNK:
					s = "l"
				default:
					s = "f"
				}
			}
		case 'u':
			s = fuUserName(it.attr.Uid)
		case 'g':
			s = fuGroupName(it.attr.Gid)
		case 'U':
			s, num = strconv.FormatUint(uint64(it.attr.Uid), 10), true
		case 'G':
			s, num = strconv.FormatUint(uint64(it.attr.Gid), 10), true
		case 'i':
			s, num = strconv.FormatUint(it.attr.Ino, 10), true
		case 'n':
			s, num = strconv.FormatUint(uint64(it.attr.Nlink), 10), true
		case 'l':
			if it.lattr.IsSymlink() {
				s, _ = f.env.FS.Readlink(f.env.Ctx, it.A())
			}
		case 'D':
			s = "0"
		case 'F':
			s = "desk"
		case 'S':
			s = "1"
			if it.attr.Blocks*512 < it.attr.Size && it.attr.Size > 0 {
				s = strconv.FormatFloat(float64(it.attr.Blocks*512)/float64(it.attr.Size), 'g', -1, 64)
			}
		case 't', 'a', 'c':
			s = fdTimeOf(it, d).Format(fdTimeLayout)
		case 'T', 'A', 'C':
			if i+1 >= len(format) {
				b.WriteString(format[i-len(spec)-1:])
				continue
			}
			i++
			s = fdTimeFormat(fdTimeOf(it, map[byte]byte{'T': 't', 'A': 'a', 'C': 'c'}[d]), format[i])
		default:
			// GNU warns about unknown directives; print them as they are.
			b.WriteString("%" + spec + string(d))
			continue
		}
		if spec != "" {
			if num {
				n, _ := strconv.ParseInt(s, 10, 64)
				s = fmt.Sprintf("%"+spec+"d", n)
			} else {
				s = fmt.Sprintf("%"+strings.ReplaceAll(spec, "0", "")+"s", s)
			}
		}
		b.WriteString(s)
	}
	return b.String()
}

func fdTimeOf(it *fdItem, which byte) time.Time {
	switch which {
	case 'a':
		return it.attr.Atime.UTC()
	case 'c':
		return it.attr.Ctime.UTC()
	}
	return it.attr.Mtime.UTC()
}

// fdTimeFormat renders one strftime-like %Tk field of -printf.
func fdTimeFormat(t time.Time, k byte) string {
	switch k {
	case '@':
		return fmt.Sprintf("%d.%09d0", t.Unix(), t.Nanosecond())
	case 'Y':
		return t.Format("2006")
	case 'm':
		return t.Format("01")
	case 'd':
		return t.Format("02")
	case 'H':
		return t.Format("15")
	case 'M':
		return t.Format("04")
	case 'S':
		return fmt.Sprintf("%02d.%09d0", t.Second(), t.Nanosecond())
	case 'T', 'X':
		return fmt.Sprintf("%s.%09d0", t.Format("15:04:05"), t.Nanosecond())
	case 'F':
		return t.Format("2006-01-02")
	case 'D', 'x':
		return t.Format("01/02/06")
	case '+':
		return fmt.Sprintf("%s+%s.%09d0", t.Format("2006-01-02"), t.Format("15:04:05"), t.Nanosecond())
	case 'k':
		return fmt.Sprintf("%2d", t.Hour())
	case 'I':
		return t.Format("03")
	case 'l':
		return fmt.Sprintf("%2d", (t.Hour()+11)%12+1)
	case 'p':
		return t.Format("PM")
	case 'r':
		return t.Format("03:04:05 PM")
	case 'a':
		return t.Format("Mon")
	case 'A':
		return t.Format("Monday")
	case 'b', 'h':
		return t.Format("Jan")
	case 'B':
		return t.Format("January")
	case 'y':
		return t.Format("06")
	case 'e':
		return fmt.Sprintf("%2d", t.Day())
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay())
	case 's':
		return strconv.FormatInt(t.Unix(), 10)
	case 'Z':
		return "UTC"
	case 'z':
		return "+0000"
	case 'c':
		return t.Format("Mon Jan _2 15:04:05 2006")
	case 'u':
		wd := int(t.Weekday())
		if wd == 0 {
			wd = 7
		}
		return strconv.Itoa(wd)
	case 'w':
		return strconv.Itoa(int(t.Weekday()))
	}
	return "%" + string(k)
}

// ls renders one -ls line: inode, 1K blocks, mode, links, owner, group,
// size, mtime and path (with "-> target" for a symlink).
func (f *finder) ls(it *fdItem) string {
	a := it.attr
	tm := fuLsTime(a.Mtime.UTC(), f.now.UTC())
	s := fmt.Sprintf("%9d %6d %s %3d %-8s %-8s %8d %s %s", a.Ino, (fuBlocks(a)+1)/2, vfs.ModeString(a.Mode), a.Nlink,
		fuUserName(a.Uid), fuGroupName(a.Gid), a.Size, tm, it.P())
	if a.IsSymlink() {
		t, _ := f.env.FS.Readlink(f.env.Ctx, it.A())
		s += " -> " + t
	}
	return s + "\n"
}

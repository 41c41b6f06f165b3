package cmds

import (
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() {
	Register("test", Test)
	Register("[", Test)
}

// Test is GNU coreutils' standalone test and [ (/usr/bin/test, /usr/bin/[),
// for commands run through Env.Exec (find -exec test -f {} \;, xargs test,
// env [ ...): the interpreter has its own builtins for scripts. It parses as
// GNU does (the POSIX rules for 0 to 4 arguments, then ! -a -o and
// parentheses with -a binding tighter), and supports the string tests (-z
// -n, = == !=, a string alone; like GNU 9.1 and unlike bash's builtin, no < and >), integer tests (-eq -ne -lt -le -gt -ge,
// -l STRING as an operand), file tests through Env.FS (-e -a -f -d -L -h -s
// -r -w -x -b -c -p -S -g -u -k -O -G -N -t, -nt -ot -ef). Permissions are
// as root sees them: -r and -w are true for any existing file, -x when some
// x bit is set or the file is a directory. Exit status 0 true, 1 false, 2
// on a syntax error ("test: missing argument after ‘-f’"); [ requires the
// closing ] ("[: missing ‘]’").
func Test(env *Env, args []string) int {
	name := args[0]
	argv := args
	if name == "[" {
		if len(argv) < 2 || argv[len(argv)-1] != "]" {
			env.Errorf(name, "missing %s", quote(env, "]"))
			return 2
		}
		argv = argv[:len(argv)-1]
	}
	t := &tester{env: env, name: name, argv: argv, pos: 1}
	status := 2
	func() {
		defer func() {
			if r := recover(); r != nil {
				if e, ok := r.(testSyntaxError); ok {
					env.Errorf(name, "%s", string(e))
					return
				}
				panic(r)
			}
		}()
		if len(argv) < 2 {
			status = 1
			return
		}
		v := t.posix(len(argv) - 1)
		if t.pos != len(argv) {
			t.fail("extra argument %s", quote(t.env, argv[t.pos]))
		}
		status = 1
		if v {
			status = 0
		}
	}()
	return status
}

type testSyntaxError string

// tester is the state of one test evaluation, as GNU's test.c keeps it.
type tester struct {
	env  *Env
	name string
	argv []string
	pos  int
}

func (t *tester) fail(format string, a ...any) {
	panic(testSyntaxError(fmt.Sprintf(format, a...)))
}

func (t *tester) beyond() {
	t.fail("missing argument after %s", quote(t.env, t.argv[len(t.argv)-1]))
}

func (t *tester) advance(f bool) {
	t.pos++
	if f && t.pos >= len(t.argv) {
		t.beyond()
	}
}

func (t *tester) arg(i int) string {
	if t.pos+i < len(t.argv) {
		return t.argv[t.pos+i]
	}
	return ""
}

func testBinop(s string) bool {
	switch s {
	case "=", "!=", "==", "-nt", "-ot", "-ef", "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		return true
	}
	return false
}

func testUnop(s string) bool {
	return len(s) == 2 && s[0] == '-' && strings.IndexByte("abcdefghknoprstuwxzGLOSN", s[1]) >= 0
}

func isDashX(s string) bool { return len(s) == 2 && s[0] == '-' }

func (t *tester) posix(n int) bool {
	switch n {
	case 1:
		return t.one()
	case 2:
		return t.two()
	case 3:
		return t.three()
	case 4:
		if t.arg(0) == "!" {
			t.advance(true)
			return !t.three()
		}
		if t.arg(0) == "(" && t.arg(3) == ")" {
			t.advance(false)
			v := t.two()
			t.advance(false)
			return v
		}
	}
	return t.expr()
}

func (t *tester) one() bool {
	v := t.arg(0) != ""
	t.advance(false)
	return v
}

func (t *tester) two() bool {
	a := t.arg(0)
	switch {
	case a == "!":
		t.advance(false)
		return !t.one()
	case isDashX(a):
		if testUnop(a) {
			return t.unary()
		}
		t.fail("%s: unary operator expected", quote(t.env, a))
	default:
		t.beyond()
	}
	return false
}

func (t *tester) three() bool {
	switch {
	case testBinop(t.arg(1)):
		return t.binary(false)
	case t.arg(0) == "!":
		t.advance(true)
		return !t.two()
	case t.arg(0) == "(" && t.arg(2) == ")":
		t.advance(false)
		v := t.one()
		t.advance(false)
		return v
	case t.arg(1) == "-a" || t.arg(1) == "-o":
		return t.expr()
	}
	t.fail("%s: binary operator expected", quote(t.env, t.arg(1)))
	return false
}

func (t *tester) expr() bool {
	if t.pos >= len(t.argv) {
		t.beyond()
	}
	return t.or()
}

func (t *tester) or() bool {
	v := false
	for {
		if t.and() {
			v = true
		}
		if !(t.pos < len(t.argv) && t.argv[t.pos] == "-o") {
			return v
		}
		t.advance(false)
	}
}

func (t *tester) and() bool {
	v := true
	for {
		if !t.term() {
			v = false
		}
		if !(t.pos < len(t.argv) && t.argv[t.pos] == "-a") {
			return v
		}
		t.advance(false)
	}
}

func (t *tester) term() bool {
	if t.env.Canceled() {
		t.fail("interrupted")
	}
	if t.pos >= len(t.argv) {
		t.beyond()
	}
	invert := false
	for t.pos < len(t.argv) && t.argv[t.pos] == "!" {
		t.advance(true)
		invert = !invert
	}
	var v bool
	a := t.argv[t.pos]
	left := len(t.argv) - t.pos
	switch {
	case a == "(":
		t.advance(true)
		n := 1
		for ; t.pos+n < len(t.argv) && t.argv[t.pos+n] != ")"; n++ {
			if n == 4 {
				n = len(t.argv) - t.pos
				break
			}
		}
		v = t.posix(n)
		if t.pos >= len(t.argv) {
			t.fail("%s expected", quote(t.env, ")"))
		} else if t.argv[t.pos] != ")" {
			t.fail("%s expected, found %s", quote(t.env, ")"), quote(t.env, t.argv[t.pos]))
		}
		t.advance(false)
	case left >= 4 && a == "-l" && testBinop(t.arg(2)):
		v = t.binary(true)
	case left >= 3 && testBinop(t.arg(1)):
		v = t.binary(false)
	case isDashX(a):
		if !testUnop(a) {
			t.fail("%s: unary operator expected", quote(t.env, a))
		}
		v = t.unary()
	default:
		v = a != ""
		t.advance(false)
	}
	return v != invert
}

// testInt checks an integer operand as GNU's find_int does.
func (t *tester) testInt(s string) *big.Int {
	p := strings.TrimLeft(s, " \t")
	q := p
	if strings.HasPrefix(q, "-") || strings.HasPrefix(q, "+") {
		q = q[1:]
	}
	i := 0
	for i < len(q) && q[i] >= '0' && q[i] <= '9' {
		i++
	}
	if i == 0 || strings.TrimLeft(q[i:], " \t") != "" {
		t.fail("invalid integer %s", quote(t.env, s))
	}
	n, _ := new(big.Int).SetString(strings.TrimPrefix(strings.TrimRight(p, " \t"), "+"), 10)
	return n
}

func (t *tester) binary(l bool) bool {
	if l {
		t.advance(false)
	}
	op := t.argv[t.pos+1]
	left := t.argv[t.pos]
	right := t.argv[t.pos+2]
	rl := false
	if t.pos+3 < len(t.argv) && t.argv[t.pos+2] == "-l" && strings.HasPrefix(op, "-") && len(op) == 3 && op != "-nt" && op != "-ot" && op != "-ef" {
		rl = true
		right = t.argv[t.pos+3]
	}
	t.pos += 3
	if rl {
		t.pos++
	}
	switch op {
	case "=", "==":
		return left == right
	case "!=":
		return left != right
	case "-nt", "-ot", "-ef":
		if l || rl {
			t.fail("%s does not accept -l", op)
		}
		a, errA := t.env.FS.Stat(t.env.Ctx, t.env.Abs(left))
		b, errB := t.env.FS.Stat(t.env.Ctx, t.env.Abs(right))
		switch op {
		case "-nt":
			return errA == nil && (errB != nil || a.ModTime().After(b.ModTime()))
		case "-ot":
			return errB == nil && (errA != nil || a.ModTime().Before(b.ModTime()))
		default:
			return errA == nil && errB == nil && a.Attr().Ino == b.Attr().Ino
		}
	}
	var x, y *big.Int
	if l {
		x = big.NewInt(int64(utf8.RuneCountInString(left)))
	} else {
		x = t.testInt(left)
	}
	if rl {
		y = big.NewInt(int64(utf8.RuneCountInString(right)))
	} else {
		y = t.testInt(right)
	}
	c := x.Cmp(y)
	switch op {
	case "-eq":
		return c == 0
	case "-ne":
		return c != 0
	case "-lt":
		return c < 0
	case "-le":
		return c <= 0
	case "-gt":
		return c > 0
	default:
		return c >= 0
	}
}

func (t *tester) unary() bool {
	op := t.argv[t.pos]
	t.advance(true)
	a := t.argv[t.pos]
	t.pos++
	switch op[1] {
	case 'z':
		return a == ""
	case 'n':
		return a != ""
	case 't':
		t.testInt(a)
		return false // no terminal in the shell backend
	case 'o':
		t.fail("%s: unary operator expected", quote(t.env, op))
	}
	var fi *vfs.FileInfo
	var err error
	if op == "-L" || op == "-h" {
		fi, err = t.env.FS.Lstat(t.env.Ctx, t.env.Abs(a))
	} else {
		fi, err = t.env.FS.Stat(t.env.Ctx, t.env.Abs(a))
	}
	if a == "" {
		err = errors.New("empty")
	}
	if err != nil {
		return false
	}
	m := fi.Mode()
	switch op[1] {
	case 'e', 'a', 'r', 'w':
		return true
	case 'f':
		return m.IsRegular()
	case 'd':
		return m.IsDir()
	case 'L', 'h':
		return m&fs.ModeSymlink != 0
	case 's':
		return fi.Size() > 0
	case 'x':
		return m.IsDir() || m.Perm()&0o111 != 0
	case 'b':
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0
	case 'c':
		return m&fs.ModeCharDevice != 0
	case 'p':
		return m&fs.ModeNamedPipe != 0
	case 'S':
		return m&fs.ModeSocket != 0
	case 'g':
		return m&fs.ModeSetgid != 0
	case 'u':
		return m&fs.ModeSetuid != 0
	case 'k':
		return m&fs.ModeSticky != 0
	case 'O':
		return fi.Attr().Uid == 0
	case 'G':
		return fi.Attr().Gid == 0
	case 'N':
		return fi.ModTime().After(fi.Attr().Atime)
	}
	return false
}

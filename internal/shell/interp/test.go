package interp

import (
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// testExpr evaluates [[ ... ]].
func (r *Runner) testExpr(x syntax.TestExpr) (bool, error) {
	switch x := x.(type) {
	case *syntax.Word:
		s, err := r.literal(x)
		return s != "", err
	case *syntax.ParenTest:
		return r.testExpr(x.X)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsNot {
			ok, err := r.testExpr(x.X)
			return !ok, err
		}
		w, _ := x.X.(*syntax.Word)
		s, err := r.literal(w)
		if err != nil {
			return false, err
		}
		return r.unaryTest(x.Op.String(), s)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.AndTest:
			ok, err := r.testExpr(x.X)
			if err != nil || !ok {
				return false, err
			}
			return r.testExpr(x.Y)
		case syntax.OrTest:
			ok, err := r.testExpr(x.X)
			if err != nil || ok {
				return ok, err
			}
			return r.testExpr(x.Y)
		}
		lw, _ := x.X.(*syntax.Word)
		rw, _ := x.Y.(*syntax.Word)
		l, err := r.literal(lw)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsMatch, syntax.TsMatchShort, syntax.TsNoMatch:
			pat, err := r.pattern(rw)
			if err != nil {
				return false, err
			}
			m := r.compile(pat, false)
			return m.match(l) == (x.Op != syntax.TsNoMatch), nil
		case syntax.TsReMatch:
			re, err := r.regexWord(rw)
			if err != nil {
				return false, err
			}
			return r.reMatch(l, re)
		}
		rs, err := r.literal(rw)
		if err != nil {
			return false, err
		}
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
			a, err := r.arithString(l)
			if err != nil {
				return false, err
			}
			b, err := r.arithString(rs)
			if err != nil {
				return false, err
			}
			return intCmp(x.Op.String(), a, b), nil
		}
		return r.binaryTest(x.Op.String(), l, rs)
	}
	return false, fmt.Errorf("unsupported test expression")
}

func intCmp(op string, a, b int64) bool {
	switch op {
	case "-eq":
		return a == b
	case "-ne":
		return a != b
	case "-lt":
		return a < b
	case "-le":
		return a <= b
	case "-gt":
		return a > b
	case "-ge":
		return a >= b
	}
	return false
}

// regexWord expands the right side of =~: quoted parts match literally.
func (r *Runner) regexWord(w *syntax.Word) (string, error) {
	if w == nil {
		return "", nil
	}
	segs, err := r.segs(w.Parts, false)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range segs {
		if s.quoted {
			b.WriteString(regexp.QuoteMeta(s.text))
		} else {
			b.WriteString(s.text)
		}
	}
	return b.String(), nil
}

// reMatch is =~ with POSIX extended regular expressions (Go's leftmost-
// longest matcher), setting BASH_REMATCH.
func (r *Runner) reMatch(s, re string) (bool, error) {
	if len(re) > 1<<20 {
		return false, errArith{msg: "regular expression too large"}
	}
	if r.shopts["nocasematch"] {
		re = "(?i)" + re
	}
	cre, err := regexp.CompilePOSIX(translateERE(re))
	if err != nil {
		// bash: an invalid regex is status 2
		return false, errBadRegex{}
	}
	m := cre.FindStringSubmatchIndex(s)
	v := &Var{kind: kIndexed, set: true, idx: map[int]string{}}
	if m == nil {
		r.scopes[0].vars["BASH_REMATCH"] = v
		return false, nil
	}
	for i := 0; i*2 < len(m); i++ {
		if m[2*i] >= 0 {
			v.idx[i] = s[m[2*i]:m[2*i+1]]
		} else {
			v.idx[i] = ""
		}
	}
	r.scopes[0].vars["BASH_REMATCH"] = v
	return true, nil
}

type errBadRegex struct{}

func (errBadRegex) Error() string { return "invalid regular expression" }

// translateERE turns POSIX classes Go lacks into ones it has; \< \> are
// word boundaries.
func translateERE(re string) string {
	re = strings.ReplaceAll(re, `\<`, `\b`)
	re = strings.ReplaceAll(re, `\>`, `\b`)
	return re
}

func (r *Runner) unaryTest(op, s string) (bool, error) {
	switch op {
	case "-z":
		return s == "", nil
	case "-n":
		return s != "", nil
	case "-v":
		name := s
		if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
			name = s[:i]
			v := r.lookup(name)
			if v == nil {
				return false, nil
			}
			sub := s[i+1 : len(s)-1]
			if sub == "@" || sub == "*" {
				return v.count() > 0, nil
			}
			switch v.kind {
			case kAssoc:
				_, ok := v.assoc[sub]
				return ok, nil
			case kIndexed:
				n, err := r.arithString(sub)
				if err != nil {
					return false, err
				}
				if n < 0 {
					n += int64(v.maxIndex() + 1)
				}
				_, ok := v.idx[int(n)]
				return ok, nil
			}
			return sub == "0" && v.set, nil
		}
		_, ok := r.getVar(name)
		if v := r.lookup(name); v != nil && v.kind != kScalar {
			return v.count() > 0 && (v.kind == kAssoc && v.assoc["0"] != "" || v.kind == kIndexed && hasKey0(v)), nil
		}
		return ok, nil
	case "-R":
		v := r.lookupRaw(s)
		return v != nil && v.ref && v.set, nil
	case "-o":
		return r.opts[s], nil
	case "-t":
		return false, nil
	}
	if s == "" {
		return false, nil
	}
	follow := op != "-L" && op != "-h"
	fi, err := r.statPath(s, follow)
	if err != nil {
		return false, nil
	}
	m := fi.Mode()
	switch op {
	case "-e", "-a":
		return true, nil
	case "-f":
		return m.IsRegular(), nil
	case "-d":
		return m.IsDir(), nil
	case "-L", "-h":
		return m&fs.ModeSymlink != 0, nil
	case "-p":
		return m&fs.ModeNamedPipe != 0, nil
	case "-S":
		return m&fs.ModeSocket != 0, nil
	case "-b":
		return m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0, nil
	case "-c":
		return m&fs.ModeCharDevice != 0, nil
	case "-s":
		return fi.Size() > 0, nil
	case "-r":
		return m.Perm()&0o400 != 0, nil
	case "-w":
		return m.Perm()&0o200 != 0, nil
	case "-x":
		return m.Perm()&0o100 != 0, nil
	case "-u":
		return m&fs.ModeSetuid != 0, nil
	case "-g":
		return m&fs.ModeSetgid != 0, nil
	case "-k":
		return m&fs.ModeSticky != 0, nil
	case "-O", "-G":
		// every file of the workspace belongs to the script's user
		return true, nil
	case "-N":
		return false, nil
	}
	return false, nil
}

func hasKey0(v *Var) bool {
	_, ok := v.idx[0]
	return ok
}

func (r *Runner) binaryTest(op, a, b string) (bool, error) {
	switch op {
	case "=", "==":
		return a == b, nil
	case "!=":
		return a != b, nil
	case "<":
		return a < b, nil
	case ">":
		return a > b, nil
	case "-nt", "-ot":
		fa, ea := r.statPath(a, true)
		fb, eb := r.statPath(b, true)
		if op == "-nt" {
			return ea == nil && (eb != nil || fa.ModTime().After(fb.ModTime())), nil
		}
		return eb == nil && (ea != nil || fa.ModTime().Before(fb.ModTime())), nil
	case "-ef":
		fa, ea := r.statPath(a, true)
		fb, eb := r.statPath(b, true)
		if ea != nil || eb != nil {
			return false, nil
		}
		return r.abs(a) == r.abs(b) || fs.FileInfo(fa).Sys() != nil && fa.Sys() == fb.Sys(), nil
	}
	return false, fmt.Errorf("%s: binary operator expected", op)
}

var unaryOps = map[string]bool{"-a": true, "-b": true, "-c": true, "-d": true, "-e": true, "-f": true, "-g": true, "-h": true, "-k": true, "-p": true, "-r": true, "-s": true, "-t": true, "-u": true, "-w": true, "-x": true, "-G": true, "-L": true, "-N": true, "-O": true, "-S": true, "-z": true, "-n": true, "-o": true, "-v": true, "-R": true}
var binaryOps = map[string]bool{"=": true, "==": true, "!=": true, "<": true, ">": true, "-eq": true, "-ne": true, "-lt": true, "-le": true, "-gt": true, "-ge": true, "-nt": true, "-ot": true, "-ef": true}

// biTest is test and [.
func biTest(r *Runner, args []string) error {
	name := args[0]
	args = args[1:]
	if name == "[" {
		if len(args) == 0 || args[len(args)-1] != "]" {
			return r.usageErr("[", "missing `]'", 2)
		}
		args = args[:len(args)-1]
	}
	t := &tester{r: r, args: args, name: name}
	ok, err := t.expr(len(args))
	if err == nil && t.pos < len(args) {
		err = fmt.Errorf("%s: unexpected argument", args[t.pos])
		if t.pos > 0 {
			err = fmt.Errorf("too many arguments")
		}
	}
	if err != nil {
		if fe, ok := err.(fatalErr); ok {
			return fe
		}
		r.errf("%s: %v", name, err)
		r.status = 2
		return nil
	}
	r.status = b2i(!ok)
	return nil
}

type tester struct {
	r    *Runner
	args []string
	pos  int
	name string
}

// expr evaluates the next n arguments (POSIX rules by count for n <= 4).
func (t *tester) expr(n int) (bool, error) {
	a := t.args[t.pos:]
	switch n {
	case 0:
		return false, nil
	case 1:
		t.pos++
		return a[0] != "", nil
	case 2:
		if a[0] == "!" {
			t.pos += 2
			return a[1] == "", nil
		}
		if unaryOps[a[0]] {
			t.pos += 2
			return t.r.unaryTest(a[0], a[1])
		}
		return false, fmt.Errorf("%s: unary operator expected", a[0])
	case 3:
		if binaryOps[a[1]] {
			t.pos += 3
			return t.binary(a[0], a[1], a[2])
		}
		if a[0] == "!" {
			t.pos++
			ok, err := t.expr(2)
			return !ok, err
		}
		if a[0] == "(" && a[2] == ")" {
			t.pos += 3
			return a[1] != "", nil
		}
		if a[1] == "-a" || a[1] == "-o" {
			break
		}
		return false, fmt.Errorf("%s: binary operator expected", a[1])
	case 4:
		if a[0] == "!" {
			t.pos++
			ok, err := t.expr(3)
			return !ok, err
		}
		if a[0] == "(" && a[3] == ")" {
			t.pos++
			ok, err := t.expr(2)
			t.pos++
			return ok, err
		}
	}
	return t.or()
}

func (t *tester) or() (bool, error) {
	ok, err := t.and()
	for err == nil && t.pos < len(t.args) && t.args[t.pos] == "-o" {
		t.pos++
		var b bool
		b, err = t.and()
		ok = ok || b
	}
	return ok, err
}

func (t *tester) and() (bool, error) {
	ok, err := t.term()
	for err == nil && t.pos < len(t.args) && t.args[t.pos] == "-a" {
		t.pos++
		var b bool
		b, err = t.term()
		ok = ok && b
	}
	return ok, err
}

func (t *tester) term() (bool, error) {
	if t.pos >= len(t.args) {
		return false, fmt.Errorf("argument expected")
	}
	a := t.args[t.pos]
	if a == "!" {
		t.pos++
		ok, err := t.term()
		return !ok, err
	}
	if a == "(" {
		t.pos++
		ok, err := t.or()
		if err != nil {
			return false, err
		}
		if t.pos >= len(t.args) || t.args[t.pos] != ")" {
			return false, fmt.Errorf("`)' expected")
		}
		t.pos++
		return ok, nil
	}
	if t.pos+2 < len(t.args)+0 && binaryOps[t.args[t.pos+1]] {
		t.pos += 3
		return t.binary(a, t.args[t.pos-2], t.args[t.pos-1])
	}
	if unaryOps[a] && t.pos+1 < len(t.args) {
		t.pos += 2
		return t.r.unaryTest(a, t.args[t.pos-1])
	}
	t.pos++
	return a != "", nil
}

func (t *tester) binary(a, op, b string) (bool, error) {
	switch op {
	case "-eq", "-ne", "-lt", "-le", "-gt", "-ge":
		x, err := testInt(a)
		if err != nil {
			return false, err
		}
		y, err := testInt(b)
		if err != nil {
			return false, err
		}
		return intCmp(op, x, y), nil
	}
	return t.r.binaryTest(op, a, b)
}

func testInt(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: integer expression expected", s)
	}
	return n, nil
}

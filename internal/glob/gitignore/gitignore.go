package gitignore

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// MaxRules bounds the rules in force at once (all the ignore files from the
// root of a walk down to one directory): each entry a walk visits is checked
// against every one of them.
const MaxRules = 4096

// MaxLineBytes bounds one pattern line; a longer line is left out, with an
// error wrapping ErrLimit.
const MaxLineBytes = 4096

// ErrLimit is wrapped by the error of an ignore file past MaxRules or
// MaxLineBytes.
var ErrLimit = errors.New("ignore file too large")

// Rule is one pattern of an ignore file.
type Rule struct {
	// dir is the directory of the ignore file: an absolute, clean path.
	dir string
	re  *regexp.Regexp
	// neg: "!pattern", a match re-includes. dirOnly: "pattern/".
	// anchored: the pattern has a "/" before its end, so it is matched
	// against the path relative to dir; otherwise against the name.
	neg, dirOnly, anchored bool
}

// Rules is the rules in force in a directory, in the order they were read:
// the ignore files of the directories above first. The last rule that
// matches decides.
type Rules []Rule

// Add parses the content of an ignore file found in directory dir (an
// absolute, clean, slash-separated path) and returns the rules with its own
// appended, in a new slice (r itself is not changed, so a walk can keep one
// Rules per level). Lines past MaxLineBytes and rules past MaxRules are left
// out, and the error (wrapping ErrLimit) says so; a malformed pattern (a
// trailing "\") matches nothing, as in git.
func (r Rules) Add(data []byte, dir string) (Rules, error) {
	out := r[:len(r):len(r)]
	var err error
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) > MaxLineBytes {
			err = fmt.Errorf("%w: a line longer than %d bytes left out", ErrLimit, MaxLineBytes)
			continue
		}
		rule, ok := parse(string(bytes.TrimSuffix(line, []byte("\r"))), dir)
		if !ok {
			continue
		}
		if len(out) == MaxRules {
			return out, fmt.Errorf("%w: more than %d rules", ErrLimit, MaxRules)
		}
		out = append(out, rule)
	}
	return out, err
}

// parse parses one line; false: a blank line or a comment.
func parse(l, dir string) (Rule, bool) {
	if l == "" || l[0] == '#' {
		return Rule{}, false
	}
	r := Rule{dir: dir}
	if l[0] == '!' {
		r.neg, l = true, l[1:]
	}
	// Trailing spaces go unless quoted with a backslash.
	for strings.HasSuffix(l, " ") && !strings.HasSuffix(l, `\ `) {
		l = l[:len(l)-1]
	}
	if strings.HasSuffix(l, "/") {
		r.dirOnly, l = true, strings.TrimSuffix(l, "/")
	}
	if l == "" {
		return Rule{}, false
	}
	r.anchored = strings.Contains(l, "/")
	l = strings.TrimPrefix(l, "/")
	if expr, err := pattern.Regexp(l, pattern.Filenames|pattern.EntireString|pattern.GlobLeadingDot); err == nil {
		r.re, _ = regexp.Compile(expr) // nil (matches nothing) if malformed
	}
	return r, true
}

// Ignored reports whether the entry at p (an absolute, clean path; isDir
// for a directory) is ignored by the rules. It looks at the entry alone: a
// walk that does not descend into ignored directories gets git's rule that
// nothing inside an ignored directory can be re-included.
func (r Rules) Ignored(p string, isDir bool) bool {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i].match(p, isDir) {
			return !r[i].neg
		}
	}
	return false
}

func (r *Rule) match(p string, isDir bool) bool {
	if r.re == nil || r.dirOnly && !isDir {
		return false
	}
	rel, ok := strings.CutPrefix(p, r.dir)
	if !ok {
		return false
	}
	if r.dir != "/" {
		if rel, ok = strings.CutPrefix(rel, "/"); !ok {
			return false
		}
	} else if rel == "" {
		return false
	}
	if !r.anchored {
		rel = path.Base(rel)
	}
	return r.re.MatchString(rel)
}

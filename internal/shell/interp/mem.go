package interp

import (
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// The memory budget (Config.Mem). A runner charges what it makes, before
// it makes it where the size is known first:
//   - variables, as their size changes (charge); a subshell's charges are
//     returned when it ends, and a subshell never returns what its parent
//     charged (unsetting an inherited variable frees nothing: the parent
//     still holds it);
//   - what a statement's expansions build (hold): strings from
//     concatenation, replacement, case changes, joins and the @ operators,
//     command substitution output, the argument and segment lists; each
//     builder reserves its next capacity before growing (sbuf), so a word
//     past MaxStringBytes or the budget stops before it is built. Holds
//     return when the statement that made them ends;
//   - a subshell's copies of the arrays and maps it inherits (sub).

// Per-item overheads the budget counts: a string header in a list, an
// expansion segment, an element of an indexed or associative array (its
// map entry at the map's load, and the tables a growth copies: Go's maps
// allocate about 70 bytes over an entry's life).
const (
	costStr  = 16
	costSeg  = 48
	costElem = 96
)

// charge counts n bytes of variables against the memory budget and
// MaxVarBytes (n < 0 returns them, never more than this runner charged).
func (r *Runner) charge(n int64) error {
	if n < 0 && r.ownVars+n < 0 {
		n = -r.ownVars
	}
	if n == 0 {
		return nil
	}
	total := r.sh.vars.Add(n)
	if m := r.cfg.Limits.MaxVarBytes; m > 0 && n > 0 && total > m {
		r.sh.vars.Add(-n)
		return r.limit("MaxVarBytes", m)
	}
	if err := r.grow(n); err != nil {
		r.sh.vars.Add(-n)
		return err
	}
	r.ownVars += n
	return nil
}

// grow charges n bytes to Config.Mem as this runner's (n < 0 returns
// them, never more than it charged).
func (r *Runner) grow(n int64) error {
	if r.cfg.Mem == nil || n == 0 {
		return nil
	}
	if n < 0 && r.own+n < 0 {
		n = -r.own
		if n == 0 {
			return nil
		}
	}
	if err := r.cfg.Mem.Grow(n); err != nil {
		return err
	}
	r.own += n
	return nil
}

// hold charges n bytes the running statement's expansions make; they
// return when the statement ends (release).
func (r *Runner) hold(n int) error {
	if r.cfg.Mem == nil || n <= 0 {
		return nil
	}
	if err := r.cfg.Mem.Grow(int64(n)); err != nil {
		return fatalErr{err}
	}
	r.own += int64(n)
	r.held += int64(n)
	return nil
}

// release returns the holds made since mark (r.held at the statement's
// start).
func (r *Runner) release(mark int64) {
	if n := r.held - mark; n > 0 && r.cfg.Mem != nil {
		r.cfg.Mem.Grow(-n)
		r.own -= n
		r.held = mark
	}
}

// releaseAll returns everything this runner charged: a subshell's end.
func (r *Runner) releaseAll() {
	if r.own > 0 && r.cfg.Mem != nil {
		r.cfg.Mem.Grow(-r.own)
	}
	r.sh.vars.Add(-r.ownVars)
	r.own, r.held, r.ownVars = 0, 0, 0
}

// room checks that a string of n bytes may be built (MaxStringBytes) and
// holds it.
func (r *Runner) room(n int) error {
	if err := r.checkLen(n); err != nil {
		return err
	}
	return r.hold(n)
}

// sbuf builds a string bounded by MaxStringBytes, holding each capacity
// it grows to before growing: the first write that would pass a limit
// fails and later ones do nothing (err says why).
type sbuf struct {
	b   strings.Builder
	r   *Runner
	err error
}

// grow makes room for n more bytes, or records the limit.
func (s *sbuf) grow(n int) bool {
	if s.err != nil {
		return false
	}
	need := s.b.Len() + n
	if need <= s.b.Cap() {
		return true
	}
	if err := s.r.checkLen(need); err != nil {
		s.err = err
		return false
	}
	// strings.Builder grows to twice its capacity plus n.
	if err := s.r.hold(2*s.b.Cap() + n); err != nil {
		s.err = err
		return false
	}
	s.b.Grow(n)
	return true
}

func (s *sbuf) WriteString(t string) {
	if s.grow(len(t)) {
		s.b.WriteString(t)
	}
}

func (s *sbuf) WriteByte(c byte) error {
	if s.grow(1) {
		s.b.WriteByte(c)
	}
	return nil
}

func (s *sbuf) WriteRune(c rune) {
	if s.grow(utf8.RuneLen(c)) {
		s.b.WriteRune(c)
	}
}

func (s *sbuf) Len() int { return s.b.Len() }

// String returns the string built, or the limit's error.
func (s *sbuf) String() (string, error) { return s.b.String(), s.err }

// newBuf returns a builder sized for n bytes (a known or likely size).
func (r *Runner) newBuf(n int) *sbuf {
	s := &sbuf{r: r}
	if n > 0 {
		s.grow(n)
	}
	return s
}

// concat joins strings into one, checked and held before it is built;
// one string is returned as it is.
func (r *Runner) concat(parts ...string) (string, error) {
	if len(parts) == 1 {
		return parts[0], nil
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if err := r.room(n); err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String(), nil
}

// join is strings.Join, checked and held before it is built.
func (r *Runner) join(vals []string, sep string) (string, error) {
	n := len(sep) * max(len(vals)-1, 0)
	for _, v := range vals {
		n += len(v)
	}
	if err := r.room(n); err != nil {
		return "", err
	}
	return strings.Join(vals, sep), nil
}

// costParse is the bytes a syntax tree holds per byte of source text.
const costParse = 200

// chargeFunc charges a function declared by eval'd or sourced text for its
// syntax tree, which outlives the text (the script's own functions are
// part of the script's tree, charged with it); declared again, the old
// body's charge is returned.
func (r *Runner) chargeFunc(name string, body *syntax.Stmt) error {
	cost := int64(0)
	if r.evalDepth > 0 {
		cost = (int64(body.End().Offset()-body.Pos().Offset()) + int64(len(name))) * costParse
	}
	if err := r.grow(cost - r.funcCost[name]); err != nil {
		return fatalErr{err}
	}
	if r.funcCost == nil {
		r.funcCost = map[string]int64{}
	}
	if cost == 0 {
		delete(r.funcCost, name)
	} else {
		r.funcCost[name] = cost
	}
	return nil
}

// unchargeFunc returns an unset function's charge.
func (r *Runner) unchargeFunc(name string) {
	if c := r.funcCost[name]; c > 0 {
		r.grow(-c)
		delete(r.funcCost, name)
	}
}

package shell

import (
	"context"
	"io"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
)

// The memory budget (Options.MaxMemoryBytes) of one execution. Everything
// the execution may hold at once is charged to one counter, used:
//
//   - the variables of every runner (the interpreter runs pipeline stages
//     and background jobs concurrently, each with its own copy of the
//     variables): each runner has a slot holding the size of the variables
//     it sees, measured at every check, every simple command and loop tick;
//   - the positional parameters set by set (per function or subshell
//     scope) and the directory stack;
//   - a reservation per statement being run: the bound the check computed
//     for everything its expansions build (see plan and bound), held until
//     the statement ends, raised when a command substitution of it ends
//     (its output is known then) and by what the statement adds while it
//     runs (globbing, eval's and source's text, read's line);
//   - what each running command holds (cmds.Env.Mem), and what the
//     interpreter's mapfile reads.
//
// A charge that would take used over the budget stops the execution with
// MaxMemoryBytes before the memory is allocated.
type memory struct {
	x     *execution
	limit int64
	used  atomic.Int64
	peak  atomic.Int64 // the most used held (kept for tests: memDebug)

	mu    sync.Mutex
	slots map[uintptr]*slot
}

// slot is what one runner (the main script, a pipeline stage, a background
// job) holds: the variables it sees, the positional parameters of its
// scopes, its directory stack and the reservations of its statements being
// run. A runner's handlers all run on its goroutine, but captured output
// may be written from others, so every field is guarded by memory.mu.
type slot struct {
	key    uintptr
	vars   int64   // the variables it sees, as last measured
	params []int64 // positional parameters set by set, per scope (see enterScope)
	dirs   int64   // the directory stack (pushd)
	traps  map[string]trapText
	funcs  map[string]int64 // functions declared by eval'd or sourced text: what their text takes
	stack  []*resv          // statements being run, innermost last
}

// total is what the slot holds.
func (s *slot) total() int64 {
	n := s.vars + s.dirs
	for _, t := range s.traps {
		n += t.held
	}
	for _, f := range s.funcs {
		n += f
	}
	for _, p := range s.params {
		n += p
	}
	for _, r := range s.stack {
		n += r.amount
	}
	return n
}

func newMemory(x *execution, limit int64) *memory {
	return &memory{x: x, limit: limit, slots: map[uintptr]*slot{}}
}

// over stops the execution with MaxMemoryBytes and returns the limit error.
func (m *memory) over() error {
	return m.x.limit("MaxMemoryBytes", m.limit)
}

// add charges n bytes (n < 0 returns them); past the limit nothing is
// charged and the execution stops.
func (m *memory) add(n int64) error {
	if n <= 0 {
		m.used.Add(n)
		return nil
	}
	u := m.used.Add(n)
	if u > m.limit {
		m.used.Add(-n)
		return m.over()
	}
	if memDebug != nil {
		for p := m.peak.Load(); u > p && !m.peak.CompareAndSwap(p, u); p = m.peak.Load() {
		}
	}
	return nil
}

// tryAdd charges n bytes if the budget holds them, and reports whether it
// did (the execution goes on either way).
func (m *memory) tryAdd(n int64) bool {
	if n <= 0 {
		m.used.Add(n)
		return true
	}
	u := m.used.Add(n)
	if u > m.limit {
		m.used.Add(-n)
		return false
	}
	if memDebug != nil {
		for p := m.peak.Load(); u > p && !m.peak.CompareAndSwap(p, u); p = m.peak.Load() {
		}
	}
	return true
}

// slotOf returns the slot of the runner whose environment env is (a
// HandlerContext's), making it on first use.
func (m *memory) slotOf(env expand.Environ) *slot {
	key := runnerKey(env)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.slots[key]
	if s == nil {
		s = &slot{key: key}
		m.slots[key] = s
	}
	return s
}

// setVars records the size of the variables a runner sees; it charges a
// growth (failing past the limit) and returns a shrink.
func (m *memory) setVars(s *slot, n int64) error {
	m.mu.Lock()
	d := n - s.vars
	s.vars = n
	m.mu.Unlock()
	if err := m.add(d); err != nil {
		m.mu.Lock()
		s.vars -= d
		m.mu.Unlock()
		return err
	}
	return nil
}

// charge adds n bytes to the innermost statement of s being run (or to the
// slot itself when none is: the next check measures again).
func (m *memory) charge(s *slot, n int64) error {
	if err := m.add(n); err != nil {
		return err
	}
	m.mu.Lock()
	if k := len(s.stack); k > 0 {
		s.stack[k-1].amount += n
	} else {
		s.vars += n
	}
	m.mu.Unlock()
	return nil
}

// release drops what a runner's slot holds when the runner ends.
func (m *memory) release(s *slot) {
	m.mu.Lock()
	n := s.total()
	s.vars, s.dirs, s.params, s.stack, s.traps, s.funcs = 0, 0, nil, nil, nil, nil
	if m.slots[s.key] == s {
		delete(m.slots, s.key)
	}
	m.mu.Unlock()
	m.used.Add(-n)
}

// memDebug, when set (by a test), logs every check.
var memDebug func(format string, a ...any)

// ---- runner identity ----

// runnerKey identifies the runner an environment belongs to. The
// interpreter gives each handler an overlay over the runner's variables:
// a chain of overlays (one per function call and foreground subshell) that
// ends at the runner's own, which either has no parent (a background
// subshell: a pipeline stage or a job, which copies the variables) or sits
// over the backend's environ (the main script). That last overlay is the
// runner. The overlay type is the interpreter's and unexported: the walk
// reads its parent field by reflection, and TestRunnerKey pins the
// behaviour (a changed layout makes every runner share key 0, which only
// merges slots).
func runnerKey(env expand.Environ) uintptr {
	v := reflect.ValueOf(env)
	for depth := 0; ; depth++ {
		if v.Kind() != reflect.Pointer || v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() != reflect.Struct {
			return v.Pointer()
		}
		p := e.FieldByIndex(overlayParent(e.Type()))
		if p.Kind() != reflect.Interface {
			return 0
		}
		if p.IsNil() {
			return v.Pointer()
		}
		pe := p.Elem()
		if pe.Type() != v.Type() {
			return v.Pointer()
		}
		v = pe
	}
}

var parentIdx sync.Map // reflect.Type -> []int

// overlayParent is the index of the parent field of the interpreter's
// overlay type (empty when there is none: the key is then 0).
func overlayParent(t reflect.Type) []int {
	if idx, ok := parentIdx.Load(t); ok {
		return idx.([]int)
	}
	var idx []int
	if f, ok := t.FieldByName("parent"); ok {
		idx = f.Index
	}
	parentIdx.Store(t, idx)
	return idx
}

// ---- sizes ----

// Overheads counted for variables and the values expansions make, beyond
// their text: a string header in a list, an index of a sparse array, a map
// entry, a variable in the interpreter's tables.
const (
	sizeElem   = 16
	sizeIndex  = 8
	sizeEntry  = 64
	sizeVarHdr = 96
)

// varSize is what one variable holds, with overheads.
func varSize(v expand.Variable) int64 {
	n := int64(sizeVarHdr) + int64(len(v.Str))
	for _, s := range v.List {
		n += int64(len(s)) + sizeElem
	}
	n += int64(len(v.Indexes)) * sizeIndex
	for k, s := range v.Map {
		n += int64(len(k)+len(s)) + sizeEntry
	}
	return n
}

// ---- the statement check ----

// memFile is the path prefix of a statement check: instrument gives every
// statement that expands something the redirection 2>>memFile/PLAN[/...]
// as its first (see planPath), so the interpreter opens it, before it
// expands anything of the statement, and closes it when the statement ends.
const memFile = "/dev/desk-mem/"

// resv is a statement being run: the writer its check redirection opened
// (stderr, passed through), holding the statement's reservation.
type resv struct {
	io.Writer
	m      *memory
	s      *slot
	p      *plan
	spec   specials    // what the check was given (to evaluate again)
	amount int64       // reserved, guarded by m.mu
	plan   int64       // the part of amount the plan's bound is (m.mu)
	substs []substStat // outputs of the command substitutions (m.mu)
	env    expand.Environ
	name   string  // the check's path
	old    []int64 // sizes of the plan's names when it started
	oldBuf [2]int64
	once   sync.Once
}

func (r *resv) Read([]byte) (int, error) { return 0, syscall.EBADF }

// Close ends the statement: its reservation is returned and, when it may
// have assigned variables, the runner's variables are measured again.
func (r *resv) Close() error {
	r.once.Do(func() {
		m := r.m
		m.mu.Lock()
		for i, e := range r.s.stack {
			if e == r {
				r.s.stack = append(r.s.stack[:i], r.s.stack[i+1:]...)
				break
			}
		}
		n := r.amount
		r.amount = -1 // closed: later charges go to the slot
		m.mu.Unlock()
		if memDebug != nil {
			memDebug("close %s: held %d\n", r.name, n)
		}
		m.used.Add(-n)
		if m.x.limited() {
			return
		}
		switch {
		case r.p.measure:
			m.setVars(r.s, m.x.measure(r.env))
		case len(r.p.names) > 0:
			var d int64
			for i, name := range r.p.names {
				d += nameSize(r.env, name) - r.old[i]
			}
			m.mu.Lock()
			v := r.s.vars + d
			m.mu.Unlock()
			m.setVars(r.s, max(v, 0))
		}
	})
	return nil
}

// check is the open handler for memFile: it evaluates the statement's plan
// against the variables as they are, and reserves the bound, or stops the
// execution when the budget cannot hold it.
func (x *execution) check(ctx context.Context, name string) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	p, spec, err := x.plans.lookup(name[len(memFile):])
	if err != nil {
		return nil, err
	}
	m := x.mem
	s, err := m.slotMeasured(hc.Env)
	if err != nil {
		return nil, err
	}
	r := &resv{Writer: unwrapStderr(hc.Stderr), m: m, s: s, p: p, env: hc.Env, name: name}
	r.spec = spec
	ev := evaluator{x: x, env: hc.Env, spec: spec}
	need := ev.plan(p)
	if memDebug != nil {
		memDebug("check %s: need %d used %d vars %d\n", name, need, m.used.Load(), s.vars)
	}
	if err := m.add(need); err != nil {
		return nil, err
	}
	r.amount, r.plan = need, need
	if p.nsubst > 0 {
		r.substs = make([]substStat, p.nsubst)
	}
	if !p.measure && len(p.names) > 0 {
		r.old = r.oldBuf[:0]
		r.old = append(r.old, make([]int64, len(p.names))...)
		for i, name := range p.names {
			r.old[i] = nameSize(hc.Env, name)
		}
	}
	m.mu.Lock()
	s.stack = append(s.stack, r)
	m.mu.Unlock()
	return r, nil
}

// nameSize is the size of the variable name (resolving a nameref) as env
// sees it.
func nameSize(env expand.Environ, name string) int64 {
	v := env.Get(name)
	if n, r := v.Resolve(env); n != "" {
		v = r
	}
	if !v.IsSet() && v.Kind == expand.Unknown {
		return 0
	}
	return int64(len(name)) + varSize(v)
}

// slotMeasured is slotOf, measuring the variables of a slot made now (a
// slot's variables are measured again by every statement that may assign,
// every command and loop tick: see resv.Close, checkVars).
func (m *memory) slotMeasured(env expand.Environ) (*slot, error) {
	key := runnerKey(env)
	m.mu.Lock()
	s := m.slots[key]
	fresh := s == nil
	if fresh {
		s = &slot{key: key}
		m.slots[key] = s
	}
	m.mu.Unlock()
	if fresh {
		if err := m.setVars(s, m.x.measure(env)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// measure is the size of the variables env sees, with overheads.
func (x *execution) measure(env expand.Environ) int64 {
	var n int64
	env.Each(func(name string, v expand.Variable) bool {
		n += int64(len(name)) + varSize(v)
		return true
	})
	return n
}

// unwrapStderr strips the backend's own writers (frames, checks) from a
// stderr, so writes do not go through every level.
func unwrapStderr(w io.Writer) io.Writer {
	for {
		switch v := w.(type) {
		case *frame:
			w = v.Writer
		case *resv:
			w = v.Writer
		case *slotFrame:
			w = v.Writer
		default:
			return w
		}
	}
}

// ---- command substitutions ----

// captureFile is the path prefix of a command substitution's output:
// instrument gives the statements of every $(...) the redirection
// >captureFile/TOKEN/INDEX, INDEX being the substitution's place in the
// plan of the statement it is part of (TOKEN names that plan).
const captureFile = "/dev/desk-capture/"

// capture passes a command substitution's output to the interpreter (which
// builds it in memory), and bounds what the statement it is part of (the
// innermost statement being run when it starts) makes of it before it is
// made: before output goes through, the statement's plan is evaluated again
// with the output's size and shape (its fields, its longest field, a glob
// character) as they will be, and the reservation raised to the new bound;
// output that would take it over the budget is refused (the command
// writing it fails, the execution stops) and never reaches the
// interpreter, which goes on with what was let through and fits. The
// reservation is made ahead (double the size), so a command writing a
// byte at a time costs a few evaluations, not one a write.
type capture struct {
	w     io.Writer
	m     *memory
	r     *resv // the statement it is part of (nil: none is being run)
	s     *slot
	same  bool // r's plan is the one the substitution belongs to
	index int
	ifs   [256]bool // the separators splitting the output (ASCII)
	wide  bool      // IFS has other characters: every byte may separate
	mu    sync.Mutex
	st    substStat // what went through
	in    bool      // in a field, at the end of what went through
	cur   int64     // that field's length so far
	cover substStat // what the reservation covers
	done  bool
}

func (c *capture) Read([]byte) (int, error) { return 0, syscall.EBADF }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return c.w.Write(p)
	}
	st, in, cur := c.scan(p)
	if !c.same {
		c.mu.Unlock()
		// No plan to evaluate: what taking the output costs.
		if err := c.m.chargeResv(c.s, c.r, int64(len(p))*costCapture); err != nil {
			return 0, err
		}
		c.mu.Lock()
	} else if !covered(c.cover, st) {
		ahead := substStat{bytes: max(2*st.bytes, 4096), fields: 2*st.fields + 16, run: 2*st.run + 64, meta: st.meta}
		if c.reserve(ahead) {
			c.cover = ahead
		} else if c.reserve(st) {
			c.cover = st
		} else {
			c.mu.Unlock()
			return 0, c.m.over()
		}
	}
	c.st, c.in, c.cur = st, in, cur
	c.mu.Unlock()
	return c.w.Write(p)
}

// covered reports whether a reservation for cover holds st.
func covered(cover, st substStat) bool {
	return st.bytes <= cover.bytes && st.fields <= cover.fields && st.run <= cover.run && (!st.meta || cover.meta)
}

// scan returns what went through with p added: the fields splitting will
// make, the longest, whether a glob character is in it.
func (c *capture) scan(p []byte) (substStat, bool, int64) {
	st, in, cur := c.st, c.in, c.cur
	st.bytes += int64(len(p))
	for _, b := range p {
		if c.ifs[b] {
			in, cur = false, 0
			continue
		}
		if !in {
			st.fields++
			in = true
		}
		cur++
		st.run = max(st.run, cur)
		if b == '*' || b == '?' || b == '[' {
			st.meta = true
		}
	}
	if c.wide {
		st.fields = st.bytes/2 + 1
	}
	return st, in, cur
}

// reserve evaluates the statement's plan with this output and sets its
// reservation to the bound; past the budget it changes nothing and
// reports false.
func (c *capture) reserve(st substStat) bool {
	r, m := c.r, c.m
	m.mu.Lock()
	substs := slices.Clone(r.substs)
	m.mu.Unlock()
	substs[c.index] = st
	ev := evaluator{x: m.x, env: r.env, spec: r.spec, substs: substs}
	need := ev.plan(r.p)
	m.mu.Lock()
	d := need - r.plan
	m.mu.Unlock()
	if memDebug != nil {
		memDebug("capture %s: %d bytes, need %d\n", r.name, st.bytes, need)
	}
	if !m.tryAdd(d) {
		return false
	}
	m.mu.Lock()
	r.substs[c.index] = st
	r.plan += d
	r.amount += d
	m.mu.Unlock()
	return true
}

// Close sets the reservation to the bound of the output as it is.
func (c *capture) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done {
		return nil
	}
	c.done = true
	if !c.same || c.m.x.limited() {
		return nil
	}
	if !c.reserve(c.st) {
		return c.m.over()
	}
	return nil
}

// chargeResv adds n bytes to the reservation r (to the slot s when r is nil:
// the next measure replaces it).
func (m *memory) chargeResv(s *slot, r *resv, n int64) error {
	if err := m.add(n); err != nil {
		return err
	}
	m.mu.Lock()
	if r != nil && r.amount >= 0 {
		r.amount += n
	} else {
		s.vars += n
	}
	m.mu.Unlock()
	return nil
}

// openCapture opens captureFile/TOKEN/INDEX.
func (x *execution) openCapture(ctx context.Context, name string) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	token, index := parseCapture(name[len(captureFile):])
	m := x.mem
	s := m.slotOf(hc.Env)
	c := &capture{w: hc.Stdout, m: m, s: s, index: index}
	ifs := " \t\n"
	if v := hc.Env.Get("IFS"); v.IsSet() {
		ifs = v.String()
	}
	for _, r := range ifs {
		if r < 0x80 {
			c.ifs[r] = true
		} else {
			c.wide = true
		}
	}
	m.mu.Lock()
	if k := len(s.stack); k > 0 {
		c.r = s.stack[k-1]
		c.same = c.r.p.token == token && index >= 0 && index < len(c.r.substs)
	}
	m.mu.Unlock()
	return c, nil
}

// ---- runners and scopes ----

// slotFile is the redirection instrument gives every pipeline stage but
// the last and every background statement: the interpreter runs them in a
// runner of their own, which the open handler registers (charging the
// variables it copied) and the close releases.
const slotFile = "/dev/desk-slot"

// slotFrame is a runner's registration: stderr, passed through.
type slotFrame struct {
	io.Writer
	m    *memory
	s    *slot
	once sync.Once
}

func (f *slotFrame) Read([]byte) (int, error) { return 0, syscall.EBADF }

func (f *slotFrame) Close() error {
	f.once.Do(func() { f.m.release(f.s) })
	return nil
}

func (x *execution) openSlot(ctx context.Context) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	s := x.mem.slotOf(hc.Env)
	if err := x.mem.setVars(s, x.measure(hc.Env)); err != nil {
		return nil, err
	}
	return &slotFrame{Writer: unwrapStderr(hc.Stderr), m: x.mem, s: s}, nil
}

// enterScope starts a scope of positional parameters (a function call or
// a subshell: see frame) in the runner of env; leaveScope ends it.
func (m *memory) enterScope(s *slot) {
	m.mu.Lock()
	if len(s.params) == 0 {
		s.params = []int64{0} // the runner's own scope
	}
	s.params = append(s.params, 0)
	m.mu.Unlock()
}

func (m *memory) leaveScope(s *slot) {
	m.mu.Lock()
	var n int64
	if k := len(s.params); k > 1 {
		n = s.params[k-1]
		s.params = s.params[:k-1]
	}
	m.mu.Unlock()
	m.used.Add(-n)
}

// setParams records the positional parameters set by set in the innermost
// scope of s (replacing what that scope held).
func (m *memory) setParams(s *slot, n int64) error {
	m.mu.Lock()
	if len(s.params) == 0 {
		s.params = []int64{0} // the runner's own scope
	}
	k := len(s.params) - 1
	d := n - s.params[k]
	s.params[k] = n
	m.mu.Unlock()
	if err := m.add(d); err != nil {
		m.mu.Lock()
		s.params[k] -= d
		m.mu.Unlock()
		return err
	}
	return nil
}

// trapText is a trap's text as given, and what parsing it takes.
type trapText struct {
	text string
	held int64
}

// setTrap records a trap of the runner of s (replacing the signal's).
func (m *memory) setTrap(s *slot, sig, text string, held int64) error {
	m.mu.Lock()
	old := s.traps[sig].held
	m.mu.Unlock()
	if err := m.add(held - old); err != nil {
		return err
	}
	m.mu.Lock()
	if s.traps == nil {
		s.traps = map[string]trapText{}
	}
	s.traps[sig] = trapText{text, held}
	m.mu.Unlock()
	return nil
}

// setFuncs charges the functions an eval'd string or a sourced file
// declares: their bodies outlive the text's own charge (released when
// the statement that ran it ends). Each name holds what the whole text
// takes, replacing what it held (a function declared again replaces its
// body).
func (m *memory) setFuncs(s *slot, names map[string]bool, held int64) error {
	for name := range names {
		m.mu.Lock()
		old := s.funcs[name]
		m.mu.Unlock()
		if err := m.add(held - old); err != nil {
			return err
		}
		m.mu.Lock()
		if s.funcs == nil {
			s.funcs = map[string]int64{}
		}
		s.funcs[name] = held
		m.mu.Unlock()
	}
	return nil
}

// addDirs charges (or returns) directory stack entries.
func (m *memory) addDirs(s *slot, n int64) error {
	m.mu.Lock()
	if s.dirs+n < 0 {
		n = -s.dirs
	}
	s.dirs += n
	m.mu.Unlock()
	if err := m.add(n); err != nil {
		m.mu.Lock()
		s.dirs -= n
		m.mu.Unlock()
		return err
	}
	return nil
}

// ---- commands ----

// account is what one command holds (cmds.Env.Mem): returned whole when the
// command ends.
type account struct {
	m *memory
	n atomic.Int64
}

// Grow charges n bytes (returns them for n < 0).
func (a *account) Grow(n int64) error {
	if n < 0 {
		if c := a.n.Load(); -n > c {
			n = -c
		}
		a.n.Add(n)
		a.m.used.Add(n)
		return nil
	}
	if err := a.m.add(n); err != nil {
		return err
	}
	a.n.Add(n)
	return nil
}

// close returns everything the command still holds.
func (a *account) close() {
	a.m.used.Add(-a.n.Swap(0))
}

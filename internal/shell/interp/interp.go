package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Files is the file system the interpreter works on: every open, stat and
// directory listing of a script goes through it (the shell backend gives the
// workspace store). Paths are absolute. Errors should be *fs.PathError.
type Files interface {
	Open(ctx context.Context, path string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error)
	Stat(ctx context.Context, path string, follow bool) (fs.FileInfo, error)
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)
}

// Call is one command the interpreter does not run itself.
type Call struct {
	Args           []string
	Dir            string
	Stdin          io.Reader // never nil (empty when NoStdin)
	NoStdin        bool
	Stdout, Stderr io.Writer
	Environ        []string // exported variables, NAME=value, sorted
	Prefix         string   // what bash puts before its messages ("bash: line 3: ")
	// Fd returns the reader of the shell's file descriptor n (nil when it
	// is not open for reading): process substitutions <(...) are /dev/fd/N.
	Fd func(n int) io.Reader
	// Sub runs a script in a child interpreter (bash -c, sh -c, xargs of
	// them): it is the interpreter's own, with the call's files and
	// environment.
	Sub func(ctx context.Context, c *Call, src string, args []string) int
	// SubFile is Sub for a script read from the file args[0] (bash file).
	SubFile func(ctx context.Context, c *Call, src string, args []string) int
}

// Memory is a memory budget: Grow charges n bytes (n < 0 returns them) and
// fails when the budget cannot hold them.
type Memory interface {
	Grow(n int64) error
}

// Limits bound an execution. Zero fields mean no bound.
type Limits struct {
	MaxCommands    int64 // simple commands run
	MaxLoopIters   int64 // iterations of all loops
	MaxCallDepth   int64 // function calls, subshells, eval, source alive at once
	MaxStringBytes int   // one word or variable
	MaxArgs        int   // arguments of one command
	MaxGlobEntries int64 // directory entries globbing reads for one command
	MaxBraceWords  int64 // words the brace expansions of one command make
	MaxReadBytes   int   // a sourced file (0: MaxStringBytes)
	MaxVarBytes    int64 // all variables of all runners together
}

// DirPager is an optional interface of Files: ReadDirPage lists at most n
// entries of a directory, in name order, after the name after ("" from
// the start). Globbing reads directories through it when Files has it, a
// page at a time, so a directory past MaxGlobEntries is never listed whole.
type DirPager interface {
	ReadDirPage(ctx context.Context, path, after string, n int) ([]fs.DirEntry, error)
}

// Config is what an execution runs with.
type Config struct {
	Stdin          io.Reader // nil: empty
	Stdout, Stderr io.Writer
	Dir            string   // absolute working directory
	Env            []string // the environment, NAME=value (exported)
	Files          Files
	// HasCommand reports whether Exec knows a command (type, command -v).
	HasCommand func(name string) bool
	// Exec runs a command that is not a function or builtin; it prints its
	// own "command not found" and returns 127 when there is none.
	Exec   func(ctx context.Context, c *Call) int
	Mem    Memory
	Limits Limits
	// Limit is called when a limit of Limits is reached; the error it
	// returns stops the execution (nil: a generic error).
	Limit func(name string, value int64) error
	Name  string   // $0 (default "bash")
	Args  []string // $1...
	Pid   int      // $$ (default 2)
	// Enter, if set, is called first on every goroutine the execution
	// starts (pipeline stages, background jobs, substitutions), and the
	// function it returns when that goroutine is done: the CPU meter's
	// (run.ThreadMeter.Enter).
	Enter func() (leave func())
	// Block, if set, is called when a goroutine of the execution blocks
	// on an in-process pipe, and the function it returns when it goes on:
	// the CPU meter's (run.ThreadMeter.Pause), so that a metered
	// goroutine's wake-up costs no hand-off between threads.
	Block func() (resume func())
	// Script is the file the script was read from (bash file: the bottom
	// of BASH_SOURCE, FUNCNAME's "main"); "" for bash -c.
	Script string
}

// shared is the state all runners of one execution share.
type shared struct {
	cfg      *Config
	commands atomic.Int64
	loops    atomic.Int64
	depth    atomic.Int64
	start    time.Time
	rnd      atomic.Uint32
	fatal    atomic.Pointer[error]
	nextPid  atomic.Int64
	vars     atomic.Int64 // bytes of variables charged (MaxVarBytes)
	procs    procTable    // the shells kill reaches (traps.go)
}

// Runner is one shell: the script's, or a subshell's copy.
type Runner struct {
	sh  *shared
	cfg *Config
	ctx context.Context

	scopes  []*scope
	funcs   map[string]*syntax.Stmt
	params  []string
	name0   string
	dir     string
	status  int
	lastArg string

	opts    map[string]bool // set -o
	shopts  map[string]bool
	fds     map[int]*fdesc
	traps   map[string]string
	aliases map[string]string
	dirs    []string

	frames   []frame // FUNCNAME, BASH_SOURCE, BASH_LINENO
	srcStack []string
	subshell int
	// own is what this runner charged to Config.Mem (variables and holds),
	// held the part of it the running statements' expansions hold (mem.go).
	own, held int64
	ownVars   int64 // the part of own that is variables (MaxVarBytes)
	// funcCost is what each function declared by eval'd or sourced text
	// charged (its syntax tree outlives the text's); evalDepth counts the
	// eval and source texts running.
	funcCost  map[string]int64
	evalDepth int
	noErrExit int
	inTrap    bool
	pipeSt    []int
	umaskV    uint64
	inAlias   map[string]bool
	substRuns int   // command substitutions run (the status of x=$(...))
	globN     int64 // directory entries globbing read for the command being expanded
	// pendingRedirs are the redirections of the simple command being
	// expanded, performed once its words are
	pendingRedirs []*syntax.Redirect
	// parentTraps are the traps of the shell a subshell came from: trap
	// lists them until the subshell sets one (as bash does).
	parentTraps map[string]string
	bgJobs      []*bgJob
	lastBg      int
	optPos      int // getopts position inside an argument
	pid         int
	line        uint
	closers     []io.Closer
	inFunc      int
	loopDepth   int
	procs       []procEnd
	src         string            // the source text being run (error messages)
	funcSrc     map[string]string // the source each function was defined in
	funcFile    map[string]string // the file each function was defined in (BASH_SOURCE)
	// signals and traps (traps.go): sig is what kill reaches, killedBy the
	// signal that ended this shell, curStmt and curText BASH_COMMAND,
	// funcTrace the functions with the trace attribute
	sig       *sigState
	killedBy  int
	curStmt   *syntax.Stmt
	curSrc    string // the source curStmt's offsets are in
	curText   string
	ownTraps  bool // a subshell set a trap (trap then lists its own)
	subKilled int  // the signal that ended the last subshell run
	// killReport: a ( ) subshell of the statement running died of it
	killReport int
	killPid    int // the pid of the shell killReport reports
	subPid     int // the pid of the last subshell run
	// stageStmt is the stage a pipeline's shell runs, or the statement a
	// background job's shell runs: its own subshell's death is not reported
	stageStmt *syntax.Stmt
	funcTrace map[string]bool
	funcAttr  map[string]string // declare -f's attributes of functions: r, t, x
}

type bgJob struct {
	pid    int
	done   chan struct{}
	status int
}

// exit statuses and control flow as errors.
type exitCode int

func (e exitCode) Error() string { return "exit " + strconv.Itoa(int(e)) }

// discard is an expansion error of bash's kind that abandons the rest of
// the command being read (a line of the script, eval's or source's text, a
// trap's action) with status 1: the reading goes on with the next (units).
type discard int

func (d discard) Error() string { return "discard " + strconv.Itoa(int(d)) }

type loopCtl struct {
	brk bool
	n   int
}

func (loopCtl) Error() string { return "loop control" }

type returnCtl struct{}

func (returnCtl) Error() string { return "return" }

// fatalErr stops the whole execution (limits, cancellation).
type fatalErr struct{ err error }

func (f fatalErr) Error() string { return f.err.Error() }
func (f fatalErr) Unwrap() error { return f.err }

// ErrLimit is wrapped by the error of a limit reached when Config.Limit is nil.
var ErrLimit = errors.New("limit exceeded")

// New makes the runner of an execution.
func New(ctx context.Context, cfg *Config) *Runner {
	if cfg.Name == "" {
		cfg.Name = "bash"
	}
	if cfg.Pid == 0 {
		cfg.Pid = 2
	}
	sh := &shared{cfg: cfg, start: time.Now()}
	sh.rnd.Store(uint32(cfg.Pid)*2654435761 + 1)
	sh.nextPid.Store(int64(cfg.Pid) + 1)
	r := &Runner{
		sh: sh, cfg: cfg, ctx: ctx,
		scopes:  []*scope{{vars: map[string]*Var{}}},
		funcs:   map[string]*syntax.Stmt{},
		params:  append([]string(nil), cfg.Args...),
		name0:   cfg.Name,
		dir:     cfg.Dir,
		opts:    map[string]bool{"braceexpand": true, "hashall": true, "interactive-comments": true},
		shopts:  map[string]bool{"globskipdots": true, "extquote": true, "sourcepath": true, "checkwinsize": true, "cmdhist": true, "complete_fullquote": true, "force_fignore": true, "globasciiranges": true, "hostcomplete": true, "interactive_comments": true, "patsub_replacement": true, "progcomp": true, "promptvars": true},
		fds:     map[int]*fdesc{},
		traps:   map[string]string{},
		aliases: map[string]string{},
		pid:     cfg.Pid,
		sig:     &sigState{},
	}
	sh.procs.add(cfg.Pid, &proc{r: r})
	var in io.Reader = eofReader{}
	if cfg.Stdin != nil {
		in = cfg.Stdin
	}
	r.fds[0] = &fdesc{r: in, noStdin: cfg.Stdin == nil}
	r.fds[1] = &fdesc{w: cfg.Stdout}
	r.fds[2] = &fdesc{w: cfg.Stderr}
	for _, kv := range cfg.Env {
		k, v, ok := strings.Cut(kv, "=")
		if fn, isFn := strings.CutPrefix(k, "BASH_FUNC_"); ok && isFn && strings.HasSuffix(fn, "%%") {
			r.importFunc(strings.TrimSuffix(fn, "%%"), v)
			continue
		}
		if !ok || !validName(k) {
			continue
		}
		r.scopes[0].vars[k] = &Var{set: true, str: v, export: true}
	}
	for k, v := range map[string]string{"IFS": " \t\n", "OPTIND": "1", "PS4": "+ ", "BASH_VERSION": "5.2.15(1)-release", "HOSTNAME": "desk", "HOSTTYPE": "x86_64", "OSTYPE": "linux-gnu", "MACHTYPE": "x86_64-pc-linux-gnu", "UID": "1000", "EUID": "1000", "PPID": "1", "SHLVL": "1"} {
		if _, ok := r.scopes[0].vars[k]; !ok {
			r.scopes[0].vars[k] = &Var{set: true, str: v}
		}
	}
	if _, ok := r.scopes[0].vars["PATH"]; !ok {
		// bash's own default when the environment has none
		r.scopes[0].vars["PATH"] = &Var{set: true, str: "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."}
	}
	r.scopes[0].vars["UID"].ro = true
	r.scopes[0].vars["EUID"].ro = true
	r.scopes[0].vars["PWD"] = &Var{set: true, str: cfg.Dir, export: true}
	if cfg.Script != "" {
		r.frames = []frame{{name: "main", file: cfg.Script}}
	}
	r.scopes[0].vars["BASH_VERSINFO"] = &Var{kind: kIndexed, set: true, ro: true, idx: map[int]string{0: "5", 1: "2", 2: "15", 3: "1", 4: "release", 5: "x86_64-pc-linux-gnu"}}
	return r
}

// Parse parses src as bash, with the lenient rewrites of lenient.go: the
// tree's offsets are those of the rewritten text (ParseText returns it).
func Parse(src, name string) (*syntax.File, error) {
	f, _, err := parse(src, name)
	return f, err
}

// ParseText is Parse that also returns the text the tree's offsets refer
// to: src, or its lenient rewrite.
func ParseText(src, name string) (*syntax.File, string, error) {
	return parse(src, name)
}

// Run runs a parsed script and returns its exit status; err is non-nil only
// when the execution was stopped (a limit, cancellation).
func (r *Runner) Run(f *syntax.File, src string) (st int, ferr error) {
	defer r.recoverPanic(&st, &ferr)
	r.src = src
	err := r.units(f.Stmts)
	return r.finish(err)
}

// ErrInternal is the error of an execution stopped by a bug of the
// interpreter (a recovered panic): it never takes the process down.
var ErrInternal = errors.New("internal error of the shell interpreter")

// recoverPanic turns a panic into ErrInternal (the last line of defence:
// the fuzz target checks that none happens).
func (r *Runner) recoverPanic(st *int, err *error) {
	if p := recover(); p != nil {
		e := fmt.Errorf("%w: %v", ErrInternal, p)
		r.sh.fatal.CompareAndSwap(nil, &e)
		*st, *err = 2, e
	}
}

// goSafe runs fn in a goroutine, recovering a panic as recoverPanic does.
func (r *Runner) goSafe(fn func()) {
	go func() {
		if enter := r.sh.cfg.Enter; enter != nil {
			defer enter()()
		}
		defer func() {
			if p := recover(); p != nil {
				e := fmt.Errorf("%w: %v", ErrInternal, p)
				r.sh.fatal.CompareAndSwap(nil, &e)
			}
		}()
		fn()
	}()
}

// finish runs the EXIT trap and turns the result into a status.
func (r *Runner) finish(err error) (int, error) {
	var fe fatalErr
	if errors.As(err, &fe) {
		return 1, fe.err
	}
	if err == nil {
		// a signal sent by the last command
		err = r.takeSignals()
		if errors.As(err, &fe) {
			return 1, fe.err
		}
	}
	if ec, ok := err.(exitCode); ok {
		r.status = int(ec)
	}
	if d, ok := err.(discard); ok {
		r.status = int(d)
	}
	if t, ok := r.traps["EXIT"]; ok && !r.inTrap {
		r.setTrap("EXIT", nil)
		st := r.status
		r.inTrap = true
		e := r.evalString(t, "trap")
		r.inTrap = false
		if errors.As(e, &fe) {
			return 1, fe.err
		}
		if ec, ok := e.(exitCode); ok {
			st = int(ec)
		}
		r.status = st
	}
	r.waitAll()
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i].Close()
	}
	r.closers = nil
	r.releaseAll()
	if p := r.sh.fatal.Load(); p != nil {
		return 1, *p
	}
	return r.status, nil
}

// limit stops the execution because a limit was reached.
func (r *Runner) limit(name string, v int64) error {
	var err error
	if r.cfg.Limit != nil {
		err = r.cfg.Limit(name, v)
	}
	if err == nil {
		err = fmt.Errorf("%w: %s (%d)", ErrLimit, name, v)
	}
	r.sh.fatal.CompareAndSwap(nil, &err)
	return fatalErr{err}
}

// check is called at every command and loop iteration: cancellation.
func (r *Runner) check() error {
	if p := r.sh.fatal.Load(); p != nil {
		return fatalErr{*p}
	}
	if err := r.ctx.Err(); err != nil {
		if sk, ok := context.Cause(r.ctx).(sigKilled); ok {
			return r.dieOf(sk.n)
		}
		return fatalErr{context.Cause(r.ctx)}
	}
	if r.sig.pending.Load() != 0 {
		return r.takeSignals()
	}
	return nil
}

// errf prints a diagnostic as bash -c does: "bash: line N: ...".
func (r *Runner) errf(format string, a ...any) {
	fmt.Fprintf(r.stderr(), "%s: line %d: "+format+"\n", append([]any{r.msgName(), r.line}, a...)...)
}

// prefix is what errf puts before a message.
func (r *Runner) prefix() string { return fmt.Sprintf("%s: line %d: ", r.msgName(), r.line) }

// msgName is the name bash puts before a message: ${BASH_SOURCE[0]}, else $0
// (a function defined by bash -c's text has "environment").
func (r *Runner) msgName() string {
	if n := len(r.frames); n > 0 && r.frames[n-1].file != "" {
		return r.frames[n-1].file
	}
	return r.name0
}

// importFunc defines a function exported by a parent shell
// (BASH_FUNC_name%%=() { ...; }), as exported.
func (r *Runner) importFunc(name, def string) {
	if !validName(name) || !strings.HasPrefix(def, "() ") {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(name+" "+def), "")
	if err != nil || len(f.Stmts) != 1 {
		return
	}
	fd, ok := f.Stmts[0].Cmd.(*syntax.FuncDecl)
	if !ok || fd.Name == nil {
		return
	}
	r.funcs[name] = fd.Body
	if r.funcAttr == nil {
		r.funcAttr = map[string]string{}
	}
	r.funcAttr[name] = "x"
}

// frame is one entry of the call stack: a function, a sourced file, or a
// script file's main.
type frame struct {
	name string // FUNCNAME: the function, "source" or "main"
	file string // BASH_SOURCE
	line uint   // BASH_LINENO: the line it was called from
	fn   bool   // a function
}

// defFile is the BASH_SOURCE of a function defined now: the running
// file's, or bash's "environment" for bash -c's text.
func (r *Runner) defFile() string {
	if n := len(r.frames); n > 0 {
		return r.frames[n-1].file
	}
	return "environment"
}

// stackVar answers FUNCNAME, BASH_SOURCE and BASH_LINENO, innermost first;
// FUNCNAME is empty outside functions.
func (r *Runner) stackVar(name string) []string {
	if name == "FUNCNAME" {
		any := false
		for _, f := range r.frames {
			any = any || f.fn
		}
		if !any {
			return nil
		}
	}
	out := make([]string, len(r.frames))
	for i, f := range r.frames {
		j := len(out) - 1 - i
		switch name {
		case "FUNCNAME":
			out[j] = f.name
		case "BASH_SOURCE":
			out[j] = f.file
		default:
			out[j] = strconv.Itoa(int(f.line))
		}
	}
	return out
}

func (r *Runner) stdout() io.Writer { return r.out(1) }
func (r *Runner) stderr() io.Writer { return r.out(2) }

func (r *Runner) out(n int) io.Writer {
	if f := r.fds[n]; f != nil && f.w != nil {
		return f.w
	}
	return badWriter{}
}

func (r *Runner) stdin() io.Reader {
	if f := r.fds[0]; f != nil && f.r != nil {
		return f.r
	}
	return badReader{}
}

// sub makes a subshell: a copy of the runner's state.
func (r *Runner) sub() *Runner {
	c := *r
	c.scopes = make([]*scope, len(r.scopes))
	for i, s := range r.scopes {
		ns := &scope{vars: make(map[string]*Var, len(s.vars))}
		for k, v := range s.vars {
			ns.vars[k] = v.clone()
		}
		c.scopes[i] = ns
	}
	c.funcs = cloneMap(r.funcs)
	c.funcSrc = cloneMap(r.funcSrc)
	c.funcFile = cloneMap(r.funcFile)
	c.funcAttr = cloneMap(r.funcAttr)
	c.funcTrace = cloneMap(r.funcTrace)
	c.funcCost = cloneMap(r.funcCost)
	c.params = append([]string(nil), r.params...)
	c.opts = cloneMap(r.opts)
	c.shopts = cloneMap(r.shopts)
	c.fds = cloneMap(r.fds)
	c.parentTraps = r.shownTraps()
	c.ownTraps = false
	c.traps = map[string]string{}
	c.sig = &sigState{}
	c.killedBy = 0
	for k, v := range r.traps {
		// a subshell's signals are reset, the ignored ones stay ignored
		if _, isSig := signals[k]; isSig && v == "" || k == "DEBUG" && r.opts["functrace"] {
			c.traps[k] = v
		}
	}
	if t, ok := r.traps["RETURN"]; ok && r.opts["functrace"] {
		c.traps["RETURN"] = t
	}
	if t, ok := r.traps["ERR"]; ok && r.opts["errtrace"] {
		c.traps["ERR"] = t
	}
	c.aliases = cloneMap(r.aliases)
	c.dirs = append([]string(nil), r.dirs...)
	c.frames = append([]frame(nil), r.frames...)
	c.bgJobs = nil
	c.closers = nil
	c.subshell++
	c.pid = int(r.sh.nextPid.Add(1))
	// The copy shares its strings with r, but not its arrays' and maps'
	// elements.
	c.own, c.held, c.ownVars = 0, 0, 0
	var elems int
	for _, s := range c.scopes {
		elems += len(s.vars)
		for _, v := range s.vars {
			elems += len(v.idx) + len(v.assoc)
		}
	}
	if err := c.hold(elems*costElem + len(c.params)*costStr); err != nil {
		// sub has no error to return: the execution stops at the next check
		var fe fatalErr
		if errors.As(err, &fe) {
			r.sh.fatal.CompareAndSwap(nil, &fe.err)
		}
	}
	return &c
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// runSub runs fn in a subshell and returns its status.
func (r *Runner) runSub(fn func(c *Runner) error) (int, error) {
	if err := r.enter(); err != nil {
		return 1, err
	}
	defer r.leave()
	c := r.sub()
	err := fn(c)
	st, ferr := c.finish(err)
	if ferr != nil {
		return st, fatalErr{ferr}
	}
	r.subKilled, r.subPid = c.killedBy, c.pid
	return st, nil
}

// enter counts a call frame (MaxCallDepth).
func (r *Runner) enter() error {
	n := r.sh.depth.Add(1)
	if m := r.cfg.Limits.MaxCallDepth; m > 0 && n > m {
		r.sh.depth.Add(-1)
		return r.limit("MaxCallDepth", m)
	}
	return nil
}

func (r *Runner) leave() { r.sh.depth.Add(-1) }

// units runs text read as bash reads it, a command (a line's list) at a
// time: an expansion error that discards stops only its command (in a
// subshell, the subshell; under set -e, the shell).
func (r *Runner) units(list []*syntax.Stmt) error {
	for i := 0; i < len(list); i++ {
		err := r.stmt(list[i])
		if d, ok := err.(discard); ok && r.subshell == 0 {
			if r.opts["errexit"] {
				return exitCode(d)
			}
			r.pipeSt = append(r.pipeSt[:0], int(d))
			r.status = int(d)
			for i+1 < len(list) && list[i+1].Pos().Line() <= list[i].End().Line() {
				i++
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) stmts(list []*syntax.Stmt) error {
	for _, st := range list {
		if err := r.stmt(st); err != nil {
			return err
		}
	}
	return nil
}

// cmdLine is the line bash gives a simple or arithmetic command that
// spans lines: the line its words end on, not counting continuations
// (backslash-newline).
func (r *Runner) cmdLine(st *syntax.Stmt) uint {
	line := st.Pos().Line()
	var end syntax.Pos
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		end = c.End()
	case *syntax.ArithmCmd:
		end = c.End()
	default:
		return line
	}
	from, to := int(st.Pos().Offset()), int(end.Offset())
	if from < 0 || to > len(r.src) || from >= to {
		return line
	}
	text := r.src[from:to]
	return line + uint(strings.Count(text, "\n")-strings.Count(text, "\\\n"))
}

func (r *Runner) stmt(st *syntax.Stmt) error {
	if err := r.check(); err != nil {
		return err
	}
	defer r.release(r.held)
	r.line = st.Pos().Line()
	if st.Cmd != nil && r.line != st.Cmd.End().Line() {
		r.line = r.cmdLine(st)
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 1 && len(ce.Assigns) == 0 {
		if msg, ok := marked(ce.Args[0].Lit(), markWarn); ok {
			// the lenient parse's warnings (an unclosed here-document)
			for _, l := range strings.SplitAfter(strings.TrimSuffix(msg, "\n"), "\n") {
				fmt.Fprintf(r.stderr(), "%s: %s", r.name0, strings.TrimSuffix(l, "\n")+"\n")
			}
			return nil
		}
	}
	if r.opts["noexec"] {
		// set -n: read, never run (bash -c cannot turn it off again)
		return nil
	}
	if debugCmd(st.Cmd) {
		if err := r.debugTrap(st, ""); err != nil {
			return err
		}
	}
	if st.Background {
		return r.background(st)
	}
	mark := len(r.procs)
	err := r.stmtRedir(st)
	if len(r.procs) > mark {
		r.endProcs(mark)
	}
	if r.killReport != 0 {
		// a pipeline's stage is reported with its pipeline's status (not
		// here: bash reports only the last stage's, which desk leaves out)
		if st != r.stageStmt {
			r.reportKilled(r.killReport, r.killPid, st)
		}
		r.killReport = 0
	}
	if err == nil && r.sig.pending.Load() != 0 {
		err = r.takeSignals()
	}
	if err != nil {
		if _, ok := err.(exitCode); ok {
			return err
		}
		if _, ok := err.(fatalErr); ok {
			return err
		}
		if _, ok := err.(loopCtl); ok {
			return err
		}
		if _, ok := err.(returnCtl); ok {
			return err
		}
		return err
	}
	if _, isBin := st.Cmd.(*syntax.BinaryCmd); !isBin {
		r.pipeSt = append(r.pipeSt[:0], r.status)
	}
	if st.Negated {
		if r.status == 0 {
			r.status = 1
		} else {
			r.status = 0
		}
		return nil
	}
	if r.status != 0 && r.noErrExit == 0 {
		if _, isBin := st.Cmd.(*syntax.BinaryCmd); !isBin || st.Cmd.(*syntax.BinaryCmd).Op == syntax.Pipe || st.Cmd.(*syntax.BinaryCmd).Op == syntax.PipeAll {
			if errTrapCmd(st.Cmd) && (r.inFunc == 0 || r.opts["errtrace"]) {
				if err := r.errTrap(); err != nil {
					return err
				}
			}
			if r.opts["errexit"] {
				return exitCode(r.status)
			}
		}
	}
	return nil
}

// errTrapCmd reports whether a failing command of this kind runs the ERR
// trap (compound commands do not: the command inside them that failed did).
func errTrapCmd(c syntax.Command) bool {
	switch c.(type) {
	case *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause, *syntax.FuncDecl:
		return false
	}
	return true
}

func (r *Runner) errTrap() error {
	t, ok := r.traps["ERR"]
	if !ok || r.inTrap {
		return nil
	}
	st := r.status
	r.inTrap = true
	err := r.evalString(t, "trap")
	r.inTrap = false
	r.status = st
	return err
}

func (r *Runner) background(st *syntax.Stmt) error {
	c := r.sub()
	c.fds[0] = &fdesc{r: eofReader{}, noStdin: true}
	job := &bgJob{pid: c.pid, done: make(chan struct{})}
	r.bgJobs = append(r.bgJobs, job)
	r.lastBg = c.pid
	if err := r.enter(); err != nil {
		return err
	}
	s2 := *st
	s2.Background = false
	// The job's statement is its shell's own (bash forks one process for
	// "( ... ) &"): a ( ) subshell it runs dying of a signal is the job
	// dying, which the shell does not report, whether the signal came
	// before or after that subshell started.
	c.stageStmt = &s2
	// kill $! reaches the job: an untrapped signal interrupts its command
	ctx, cancel := context.WithCancelCause(r.ctx)
	c.ctx = ctx
	r.sh.procs.add(c.pid, &proc{r: c, cancel: cancel})
	r.goSafe(func() {
		defer close(job.done)
		defer r.leave()
		defer cancel(nil)
		defer r.sh.procs.remove(c.pid)
		err := c.stmt(&s2)
		if sk, ok := context.Cause(ctx).(sigKilled); ok {
			err = c.dieOf(sk.n)
			c.ctx = r.ctx // its EXIT trap runs
		}
		job.status, _ = c.finish(err)
	})
	r.status = 0
	return nil
}

func (r *Runner) waitAll() {
	for _, j := range r.bgJobs {
		<-j.done
	}
}

func (r *Runner) stmtRedir(st *syntax.Stmt) error {
	if len(st.Redirs) == 0 {
		return r.cmd(st.Cmd)
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 1 && len(ce.Assigns) == 0 && ce.Args[0].Lit() == "exec" {
		// exec with redirections only: they stay
		if _, err := r.redirect(st.Redirs, true); err != nil {
			if _, ok := err.(fatalErr); ok {
				return err
			}
			r.errf("%v", err)
			r.status = 1
			return nil
		}
		r.status = 0
		return nil
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) == 0 {
		// bash assigns first, then performs the redirections
		if err := r.cmd(st.Cmd); err != nil {
			return err
		}
		st0 := r.status
		restore, err := r.redirect(st.Redirs, false)
		if err != nil {
			if _, ok := err.(fatalErr); ok {
				return err
			}
			r.errf("%v", err)
			r.status = 1
			return nil
		}
		restore()
		r.status = st0
		return nil
	}
	if ce, ok := st.Cmd.(*syntax.CallExpr); ok {
		// bash expands the words first, then performs the redirections
		r.pendingRedirs = st.Redirs
		err := r.call(ce)
		r.pendingRedirs = nil
		return err
	}
	restore, err := r.redirect(st.Redirs, false)
	if err != nil {
		if _, ok := err.(fatalErr); ok {
			return err
		}
		r.status = 1
		if isExpErr(err) {
			return r.expErr(err)
		}
		if ec, ok := err.(exitCode); ok {
			return ec
		}
		r.errf("%v", err)
		return nil
	}
	err = r.cmd(st.Cmd)
	restore()
	return err
}

// applyPending performs the redirections of the simple command being run
// (after its words were expanded); ok false: they failed (reported).
func (r *Runner) applyPending() (restore func(), ok bool, err error) {
	rs := r.pendingRedirs
	r.pendingRedirs = nil
	if len(rs) == 0 {
		return func() {}, true, nil
	}
	restore, err = r.redirect(rs, false)
	if err != nil {
		if _, ok := err.(fatalErr); ok {
			return nil, false, err
		}
		r.status = 1
		if isExpErr(err) {
			return nil, false, r.expErr(err)
		}
		if ec, ok := err.(exitCode); ok {
			return nil, false, ec
		}
		r.errf("%v", err)
		return nil, false, nil
	}
	return restore, true, nil
}

func (r *Runner) cmd(c syntax.Command) error {
	switch c := c.(type) {
	case nil:
		return nil
	case *syntax.CallExpr:
		return r.call(c)
	case *syntax.Block:
		return r.stmts(c.Stmts)
	case *syntax.Subshell:
		st, err := r.runSub(func(s *Runner) error { return s.stmts(c.Stmts) })
		// reported once the statement's redirections are undone
		r.killReport, r.subKilled = r.subKilled, 0
		r.killPid = r.subPid
		r.status = st
		return err
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			r.noErrExit++
			err := r.stmt(c.X)
			r.noErrExit--
			if err != nil {
				return err
			}
			if (r.status == 0) == (c.Op == syntax.AndStmt) {
				return r.stmt(c.Y)
			}
			return nil
		default:
			return r.pipeline(c)
		}
	case *syntax.IfClause:
		return r.ifClause(c)
	case *syntax.WhileClause:
		return r.while(c)
	case *syntax.ForClause:
		return r.forClause(c)
	case *syntax.CaseClause:
		return r.caseClause(c)
	case *syntax.FuncDecl:
		if c.Name == nil {
			// an anonymous function (zsh's), which bash does not parse
			line := ""
			if ls := strings.Split(r.src, "\n"); int(r.line) >= 1 && int(r.line) <= len(ls) {
				line = ls[r.line-1]
			}
			fmt.Fprintf(r.stderr(), "%s: -c: line %d: syntax error near unexpected token `)'\n%s: -c: line %d: `%s'\n", r.name0, r.line, r.name0, r.line, line)
			r.status = 2
			return exitCode(2)
		}
		if strings.Contains(r.funcAttr[c.Name.Value], "r") {
			r.errf("%s: readonly function", c.Name.Value)
			r.status = 1
			return nil
		}
		if err := r.chargeFunc(c.Name.Value, c.Body); err != nil {
			return err
		}
		r.funcs[c.Name.Value] = c.Body
		if r.funcSrc == nil {
			r.funcSrc = map[string]string{}
		}
		r.funcSrc[c.Name.Value] = r.src
		if r.funcFile == nil {
			r.funcFile = map[string]string{}
		}
		r.funcFile[c.Name.Value] = r.defFile()
		r.status = 0
		return nil
	case *syntax.ArithmCmd:
		n, err := r.arith(c.X)
		if err != nil {
			return r.arithCmdErr("((", r.arithRawErr(c.X, c.Right, err))
		}
		r.status = b2i(n == 0)
		return nil
	case *syntax.LetClause:
		var n int64
		for _, x := range c.Exprs {
			var err error
			if n, err = r.arith(x); err != nil {
				return r.arithCmdErr("let", err)
			}
		}
		r.status = b2i(n == 0)
		return nil
	case *syntax.TestClause:
		ok, err := r.testExpr(c.X)
		if ae, isArith := err.(errArith); isArith && !ae.fatal {
			// an operand of -eq and the others evaluated
			r.errf("[[: %v", ae)
			r.status = 1
			return nil
		}
		if err != nil {
			return r.expErr(err)
		}
		r.status = b2i(!ok)
		return nil
	case *syntax.DeclClause:
		return r.declClause(c)
	case *syntax.TimeClause:
		start := time.Now()
		var err error
		if c.Stmt != nil {
			err = r.stmt(c.Stmt)
		}
		d := time.Since(start)
		if c.PosixFormat {
			fmt.Fprintf(r.stderr(), "real %.2f\nuser 0.00\nsys 0.00\n", d.Seconds())
		} else {
			fmt.Fprintf(r.stderr(), "\nreal\t%dm%.3fs\nuser\t0m0.000s\nsys\t0m0.000s\n", int(d.Minutes()), d.Seconds()-60*float64(int(d.Minutes())))
		}
		return err
	case *syntax.CoprocClause:
		r.errf("coproc: not supported by the shell backend")
		r.status = 2
		return nil
	}
	r.errf("unsupported command")
	r.status = 2
	return nil
}

// expErr reports an expansion error: bash -c stops with status 1 (127
// for unbound variables and ${x?}), printing it.
func (r *Runner) expErr(err error) error {
	switch e := err.(type) {
	case fatalErr, exitCode, discard:
		return err
	case errUnbound:
		r.errf("%v", e)
		r.status = 127
		if r.subshell > 0 || true {
			return exitCode(127)
		}
	case errParamUnset:
		r.errf("%s", e.msg)
		return exitCode(127)
	case errArith:
		r.errf("%v", e)
		r.status = 1
		if e.fatal {
			return discard(1)
		}
		return nil
	case errBadSubst:
		r.errf("%v", e)
		if e.status != 0 {
			return exitCode(e.status)
		}
		return discard(1)
	}
	r.errf("%v", err)
	r.status = 1
	return nil
}

// isExpErr reports whether err is an expansion's error (expErr words it).
func isExpErr(err error) bool {
	switch err.(type) {
	case errBadSubst, errArith, errUnbound, errParamUnset, discard:
		return true
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (r *Runner) ifClause(c *syntax.IfClause) error {
	for ; c != nil; c = c.Else {
		if c.ThenPos.IsValid() || len(c.Cond) > 0 {
			r.noErrExit++
			err := r.stmts(c.Cond)
			r.noErrExit--
			if err != nil {
				return err
			}
			if r.status == 0 {
				return r.stmts(c.Then)
			}
			continue
		}
		return r.stmts(c.Then)
	}
	r.status = 0
	return nil
}

// tick counts a loop iteration (MaxLoopIters).
func (r *Runner) tick() error {
	n := r.sh.loops.Add(1)
	if m := r.cfg.Limits.MaxLoopIters; m > 0 && n > m {
		return r.limit("MaxLoopIters", m)
	}
	return r.check()
}

// loopBody runs a loop body; it reports whether the loop stops and the
// error to return.
func (r *Runner) loopBody(body []*syntax.Stmt) (bool, error) {
	r.loopDepth++
	err := r.stmts(body)
	r.loopDepth--
	if lc, ok := err.(loopCtl); ok {
		if lc.n > 1 {
			lc.n--
			return true, lc
		}
		return lc.brk, nil
	}
	return err != nil, err
}

func (r *Runner) while(c *syntax.WhileClause) error {
	status := 0
	for {
		if err := r.tick(); err != nil {
			return err
		}
		r.noErrExit++
		err := r.stmts(c.Cond)
		r.noErrExit--
		if err != nil {
			if lc, ok := err.(loopCtl); ok {
				if lc.n > 1 {
					lc.n--
					return lc
				}
				if lc.brk {
					break
				}
				continue
			}
			return err
		}
		if (r.status == 0) == c.Until {
			break
		}
		stop, err := r.loopBody(c.Do)
		status = r.status
		if stop {
			r.status = status
			return err
		}
	}
	r.status = status
	return nil
}

func (r *Runner) forClause(c *syntax.ForClause) error {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		var items []string
		if l.InPos.IsValid() {
			r.globN = 0
			if err := r.checkBraces(l.Items, nil); err != nil {
				return err
			}
			var err error
			items, err = r.fields(l.Items...)
			if err != nil {
				return r.expErr(err)
			}
		} else {
			items = append([]string(nil), r.params...)
		}
		if c.Select {
			return r.selectLoop(l.Name.Value, items, c.Do)
		}
		r.status = 0
		for _, it := range items {
			if err := r.tick(); err != nil {
				return err
			}
			if _, ok := r.traps["DEBUG"]; ok || r.curText != "" {
				words := []string{"for", l.Name.Value, "in"}
				for _, w := range l.Items {
					words = append(words, r.nodeText(w))
				}
				if err := r.debugTrap(nil, strings.Join(words, " ")); err != nil {
					return err
				}
			}
			if r.opts["xtrace"] {
				q := []string{"for", l.Name.Value, "in"}
				for _, x := range items {
					q = append(q, traceQuote(x))
				}
				r.trace(q, true)
			}
			if err := r.setStr(l.Name.Value, it); err != nil {
				r.errf("%v", err)
				r.status = 1
				return nil
			}
			if stop, err := r.loopBody(c.Do); stop {
				return err
			}
		}
		return nil
	case *syntax.CStyleLoop:
		dbg := func(x syntax.ArithmExpr) error {
			if _, ok := r.traps["DEBUG"]; !ok {
				return nil
			}
			t := ""
			if x != nil {
				t = r.nodeText(x)
			}
			return r.debugTrap(nil, "(("+t+"))")
		}
		if err := dbg(l.Init); err != nil {
			return err
		}
		if l.Init != nil {
			if _, err := r.arith(l.Init); err != nil {
				return r.arithCmdErr("((", err)
			}
		}
		r.status = 0
		st := 0
		for {
			if err := r.tick(); err != nil {
				return err
			}
			if err := dbg(l.Cond); err != nil {
				return err
			}
			if l.Cond != nil {
				n, err := r.arith(l.Cond)
				if err != nil {
					return r.arithCmdErr("((", err)
				}
				if n == 0 {
					break
				}
			}
			stop, err := r.loopBody(c.Do)
			st = r.status
			if stop {
				return err
			}
			if err := dbg(l.Post); err != nil {
				return err
			}
			if l.Post != nil {
				if _, err := r.arith(l.Post); err != nil {
					return r.arithCmdErr("((", err)
				}
			}
		}
		r.status = st
		return nil
	}
	return nil
}

// arithCmdErr reports an arithmetic error of the command named who ((( )),
// for (( )) named as (( )), let): printed under that name, the command
// fails with status 1; any other error is an expansion error.
func (r *Runner) arithCmdErr(who string, err error) error {
	if ae, ok := err.(errArith); ok {
		r.errf("%s: %v", who, ae)
		r.status = 1
		return nil
	}
	return r.expErr(err)
}

func (r *Runner) selectLoop(name string, items []string, body []*syntax.Stmt) error {
	for {
		if err := r.tick(); err != nil {
			return err
		}
		for i, it := range items {
			fmt.Fprintf(r.stderr(), "%d) %s\n", i+1, it)
		}
		ps3, ok := r.getVar("PS3")
		if !ok {
			ps3 = "#? "
		}
		io.WriteString(r.stderr(), ps3)
		line, err := readLine(r.stdin(), '\n', -1)
		if err != nil && line == "" {
			r.status = 1
			return nil
		}
		line = strings.TrimSpace(line)
		r.setStr("REPLY", line)
		n, e := strconv.Atoi(line)
		if e == nil && n >= 1 && n <= len(items) {
			r.setStr(name, items[n-1])
		} else {
			r.setStr(name, "")
		}
		if stop, err := r.loopBody(body); stop {
			return err
		}
	}
}

func (r *Runner) caseClause(c *syntax.CaseClause) error {
	if _, ok := r.traps["DEBUG"]; ok {
		if err := r.debugTrap(nil, "case "+r.nodeText(c.Word)+" in "); err != nil {
			return err
		}
	}
	w, err := r.literal(c.Word)
	if err != nil {
		return r.expErr(err)
	}
	r.status = 0
	for i := 0; i < len(c.Items); i++ {
		it := c.Items[i]
		matched := false
		for _, p := range it.Patterns {
			pat, err := r.pattern(p)
			if err != nil {
				return r.expErr(err)
			}
			if r.match(pat, w, false) {
				matched = true
				break
			}
		}
		if !matched {
			continue
		}
		for {
			if err := r.stmts(it.Stmts); err != nil {
				return err
			}
			if it.Op == syntax.Fallthrough && i+1 < len(c.Items) {
				i++
				it = c.Items[i]
				continue
			}
			break
		}
		if it.Op != syntax.Resume {
			return nil
		}
	}
	return nil
}

// pipeline runs a | b | c: every stage in a subshell, concurrently.
func (r *Runner) pipeline(c *syntax.BinaryCmd) error {
	var stages []*syntax.Stmt
	var all []bool
	var walk func(s *syntax.Stmt, amp bool)
	walk = func(s *syntax.Stmt, amp bool) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && !s.Negated && len(s.Redirs) == 0 && !s.Background {
			walk(b.X, b.Op == syntax.PipeAll)
			walk(b.Y, amp)
			return
		}
		stages = append(stages, s)
		all = append(all, amp)
	}
	walk(c.X, c.Op == syntax.PipeAll)
	walk(c.Y, false)
	// all[i] tells whether stage i's stderr joins the pipe too.
	n := len(stages)
	if _, ok := r.traps["DEBUG"]; ok {
		// bash runs it in the shell before it starts each stage
		for _, st := range stages {
			if debugCmd(st.Cmd) {
				if err := r.debugTrap(st, ""); err != nil {
					return err
				}
			}
		}
	}
	statuses := make([]int, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	var in io.Reader = r.stdin()
	noStdin := r.fds[0] != nil && r.fds[0].noStdin
	for i, st := range stages {
		var pr *pipeReader
		var pw *pipeWriter
		if i < n-1 {
			pr, pw = newPipe(r.sh.cfg.Block)
		}
		if i == n-1 && n > 1 && r.shopts["lastpipe"] {
			// shopt -s lastpipe: the last stage runs in this shell (bash -c
			// has no job control, so it always applies)
			old := r.fds[0]
			r.fds[0] = &fdesc{r: in}
			err := r.stmt(st)
			r.fds[0] = old
			if p, ok := in.(*pipeReader); ok {
				p.Close()
			}
			wg.Wait()
			statuses[i] = r.status
			if err != nil {
				return err
			}
			break
		}
		c := r.sub()
		c.fds[0] = &fdesc{r: in, noStdin: noStdin && i == 0}
		if pw != nil {
			c.fds[1] = &fdesc{w: pw}
			if all[i] {
				c.fds[2] = &fdesc{w: pw}
			}
		}
		// A stage is no call frame of its own (as in the mvdan backend):
		// the functions, subshells and substitutions it runs are.
		c.stageStmt = st
		wg.Add(1)
		inR := in
		r.goSafe(func() {
			defer wg.Done()
			err := c.stmt(st)
			statuses[i], errs[i] = c.finish(err)
			if pw != nil {
				pw.Close()
			}
			if p, ok := inR.(*pipeReader); ok {
				p.Close()
			}
		})
		if pr != nil {
			in = pr
		}
		noStdin = false
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return fatalErr{e}
		}
	}
	r.pipeSt = statuses
	r.status = statuses[n-1]
	if r.opts["pipefail"] {
		for i := n - 1; i >= 0; i-- {
			if statuses[i] != 0 {
				r.status = statuses[i]
				break
			}
		}
	}
	return nil
}

// parseReported parses src as file (the name positions carry); a syntax
// error is reported on stderr as bash words it, where naming the command
// (source's file, eval's caller, alias), with status 2 and ok false.
func (r *Runner) parseReported(src, file, where string) (f *syntax.File, text string, ok bool) {
	f, text, err := parse(src, file)
	if err != nil {
		msg, _ := SyntaxError(err, src, r.name0, where)
		io.WriteString(r.stderr(), msg)
		r.status = 2
		return nil, text, false
	}
	return f, text, true
}

// evalString parses and runs src in the current shell (eval, traps).
func (r *Runner) evalString(src, what string) error {
	old := r.src
	r.src = src
	r.evalDepth++
	defer func() { r.src = old; r.evalDepth-- }()
	f, text, ok := r.parseReported(src, "bash", what)
	r.src = text
	if !ok {
		return nil
	}
	if err := r.enter(); err != nil {
		return err
	}
	defer r.leave()
	return r.units(f.Stmts)
}

// cmdSubst runs stmts in a subshell and returns its output, trailing
// newlines removed.
func (r *Runner) cmdSubst(stmts []*syntax.Stmt) (string, error) {
	var buf limitBuf
	buf.max = r.cfg.Limits.MaxStringBytes
	buf.mem = r.cfg.Mem
	st, err := r.runSub(func(c *Runner) error {
		c.fds[1] = &fdesc{w: &buf}
		if !c.shopts["inherit_errexit"] {
			// bash: a command substitution does not inherit set -e
			c.opts["errexit"] = false
		}
		// $(<file)
		if len(stmts) == 1 && len(stmts[0].Redirs) == 1 && stmts[0].Cmd == nil && stmts[0].Redirs[0].Op == syntax.RdrIn {
			name, err := c.literal(stmts[0].Redirs[0].Word)
			if err != nil {
				return c.expErr(err)
			}
			f, err := c.openFile(name, 0, 0)
			if err != nil {
				c.errf("%v", err)
				c.status = 1
				return nil
			}
			defer f.Close()
			_, err = io.Copy(&buf, f)
			return err
		}
		return c.stmts(stmts)
	})
	defer buf.release()
	r.substRuns++
	if buf.over {
		return "", r.limit("MaxStringBytes", int64(buf.max))
	}
	if buf.memErr != nil {
		return "", fatalErr{buf.memErr}
	}
	r.status = st
	if err != nil {
		return "", err
	}
	// The capture's charge becomes the statement's hold: the string is the
	// buffer, not a copy.
	if err := r.hold(int(buf.charged)); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.b.String(), "\n"), nil
}

// limitBuf is a command substitution's capture, bounded and charged.
type limitBuf struct {
	mu      sync.Mutex
	b       strings.Builder
	max     int
	over    bool
	mem     Memory
	charged int64
	memErr  error
}

func (l *limitBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.over || l.memErr != nil {
		return 0, errWriteLimit
	}
	if l.max > 0 && l.b.Len()+len(p) > l.max {
		l.over = true
		return 0, errWriteLimit
	}
	if need := l.b.Len() + len(p); need > l.b.Cap() {
		// strings.Builder grows to twice its capacity plus what it needs:
		// charge the new buffer before it is made (the old one is garbage).
		grow := 2*l.b.Cap() + len(p)
		if l.mem != nil {
			if err := l.mem.Grow(int64(grow)); err != nil {
				l.memErr = err
				return 0, err
			}
			l.charged += int64(grow)
		}
		l.b.Grow(len(p))
	}
	return l.b.Write(p)
}

func (l *limitBuf) release() {
	if l.mem != nil && l.charged > 0 {
		l.mem.Grow(-l.charged)
		l.charged = 0
	}
}

var errWriteLimit = errors.New("write: output too large")

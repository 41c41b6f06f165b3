package shell

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/cmds"
	"github.com/desk-dev/desk/internal/vfs"
)

// environ is the interpreter's base environment: the job's variables plus
// the defaults, all exported, and UID/EUID/GID (1000, read-only, not
// exported) so the interpreter never asks the host. While resetting is set
// (only during the explicit Reset in newRunner) TMPDIR reads as a sentinel
// path holding a NUL byte, which the interpreter keeps as its private
// temporary directory: FIFOs it would create there, and the files it would
// open there directly, fail in the os package before any system call.
type environ struct {
	vars      map[string]string
	pid, ppid expand.Variable // $$ and $PPID (pidVar, ppidVar; see execPid)
	resetting bool
}

// idVar is UID, EUID and GID.
func idVar() expand.Variable {
	return expand.Variable{Set: true, ReadOnly: true, Kind: expand.String, Str: "1000"}
}

// execPid is the execution's $$: a number from 2 to 4,194,303 (Linux's
// largest pid_max) derived from the execution's ID, so executions in one
// workspace (temporary names like /tmp/x.$$) get different ones while one
// execution, with its subshells, keeps one (as bash keeps $$ in a
// subshell). $PPID is 1, as for a shell started by init. Neither is a host
// process.
func execPid(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return 2 + int(h.Sum32()%(1<<22-2))
}

func (e *environ) Get(name string) expand.Variable {
	switch name {
	case "TMPDIR":
		if e.resetting {
			return expand.Variable{Set: true, Kind: expand.String, Str: tempDirSentinel}
		}
	case "UID", "EUID", "GID":
		return idVar()
	case pidVar:
		return e.pid
	case ppidVar:
		return e.ppid
	}
	if v, ok := e.vars[name]; ok {
		return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
	}
	return expand.Variable{}
}

func (e *environ) Each(f func(name string, vr expand.Variable) bool) {
	for _, n := range []string{"UID", "EUID", "GID"} {
		if !f(n, idVar()) {
			return
		}
	}
	// A background subshell (a pipeline's parts) copies the variables it
	// is given here: $$ and $PPID must be among them.
	if !f(pidVar, e.pid) || !f(ppidVar, e.ppid) {
		return
	}
	for n, v := range e.vars {
		if !f(n, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}) {
			return
		}
	}
}

// newRunner builds the interpreter for one execution, setting every option.
func (x *execution) newRunner(stdin *os.File) (*interp.Runner, error) {
	vars, cwd := x.startEnv()
	vars["PWD"] = cwd
	env := &environ{vars: vars,
		pid:  expand.Variable{Set: true, ReadOnly: true, Kind: expand.String, Str: strconv.Itoa(execPid(x.job.ID))},
		ppid: expand.Variable{Set: true, ReadOnly: true, Kind: expand.String, Str: "1"},
	}
	var in io.Reader
	if stdin != nil {
		in = stdin
	}
	r, err := interp.New(
		interp.Env(env),
		// interp.Dir stats the host: set the field directly.
		func(r *interp.Runner) error { r.Dir = cwd; return nil },
		interp.Params(),
		interp.Interactive(false),
		interp.StdIO(in, x.stdout, x.stderr),
		interp.CallHandler(x.call),
		// The middleware never calls next: the default exec handler
		// (host binaries) is unreachable.
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return x.exec }),
		interp.OpenHandler(x.open),
		interp.ReadDirHandler2(x.readDir),
		interp.StatHandler(x.stat),
		interp.AccessHandler(x.access),
	)
	if err != nil {
		return nil, err
	}
	env.resetting = true
	r.Reset()
	env.resetting = false
	return r, nil
}

// resolve makes p absolute against dir, cleaned, within the store.
func resolve(dir, p string) string {
	if strings.HasPrefix(p, "/") {
		return vfs.Clean(p)
	}
	return vfs.Clean(path.Join(dir, p))
}

// capErrno prints an errno as bash does ("No such file or directory").
type capErrno struct{ errno syscall.Errno }

func (e capErrno) Error() string {
	s := e.errno.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
func (e capErrno) Unwrap() error { return e.errno }

// bashPathError is the error the interpreter prints for a failed
// redirection: "bash: name: No such file or directory".
func bashPathError(name string, err error) error {
	return &os.PathError{Op: "bash:", Path: name, Err: capErrno{vfs.Errno(err)}}
}

// ---- open ----

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Read([]byte) (int, error) { return 0, syscall.EBADF }
func (nopWriteCloser) Close() error             { return nil }

type devNull struct{}

func (devNull) Read([]byte) (int, error)            { return 0, io.EOF }
func (devNull) Write(p []byte) (int, error)         { return len(p), nil }
func (devNull) Close() error                        { return nil }
func (devNull) ReadFrom(r io.Reader) (int64, error) { return io.Copy(io.Discard, r) }

type readOnly struct{ io.Reader }

func (readOnly) Write([]byte) (int, error) { return 0, syscall.EBADF }
func (readOnly) Close() error              { return nil }

// open is the interpreter's OpenHandler: redirections, source and $(<file),
// all on the store; /dev/null, /dev/stdin, /dev/stdout and /dev/stderr in
// memory.
func (x *execution) open(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	switch {
	case name == frameFile:
		return x.enterFrame(hc, true, false), nil
	case name == subFrameFile:
		return x.enterFrame(hc, true, true), nil
	case name == textFrameFile:
		return x.enterFrame(hc, false, false), nil
	case name == slotFile:
		return x.openSlot(ctx)
	case strings.HasPrefix(name, memFile):
		return x.check(ctx, name)
	case strings.HasPrefix(name, captureFile):
		return x.openCapture(ctx, name)
	case strings.HasPrefix(name, mapfileFile):
		return x.openMapfile(ctx, name)
	}
	shown := name
	source := false
	if strings.HasPrefix(name, sourcePrefix) {
		name = strings.TrimPrefix(name, sourcePrefix)
		shown, source = name, true
	}
	switch name {
	case "/dev/null":
		return devNull{}, nil
	case "/dev/stdin", "/dev/fd/0":
		if hc.Stdin == nil {
			return devNull{}, nil
		}
		return readOnly{hc.Stdin}, nil
	case "/dev/stdout", "/dev/fd/1":
		return nopWriteCloser{hc.Stdout}, nil
	case "/dev/stderr", "/dev/fd/2":
		return nopWriteCloser{hc.Stderr}, nil
	}
	abs := resolve(hc.Dir, name)
	if strings.HasPrefix(abs, "/dev/") || abs == "/dev" {
		return nil, bashPathError(shown, syscall.EACCES)
	}
	if source {
		s := x.mem.slotOf(hc.Env)
		if fi, err := x.job.FS.Stat(ctx, abs); err == nil && fi.Mode().IsRegular() {
			// The text, parsed twice (here and by the interpreter).
			if err := x.mem.charge(s, (fi.Size()+1)*(2+2*costParse)); err != nil {
				return nil, err
			}
		}
		data, err := x.readAll(ctx, abs)
		if err != nil {
			return nil, bashPathError(shown, err)
		}
		src, funcs, err := prepareText(string(data), abs, x.braceLimits())
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", shown, err)
		}
		x.addFuncs(funcs)
		if err := x.mem.setFuncs(s, funcs, int64(len(src))*costParse); err != nil {
			return nil, err
		}
		return readOnly{strings.NewReader(src)}, nil
	}
	f, err := x.job.FS.OpenFile(ctx, abs, flag, perm)
	if err != nil {
		return nil, bashPathError(shown, err)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		return x.track(f), nil
	}
	// A read-only open feeds an OS pipe: the interpreter wants an *os.File
	// for stdin (it would make the pipe itself, and never close it).
	pr, pw, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", shown, err)
	}
	x.wg.Add(1)
	x.addPipe(pr)
	go func() {
		defer x.cpu.Enter()() // its store reads are the execution's CPU
		defer x.wg.Done()
		io.Copy(pw, f)
		pw.Close()
		f.Close()
	}()
	return pr, nil
}

// readAll reads a whole file within MaxReadBytes.
func (x *execution) readAll(ctx context.Context, abs string) ([]byte, error) {
	f, err := x.job.FS.Open(ctx, abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, x.b.opts.MaxReadBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > x.b.opts.MaxReadBytes {
		return nil, x.limit("MaxReadBytes", x.b.opts.MaxReadBytes)
	}
	return data, nil
}

// trackedFile closes its vfs.File once, and leaves the execution's open set.
// It counts its failed writes, so that a command whose output to it failed
// (a quota's EDQUOT) ends with status 1 (runSafe).
type trackedFile struct {
	*vfs.File
	x     *execution
	once  sync.Once
	err   error
	wmu   sync.Mutex
	werrs int   // failed writes so far
	werr  error // the last one
}

// Write writes to the file, counting a failure.
func (t *trackedFile) Write(p []byte) (int, error) {
	n, err := t.File.Write(p)
	if err != nil {
		t.wmu.Lock()
		t.werrs++
		t.werr = err
		t.wmu.Unlock()
	}
	return n, err
}

// writeErrors is the count of failed writes and the last one's error.
func (t *trackedFile) writeErrors() (int, error) {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.werrs, t.werr
}

func (t *trackedFile) Close() error {
	t.once.Do(func() {
		t.err = t.File.Close()
		t.x.fmu.Lock()
		delete(t.x.files, t)
		t.x.fmu.Unlock()
	})
	return t.err
}

func (x *execution) track(f *vfs.File) *trackedFile {
	t := &trackedFile{File: f, x: x}
	x.fmu.Lock()
	if x.files == nil {
		x.files = map[*trackedFile]bool{}
	}
	x.files[t] = true
	x.fmu.Unlock()
	return t
}

func (x *execution) addPipe(p *os.File) {
	x.fmu.Lock()
	x.pipes = append(x.pipes, p)
	x.fmu.Unlock()
}

// closeAll closes what the script left open (exec >file, unread input
// pipes) and waits for the copying goroutines, so every vfs.File is closed
// when Run returns.
func (x *execution) closeAll() {
	x.fmu.Lock()
	files := make([]*trackedFile, 0, len(x.files))
	for t := range x.files {
		files = append(files, t)
	}
	pipes := x.pipes
	x.pipes = nil
	x.fmu.Unlock()
	for _, t := range files {
		t.Close()
	}
	for _, p := range pipes {
		p.Close()
	}
	x.wg.Wait()
}

// ---- stat, access, readdir ----

// devInfo describes the in-memory devices.
type devInfo struct{ name string }

func (d devInfo) Name() string       { return d.name }
func (d devInfo) Size() int64        { return 0 }
func (d devInfo) Mode() fs.FileMode  { return fs.ModeDevice | fs.ModeCharDevice | 0o666 }
func (d devInfo) ModTime() time.Time { return time.Time{} }
func (d devInfo) IsDir() bool        { return false }
func (d devInfo) Sys() any           { return nil }

func isDev(name string) bool {
	switch name {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2":
		return true
	}
	return false
}

func (x *execution) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	abs := resolve(interp.HandlerCtx(ctx).Dir, name)
	if isDev(abs) {
		return devInfo{path.Base(abs)}, nil
	}
	var fi *vfs.FileInfo
	var err error
	if follow {
		fi, err = x.job.FS.Stat(ctx, abs)
	} else {
		fi, err = x.job.FS.Lstat(ctx, abs)
	}
	if err != nil {
		return nil, err
	}
	return fi, nil
}

func (x *execution) access(ctx context.Context, name string, mode interp.AccessMode) error {
	abs := resolve(interp.HandlerCtx(ctx).Dir, name)
	if isDev(abs) {
		return nil
	}
	fi, err := x.job.FS.Stat(ctx, abs)
	if err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if (mode&interp.AccessRead != 0 && perm&0o400 == 0) ||
		(mode&interp.AccessWrite != 0 && perm&0o200 == 0) ||
		(mode&interp.AccessExec != 0 && perm&0o100 == 0) {
		return &fs.PathError{Op: "access", Path: name, Err: syscall.EACCES}
	}
	return nil
}

// dirEntry adapts a vfs.DirEntry to fs.DirEntry.
type dirEntry struct {
	e   vfs.DirEntry
	dir string
	x   *execution
	ctx context.Context
}

func (d dirEntry) Name() string      { return d.e.Name }
func (d dirEntry) IsDir() bool       { return d.e.Mode&vfs.S_IFMT == vfs.S_IFDIR }
func (d dirEntry) Type() fs.FileMode { return vfs.UnixToFileMode(d.e.Mode).Type() }
func (d dirEntry) Info() (fs.FileInfo, error) {
	return d.x.job.FS.Lstat(d.ctx, path.Join(d.dir, d.e.Name))
}

// readDirPage is the number of entries readDir asks the store for at once.
const readDirPage = 4096

// readDir is the interpreter's ReadDirHandler2 (globbing). It reads the
// directory a page at a time, counting every entry against MaxGlobEntries
// for the command being expanded, and stops at the limit: a huge directory
// is never held in memory whole.
func (x *execution) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	abs := resolve(interp.HandlerCtx(ctx).Dir, name)
	limit := int64(x.b.opts.MaxGlobEntries)
	var out []fs.DirEntry
	after := ""
	for {
		// Ask for one entry past what the limit leaves, so reaching
		// the limit exactly is not an error.
		n := int(min(readDirPage, limit-x.globEntries.Load()+1))
		page, err := x.job.FS.ReadDirPage(ctx, abs, after, max(n, 1))
		if err != nil {
			return nil, err
		}
		if x.globEntries.Add(int64(len(page))) > limit {
			return nil, x.limit("MaxGlobEntries", limit)
		}
		// What the entries and the matches made of them take.
		var held int64
		for _, e := range page {
			held += 2*int64(len(abs)+len(e.Name)+1) + costField + 128
		}
		if err := x.mem.charge(x.mem.slotOf(interp.HandlerCtx(ctx).Env), held); err != nil {
			return nil, err
		}
		for _, e := range page {
			out = append(out, dirEntry{e: e, dir: abs, x: x, ctx: ctx})
		}
		if len(page) < n {
			return out, nil
		}
		after = page[len(page)-1].Name
	}
}

// ---- call: limits and rewrites ----

// call is the CallHandler: it runs before every simple command (builtins and
// functions included), counts it, checks the limits, and rewrites the few
// builtins that would look at the host (type, command -v/-V, source).
func (x *execution) call(ctx context.Context, args []string) ([]string, error) {
	o := &x.b.opts
	if args[0] == loopTick {
		if n := x.loops.Add(1); n > o.MaxLoopIters {
			return nil, x.limit("MaxLoopIters", o.MaxLoopIters)
		}
		if err := x.checkVars(ctx); err != nil {
			return nil, err
		}
		if len(args) > 1 {
			// A for ((;;)) loop's condition and step, evaluated again
			// at each iteration: their bound must fit beside what is
			// held (nothing is reserved: what they build is gone by
			// the next tick).
			rest := args[1]
			if len(args) > 2 {
				rest = strings.TrimPrefix(args[2], memFile)
			}
			p, spec, err := x.plans.lookup(rest)
			if err != nil {
				return nil, err
			}
			hc := interp.HandlerCtx(ctx)
			need := x.newEvaluator(hc.Env, spec).plan(p)
			if x.mem.used.Load()+need > x.mem.limit {
				return nil, x.mem.over()
			}
		}
		return []string{":"}, nil
	}
	if args[0] == catCmd {
		return args[:1], nil // $(<file): not a command of the script
	}
	if args[0] == braceCmd && len(args) == 2 {
		// A command instrument found over a brace expansion limit.
		if args[1] == "MaxStringBytes" {
			return nil, x.limit(args[1], int64(o.MaxStringBytes))
		}
		return nil, x.limit("MaxBraceWords", int64(o.MaxBraceWords))
	}
	if n := x.commands.Add(1); n > o.MaxCommands {
		return nil, x.limit("MaxCommands", o.MaxCommands)
	}
	x.globEntries.Store(0)
	if len(args) > o.MaxArgs {
		return nil, x.limit("MaxArgs", int64(o.MaxArgs))
	}
	for _, a := range args {
		if len(a) > o.MaxStringBytes {
			return nil, x.limit("MaxStringBytes", int64(o.MaxStringBytes))
		}
	}
	if err := x.checkVars(ctx); err != nil {
		return nil, err
	}
	i := 0
	if (args[0] == "command" || args[0] == "builtin") && len(args) > 1 {
		i = 1
	}
	name := args[i]
	hc := interp.HandlerCtx(ctx)
	switch name {
	case "eval":
		text := strings.Join(args[i+1:], " ")
		// Parsed twice (here and by the interpreter), held while it
		// runs.
		if err := x.mem.charge(x.mem.slotOf(hc.Env), 2*int64(len(text))*costParse); err != nil {
			return nil, err
		}
		src, funcs, err := prepareText(text, "", x.braceLimits())
		if errors.Is(err, ErrProcSubst) {
			return []string{rejectCmd}, nil
		}
		if err != nil {
			return nil, err
		}
		x.addFuncs(funcs)
		if err := x.mem.setFuncs(x.mem.slotOf(hc.Env), funcs, int64(len(src))*costParse); err != nil {
			return nil, err
		}
		// The interpreter parses eval's text itself: hand it the
		// instrumented text (see instrument).
		args = append(slices.Clone(args[:i+1]), src)
	case "source", ".":
		if len(args) > i+1 {
			args = slices.Clone(args)
			args[i+1] = sourcePrefix + resolve(interp.HandlerCtx(ctx).Dir, args[i+1])
		}
	case "echo", "printf", "pwd":
		// A function of that name runs instead (unless called through
		// builtin or command).
		if i == 1 || !x.isFunc(name) {
			return x.ownBuiltin(ctx, args[i:])
		}
	case "read":
		if i == 1 || !x.isFunc(name) {
			return x.readBuiltin(ctx, args[i:])
		}
	case "mapfile", "readarray":
		if i == 1 || !x.isFunc(name) {
			if _, ok := x.mapfiles.LoadAndDelete(hc.Stdin); !ok {
				// instrument bounds the input of mapfile called by
				// its name (see openMapfile); a computed name would
				// read without a bound.
				fmt.Fprintf(hc.Stderr, "bash: %s: the shell backend runs %s only by its name\n", name, name)
				return []string{statusCmd, "2"}, nil
			}
		}
	case "trap":
		if i == 0 && !x.isFunc(name) {
			return x.trapBuiltin(hc, args)
		}
	case "alias":
		if i == 0 && !x.isFunc(name) {
			return x.aliasBuiltin(hc, args)
		}
	case "set":
		if err := x.setBuiltin(hc, args[i+1:]); err != nil {
			return nil, err
		}
	case "pushd", "popd":
		// The directory stack: each entry at most a path.
		n := int64(pathMaxBytes + sizeElem)
		if name == "popd" {
			n = -n
		} else if len(args) <= i+1 || strings.HasPrefix(args[i+1], "+") || strings.HasPrefix(args[i+1], "-") {
			n = 0 // rotating or swapping
		}
		if err := x.mem.addDirs(x.mem.slotOf(hc.Env), n); err != nil {
			return nil, err
		}
	case "type":
		// Always ours: the interpreter's type searches PATH on the host.
		if i == 0 {
			args = append([]string{typeCmd}, args...)
		}
	case "-v", "-V":
		// command -v/-V (name is the flag: i is 1 after "command").
		if args[0] == "command" && len(args) > 2 {
			args = append([]string{typeCmd}, args...)
		}
	}
	return args, nil
}

const rejectCmd = internalPrefix + "reject"

// braceLimits are the limits instrument holds brace expansion to.
func (x *execution) braceLimits() braceLimits {
	return braceLimits{words: int64(x.b.opts.MaxBraceWords), bytes: int64(x.b.opts.MaxStringBytes)}
}

// ownBuiltins are the builtins the shell runs from package cmds instead of
// the interpreter's: mvdan/sh's echo takes no combined flags (-en) nor \c;
// its printf lacks precision, %f/%e/%g, %q and -v; its pwd -P resolves
// symlinks on the host. (test and [ stay the interpreter's: bash's builtin
// differs from GNU test in parsing and wording, and package cmds has GNU's.)
var ownBuiltins = map[string]cmds.Func{
	"echo":   cmds.Echo,
	"printf": cmds.PrintfBuiltin,
	"pwd":    cmds.PwdBuiltin,
}

// ownBuiltin rewrites a call of one of ownBuiltins (args[0] is its name,
// after any "builtin" or "command" prefix) so the exec handler runs ours.
// printf -v NAME runs here, and assigns through eval.
func (x *execution) ownBuiltin(ctx context.Context, args []string) ([]string, error) {
	if args[0] != "printf" || len(args) < 2 || !strings.HasPrefix(args[1], "-v") {
		return append([]string{builtinPrefix + args[0]}, args[1:]...), nil
	}
	name, rest := strings.TrimPrefix(args[1], "-v"), args[2:]
	if name == "" && len(rest) > 0 {
		name, rest = rest[0], rest[1:]
	}
	hc := interp.HandlerCtx(ctx)
	if !validAssignTarget(name) {
		fmt.Fprintf(hc.Stderr, "bash: printf: `%s': not a valid identifier\n", name)
		return []string{statusCmd, "2"}, nil
	}
	env := x.cmdEnv(ctx, hc)
	out := &valueBuf{x: x, s: x.mem.slotOf(hc.Env), max: x.b.opts.MaxStringBytes}
	env.Stdout = out
	status := x.runCmd(cmds.PrintfBuiltin, env, append([]string{"printf"}, rest...))
	if x.limited() {
		return nil, context.Cause(x.ctx)
	}
	if status == 2 { // usage
		return []string{statusCmd, "2"}, nil
	}
	assign := name + "=" + doubleQuote(out.String())
	if status != 0 {
		// Fails once, without tripping ERR or errexit inside the eval.
		assign += "; ! :"
	}
	return []string{"eval", assign}, nil
}

// validAssignTarget reports whether s is NAME or NAME[SUBSCRIPT].
func validAssignTarget(s string) bool {
	base := s
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		base = s[:i]
	}
	return syntax.ValidName(base)
}

// doubleQuote quotes s for the shell in double quotes. (Not single quotes,
// which need \' for a quote: eval'd text keeps mvdan/sh's backslash bug,
// see fixLiteralEscapes.)
func doubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		if c == '\\' || c == '"' || c == '$' || c == '`' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('"')
	return b.String()
}

// isFunc reports whether the script (or a string it evaluated) declares a
// function called name.
func (x *execution) isFunc(name string) bool {
	x.fnmu.Lock()
	defer x.fnmu.Unlock()
	return x.funcNames[name]
}

// addFuncs records functions declared by an evaluated string.
func (x *execution) addFuncs(names map[string]bool) {
	if len(names) == 0 {
		return
	}
	x.fnmu.Lock()
	defer x.fnmu.Unlock()
	for n := range names {
		x.funcNames[n] = true
	}
}

// frame is one call frame (frameFile) open: a writer to the stderr it
// replaced, whose Close leaves the frame (and its scope of positional
// parameters, see memory.enterScope).
type frame struct {
	io.Writer
	x    *execution
	s    *slot // the runner, when the frame is a scope
	sub  bool  // a subshell: its variables go when it ends
	vars int64 // the runner's variables when it started (sub)
	once sync.Once
}

func (f *frame) Close() error {
	f.once.Do(func() {
		f.x.frames.Add(-1)
		if f.s != nil {
			f.x.mem.leaveScope(f.s)
			if f.sub && !f.x.limited() {
				// The parent waited: its variables are as they were.
				f.x.mem.setVars(f.s, f.vars)
			}
		}
	})
	return nil
}

// Read fails: the frame's redirection is an output one.
func (f *frame) Read([]byte) (int, error) { return 0, syscall.EBADF }

// enterFrame opens a call frame over stderr. Past MaxCallDepth frames it
// stops the execution (the interpreter stops before the next command) and
// still returns the frame, so the interpreter prints no error of its own.
func (x *execution) enterFrame(hc interp.HandlerContext, scope, sub bool) *frame {
	if n := x.frames.Add(1); n > int64(x.b.opts.MaxCallDepth) {
		x.limit("MaxCallDepth", int64(x.b.opts.MaxCallDepth))
	}
	f := &frame{Writer: unwrapStderr(hc.Stderr), x: x, sub: sub}
	if scope {
		if s, err := x.mem.slotMeasured(hc.Env); err == nil {
			f.s = s
			x.mem.enterScope(s)
			x.mem.mu.Lock()
			f.vars = s.vars
			x.mem.mu.Unlock()
		}
	}
	return f
}

// checkVars checks MaxStringBytes per variable and MaxVarBytes in total,
// and records what the runner's variables hold (MaxMemoryBytes).
func (x *execution) checkVars(ctx context.Context) error {
	o := &x.b.opts
	total := 0
	var held int64
	var err error
	env := interp.HandlerCtx(ctx).Env
	env.Each(func(name string, v expand.Variable) bool {
		n := len(v.Str)
		for _, s := range v.List {
			n += len(s)
		}
		for k, s := range v.Map {
			n += len(k) + len(s)
		}
		if n > o.MaxStringBytes {
			err = x.limit("MaxStringBytes", int64(o.MaxStringBytes))
			return false
		}
		total += n
		if total > o.MaxVarBytes {
			err = x.limit("MaxVarBytes", int64(o.MaxVarBytes))
			return false
		}
		held += int64(len(name)) + varSize(v)
		return true
	})
	if err != nil {
		return err
	}
	return x.mem.setVars(x.mem.slotOf(env), held)
}

// ---- exec: commands ----

// pathDirs are the directories a command may be named by ("/usr/bin/ls").
var pathDirs = map[string]bool{"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true}

// lookup finds a command: Options.Commands, then package cmds. A name with a
// directory in pathDirs names the command of its base name.
func (x *execution) lookup(name string) (cmds.Func, bool) {
	if strings.Contains(name, "/") {
		dir, base := path.Split(name)
		if !pathDirs[path.Clean(dir)] {
			return nil, false
		}
		name = base
	}
	if f, ok := x.b.opts.Commands[name]; ok {
		return f, true
	}
	return cmds.Lookup(name)
}

// exec is the exec handler: it runs commands from Options.Commands and
// package cmds, and never anything on the host.
func (x *execution) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	name := args[0]
	switch name {
	case typeCmd:
		return exitErr(x.typeBuiltin(hc, args[1:]))
	case rejectCmd:
		fmt.Fprintf(hc.Stderr, "bash: eval: %v\n", ErrProcSubst)
		return exitErr(ExitSyntax)
	}
	if name == statusCmd {
		n, _ := strconv.Atoi(args[1])
		return exitErr(n)
	}
	if name == catCmd {
		f, _ := cmds.Lookup("cat")
		status := x.runCmd(f, x.cmdEnv(ctx, hc), []string{"cat"})
		if err := x.ctx.Err(); err != nil {
			return context.Cause(x.ctx)
		}
		return exitErr(status)
	}
	if own, ok := strings.CutPrefix(name, builtinPrefix); ok {
		env := x.cmdEnv(ctx, hc)
		status := x.runCmd(ownBuiltins[own], env, append([]string{own}, args[1:]...))
		if err := x.ctx.Err(); err != nil {
			return context.Cause(x.ctx)
		}
		return exitErr(status)
	}
	f, ok := x.lookup(name)
	if !ok {
		if strings.Contains(name, "/") {
			if _, err := x.job.FS.Stat(ctx, resolve(hc.Dir, name)); err == nil {
				fmt.Fprintf(hc.Stderr, "bash: %s: cannot execute: %s\n", name, notExecutableSuffixText)
				return exitErr(126)
			}
			fmt.Fprintf(hc.Stderr, "bash: %s: No such file or directory\n", name)
			return exitErr(ExitNotFound)
		}
		fmt.Fprintf(hc.Stderr, "bash: %s: command not found\n", name)
		return exitErr(ExitNotFound)
	}
	env := x.cmdEnv(ctx, hc)
	status := x.runCmd(f, env, args)
	if err := x.ctx.Err(); err != nil {
		return context.Cause(x.ctx)
	}
	return exitErr(status)
}

// runCmd runs a command with an account of its own (cmds.Env.Mem),
// returned when it ends.
func (x *execution) runCmd(f cmds.Func, env *cmds.Env, args []string) int {
	acct := &account{m: x.mem}
	env.Mem = acct
	defer acct.close()
	return x.runSafe(f, env, args)
}

// exitErr turns a status into the exec handler's result (nil for 0:
// interp.ExitStatus(0) as an error panics).
func exitErr(status int) error {
	if status == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(status))
}

// runSafe runs a command, turning a panic into a diagnostic and status 2.
// A command whose writes to a redirected store file failed and that still
// ended with status 0 (it did not check them) ends with "NAME: write error:
// REASON" and status 1, as GNU programs do at exit (gnulib's close_stdout):
// a write past the workspace's quota is not silently lost.
func (x *execution) runSafe(f cmds.Func, env *cmds.Env, args []string) (status int) {
	out, _ := env.Stdout.(*trackedFile)
	var failed0 int
	if out != nil {
		failed0, _ = out.writeErrors()
	}
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(env.Stderr, "%s: internal error: %v\n", args[0], p)
			status = 2
		}
		if out == nil || status != 0 {
			return
		}
		if n, err := out.writeErrors(); n > failed0 {
			fmt.Fprintf(env.Stderr, "%s: write error: %s\n", args[0], cmds.Strerror(err))
			status = 1
		}
	}()
	return f(env, args)
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// exported reports whether a variable reaches commands: the exported ones,
// and PWD, which bash always exports (the interpreter drops the flag when
// cd sets it).
func exported(name string, v expand.Variable) bool {
	return v.Exported || name == "PWD"
}

// cmdEnv builds what a command sees from the handler context.
func (x *execution) cmdEnv(ctx context.Context, hc interp.HandlerContext) *cmds.Env {
	var stdin io.Reader = devNull{}
	if hc.Stdin != nil {
		stdin = ctxReader{ctx, hc.Stdin}
	}
	henv := hc.Env
	env := &cmds.Env{
		Ctx:     ctx,
		FS:      x.job.FS,
		Dir:     hc.Dir,
		Stdin:   stdin,
		NoStdin: hc.Stdin == nil,
		Stdout:  hc.Stdout,
		Stderr:  hc.Stderr,
		Getenv: func(name string) string {
			v := henv.Get(name)
			if !exported(name, v) || !v.IsSet() || v.Kind != expand.String {
				return ""
			}
			return v.Str
		},
		Environ: func() []string {
			seen := map[string]bool{}
			var out []string
			henv.Each(func(name string, v expand.Variable) bool {
				if seen[name] {
					return true
				}
				seen[name] = true
				if exported(name, v) && v.IsSet() && v.Kind == expand.String {
					out = append(out, name+"="+v.Str)
				}
				return true
			})
			slices.Sort(out)
			return out
		},
		Limits: cmds.Limits{MaxReadBytes: x.b.opts.MaxReadBytes},
		Now:    x.b.opts.Now,
		Net:    x.job.Net,
	}
	env.Exec = x.execFunc(nil)
	return env
}

// startEnv is what an execution starts with, on either interpreter: the
// job's variables over desk's defaults (PATH, HOME, USER, SHELL, and LANG
// unless the job sets LANG or LC_ALL), and the working directory ("/" when
// the job names none).
func (x *execution) startEnv() (vars map[string]string, cwd string) {
	vars = map[string]string{"PATH": defaultPath, "HOME": defaultHome, "USER": defaultUser, "SHELL": defaultShell}
	for k, v := range x.job.Env {
		vars[k] = v
	}
	_, lang := x.job.Env["LANG"]
	_, lcAll := x.job.Env["LC_ALL"]
	if !lang && !lcAll {
		vars["LANG"] = defaultLang
	}
	cwd = x.job.Cwd
	if cwd == "" {
		cwd = "/"
	}
	return vars, cwd
}

// execFunc is the Exec of a command's cmds.Env, which runs the commands a
// command runs (xargs, find -exec, env, timeout): from Options.Commands or
// package cmds, each counted against MaxCommands, none once ctx is done.
// sub, when not nil, is asked first and reports whether it ran the command
// (desk's interpreter runs bash and sh there).
func (x *execution) execFunc(sub func(ctx context.Context, e *cmds.Env, args []string) (int, bool)) func(ctx context.Context, e *cmds.Env, args []string) int {
	return func(ctx context.Context, e *cmds.Env, args []string) int {
		if len(args) == 0 {
			return 0
		}
		if n := x.commands.Add(1); n > x.b.opts.MaxCommands {
			x.limit("MaxCommands", x.b.opts.MaxCommands)
			return ExitLimit
		}
		if ctx.Err() != nil {
			return ExitLimit
		}
		if sub != nil {
			if code, ok := sub(ctx, e, args); ok {
				return code
			}
		}
		f, ok := x.lookup(args[0])
		if !ok {
			if args[0] == ":" { // the one builtin package cmds has no file for
				return 0
			}
			return cmds.NotFound
		}
		return x.runSafe(f, e, args)
	}
}

// enterCwd makes sure the job's working directory is a directory, making
// the default one (/workspace) when a fresh workspace has none yet (it
// shows in the change set); false, with bash's message on stderr, when it
// is not.
func (x *execution) enterCwd() bool {
	ctx, job := x.ctx, x.job
	if _, err := job.FS.Stat(ctx, job.Cwd); errors.Is(err, fs.ErrNotExist) && job.Cwd == run.DefaultCwd {
		job.FS.MkdirAll(ctx, job.Cwd, 0o755)
	}
	if fi, err := job.FS.Stat(ctx, job.Cwd); err != nil || !fi.IsDir() {
		if err == nil {
			err = syscall.ENOTDIR
		}
		fmt.Fprintf(x.stderr, "bash: working directory %s: %s\n", job.Cwd, capErrno{vfs.Errno(err)})
		return false
	}
	return true
}

// typeBuiltin is type, command -v and command -V without host lookups.
// args starts with "type" or "command".
func (x *execution) typeBuiltin(hc interp.HandlerContext, args []string) int {
	mode := "type"
	if args[0] == "command" {
		mode = args[1] // -v or -V
		args = args[2:]
	} else {
		args = args[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
			switch args[0] {
			case "-t", "-p", "-P":
				mode = args[0]
			case "--":
			default:
				fmt.Fprintf(hc.Stderr, "bash: type: %s: invalid option\n", args[0])
				return 2
			}
			args = args[1:]
		}
	}
	status := 0
	for _, a := range args {
		kind, where := "", ""
		switch {
		case syntax.IsKeyword(a):
			kind = "keyword"
		case x.isFunc(a):
			// Known from the script text (and evaluated strings): the
			// interpreter's function table is not reachable from a handler.
			kind = "function"
		case interp.IsBuiltin(a):
			kind = "builtin"
		default:
			if _, ok := x.lookup(a); ok {
				kind = "file"
				where = a
				if !strings.Contains(a, "/") {
					where = "/usr/bin/" + a
				}
			}
		}
		if kind == "" {
			status = 1
			if mode == "type" || mode == "-V" {
				fmt.Fprintf(hc.Stderr, "bash: type: %s: not found\n", a)
			}
			continue
		}
		switch mode {
		case "-t":
			fmt.Fprintln(hc.Stdout, kind)
		case "-p", "-P":
			if where != "" {
				fmt.Fprintln(hc.Stdout, where)
			}
		case "-v":
			if where != "" {
				fmt.Fprintln(hc.Stdout, where)
			} else {
				fmt.Fprintln(hc.Stdout, a)
			}
		default:
			switch kind {
			case "keyword":
				fmt.Fprintf(hc.Stdout, "%s is a shell keyword\n", a)
			case "builtin":
				fmt.Fprintf(hc.Stdout, "%s is a shell builtin\n", a)
			case "function":
				fmt.Fprintf(hc.Stdout, "%s is a function\n", a)
			default:
				fmt.Fprintf(hc.Stdout, "%s is %s\n", a, where)
			}
		}
	}
	return status
}

package shell

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/cmds"
	dinterp "github.com/desk-dev/desk/internal/shell/interp"
	"github.com/desk-dev/desk/internal/vfs"
)

// Interpreters of Options.Interpreter.
const (
	// InterpMvdan is mvdan.cc/sh's interpreter.
	InterpMvdan = "mvdan"
	// InterpDesk is desk's own interpreter, package internal/shell/interp
	// (the default).
	InterpDesk = "desk"
)

// deskFiles is the store as the desk interpreter sees it.
type deskFiles struct{ x *execution }

func (f deskFiles) Open(ctx context.Context, p string, flag int, perm fs.FileMode) (io.ReadWriteCloser, error) {
	vf, err := f.x.job.FS.OpenFile(ctx, p, flag, perm)
	if err != nil {
		return nil, err
	}
	return f.x.track(vf), nil
}

func (f deskFiles) Stat(ctx context.Context, p string, follow bool) (fs.FileInfo, error) {
	if isDev(p) || p == "/dev/zero" || p == "/dev/urandom" || p == "/dev/random" {
		return devInfo{path.Base(p)}, nil
	}
	if follow {
		return f.x.job.FS.Stat(ctx, p)
	}
	return f.x.job.FS.Lstat(ctx, p)
}

// ReadDir lists a whole directory (the interpreter globs through
// ReadDirPage; what it reads it holds against the budget itself).
func (f deskFiles) ReadDir(ctx context.Context, p string) ([]fs.DirEntry, error) {
	var out []fs.DirEntry
	after := ""
	for {
		page, err := f.ReadDirPage(ctx, p, after, readDirPage)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < readDirPage {
			return out, nil
		}
		after = page[len(page)-1].Name()
	}
}

// ReadDirPage lists at most n entries of p after the name after.
func (f deskFiles) ReadDirPage(ctx context.Context, p, after string, n int) ([]fs.DirEntry, error) {
	page, err := f.x.job.FS.ReadDirPage(ctx, p, after, n)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(page))
	for i, e := range page {
		out[i] = dirEntry{e: e, dir: p, x: f.x, ctx: ctx}
	}
	return out, nil
}

var _ dinterp.DirPager = deskFiles{}

// budget is the execution's memory budget as the interpreter's Memory.
type budget struct{ x *execution }

func (b budget) Grow(n int64) error { return b.x.mem.add(n) }

// runDesk runs the parsed script on desk's interpreter.
func (x *execution) runDesk() (run.Outcome, error) {
	o := &x.b.opts
	env, cwd := x.startEnv()
	var envList []string
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	var stdin io.Reader
	if x.job.Stdin != nil {
		if l, ok := x.job.Stdin.(interface{ Len() int }); !ok || l.Len() > 0 {
			stdin = ctxReader{x.ctx, x.job.Stdin}
		}
	}
	cfg := &dinterp.Config{
		Stdin: stdin, Stdout: x.stdout, Stderr: x.stderr,
		Dir: cwd, Env: envList,
		Files: deskFiles{x},
		Mem:   budget{x},
		Limits: dinterp.Limits{
			MaxCommands: o.MaxCommands, MaxLoopIters: o.MaxLoopIters, MaxCallDepth: int64(o.MaxCallDepth),
			MaxStringBytes: o.MaxStringBytes, MaxArgs: o.MaxArgs, MaxGlobEntries: int64(o.MaxGlobEntries), MaxBraceWords: int64(o.MaxBraceWords),
			MaxReadBytes: int(o.MaxReadBytes), MaxVarBytes: int64(o.MaxVarBytes),
		},
		Limit:      func(name string, v int64) error { return x.limit(name, v) },
		HasCommand: x.hasCommand,
		Pid:        execPid(x.job.ID),
		Enter:      x.cpu.Enter,
		Block:      x.cpu.Pause,
	}
	cfg.Exec = func(ctx context.Context, c *dinterp.Call) int { return x.deskExec(ctx, c) }
	r := dinterp.New(x.ctx, cfg)
	st, err := r.RunSource(x.job.Source)
	x.closeAll()
	if err != nil {
		return x.outcome(x.parentCtx, err)
	}
	if x.parentCtx.Err() != nil || x.limited() {
		return x.outcome(x.parentCtx, context.Cause(x.ctx))
	}
	return run.Outcome{ExitCode: st}, nil
}

// hasCommand reports whether the desk interpreter runs a command of that
// name: its own bash and sh, Options.Commands and package cmds.
func (x *execution) hasCommand(name string) bool {
	if name == "bash" || name == "sh" {
		return true
	}
	_, ok := x.lookup(name)
	return ok
}

// deskExec runs a command for the desk interpreter: bash/sh scripts in a
// child interpreter, else Options.Commands and package cmds.
func (x *execution) deskExec(ctx context.Context, c *dinterp.Call) int {
	name := c.Args[0]
	base := name
	if strings.Contains(name, "/") {
		dir, b := path.Split(name)
		if pathDirs[path.Clean(dir)] {
			base = b
		}
	}
	if base == "bash" || base == "sh" {
		return x.deskShell(ctx, c)
	}
	f, ok := x.lookup(name)
	if !ok {
		if strings.Contains(name, "/") {
			if fi, err := x.job.FS.Stat(ctx, resolve(c.Dir, name)); err == nil {
				if fi.IsDir() {
					fmt.Fprintf(c.Stderr, "%s%s: Is a directory\n", c.Prefix, name)
					return 126
				}
				if fi.Mode().Perm()&0o111 == 0 {
					fmt.Fprintf(c.Stderr, "%s%s: Permission denied\n", c.Prefix, name)
					return 126
				}
				return x.deskScriptFile(ctx, c, resolve(c.Dir, name), c.Args)
			}
			fmt.Fprintf(c.Stderr, "%s%s: No such file or directory\n", c.Prefix, name)
			return ExitNotFound
		}
		fmt.Fprintf(c.Stderr, "%s%s: command not found\n", c.Prefix, name)
		return ExitNotFound
	}
	if base := path.Base(name); streamFilters[base] {
		c = devStreamArg(c)
	}
	args, cleanup, err := x.materializeFds(ctx, c)
	defer cleanup()
	if err != nil {
		fmt.Fprintf(c.Stderr, "%s%v\n", c.Prefix, err)
		return 1
	}
	env := x.deskEnv(ctx, c)
	st := x.runCmd(f, env, args)
	return st
}

// streamFilters are the commands that read a file operand as they read
// their standard input, and name neither: devStreamArg gives them
// /dev/zero and /dev/urandom.
var streamFilters = map[string]bool{"dd": true, "head": true, "od": true, "base64": true, "xxd": true, "cat": true, "hexdump": true, "cut": true, "fold": true}

// devStreamArg gives a command whose only file operand is /dev/zero or
// /dev/urandom (/dev/random) the endless stream as its standard input,
// the operand as "-" (dd: if= dropped; cat takes other operands too):
// commands open files in the store, where the devices are not.
func devStreamArg(c *dinterp.Call) *dinterp.Call {
	at, dev := -1, ""
	dd, cat := path.Base(c.Args[0]) == "dd", path.Base(c.Args[0]) == "cat"
	for i, a := range c.Args[1:] {
		d := a
		if dd {
			d, _ = strings.CutPrefix(a, "if=")
			if d == a {
				continue
			}
		}
		switch d {
		case "/dev/zero", "/dev/urandom", "/dev/random":
			if at >= 0 {
				return c
			}
			at, dev = i+1, d
			continue
		}
		// another operand: the command would name them apart
		if !dd && !cat && !strings.HasPrefix(a, "-") && (i == 0 || !valueOpts[c.Args[i]]) {
			return c
		}
	}
	if at < 0 {
		return c
	}
	sub := *c
	sub.Args = append([]string(nil), c.Args...)
	if strings.HasPrefix(sub.Args[at], "if=") {
		sub.Args = append(sub.Args[:at], sub.Args[at+1:]...)
	} else {
		sub.Args[at] = "-"
	}
	sub.NoStdin = false
	if dev == "/dev/zero" {
		sub.Stdin = zeroReader{}
	} else {
		sub.Stdin = rand.Reader
	}
	return &sub
}

// valueOpts are the short options of streamFilters that take a value as
// the next argument.
var valueOpts = map[string]bool{"-c": true, "-n": true, "-N": true, "-j": true, "-w": true, "-A": true, "-t": true, "-s": true, "-l": true, "-b": true, "-f": true, "-d": true, "-i": true, "-C": true, "-o": true, "-x": true, "-e": true}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// fdDir is where materializeFds puts the content of /dev/fd/N arguments.
const fdDir = "/tmp/.desk-fd"

// materializeFds gives commands, which open files in the store, the
// arguments /dev/fd/N naming a process substitution <(...) (or another fd
// open for reading) as a store file holding what the fd reads, made
// before the command runs (within MaxReadBytes, charged to the memory
// budget) and removed after it. /dev/null is an empty file (what a command
// writes there is dropped with it), /dev/stdin what stdin reads; /dev/zero
// and /dev/urandom are not materialized: the commands of streamFilters get
// them as their standard input (devStreamArg), others ENOENT
// (redirections from them work).
func (x *execution) materializeFds(ctx context.Context, c *dinterp.Call) ([]string, func(), error) {
	var made []string
	cleanup := func() {
		for _, p := range made {
			x.job.FS.Remove(ctx, p)
		}
		if len(made) > 0 {
			x.job.FS.Remove(ctx, fdDir) // fails while another execution uses it
		}
	}
	args := c.Args
	for i, a := range c.Args {
		if i == 0 || c.Fd == nil {
			continue
		}
		var rd io.Reader
		switch a {
		case "/dev/null":
			rd = strings.NewReader("")
		case "/dev/stdin":
			rd = c.Fd(0)
		default:
			n, ok := strings.CutPrefix(a, "/dev/fd/")
			if !ok {
				continue
			}
			fd, err := strconv.Atoi(n)
			if err != nil || fd == 1 || fd == 2 {
				continue
			}
			rd = c.Fd(fd)
		}
		if rd == nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(rd, x.b.opts.MaxReadBytes+1))
		if err != nil {
			return nil, cleanup, fmt.Errorf("%s: %w", a, err)
		}
		if int64(len(data)) > x.b.opts.MaxReadBytes {
			return nil, cleanup, x.limit("MaxReadBytes", x.b.opts.MaxReadBytes)
		}
		if err := x.mem.add(int64(len(data))); err != nil {
			return nil, cleanup, err
		}
		x.mem.add(-int64(len(data)))
		if err := x.job.FS.MkdirAll(ctx, fdDir, 0o700); err != nil {
			return nil, cleanup, fmt.Errorf("%s: %w", a, err)
		}
		p := fmt.Sprintf("%s/%d-%d", fdDir, execPid(x.job.ID), x.fdSeq.Add(1))
		if err := x.job.FS.WriteFile(ctx, p, data, 0o600); err != nil {
			return nil, cleanup, fmt.Errorf("%s: %w", a, err)
		}
		made = append(made, p)
		if &args[0] == &c.Args[0] {
			args = append([]string(nil), c.Args...)
		}
		args[i] = p
	}
	return args, cleanup, nil
}

// deskShell is bash/sh [-c src [name args...]] [file args...].
func (x *execution) deskShell(ctx context.Context, c *dinterp.Call) int {
	args := c.Args[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-c" {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		args = args[1:] // -e -u -x... are not passed on (yet)
	}
	if len(args) > 0 && args[0] == "-c" {
		if len(args) < 2 {
			fmt.Fprintf(c.Stderr, "%s: -c: option requires an argument\n", c.Args[0])
			return 2
		}
		rest := args[2:]
		if len(rest) == 0 {
			rest = []string{path.Base(c.Args[0])}
		}
		return c.Sub(ctx, c, args[1], rest)
	}
	if len(args) == 0 {
		data, err := io.ReadAll(io.LimitReader(c.Stdin, x.b.opts.MaxReadBytes))
		if err != nil {
			return 1
		}
		return c.Sub(ctx, c, string(data), []string{path.Base(c.Args[0])})
	}
	return x.deskScriptFile(ctx, c, resolve(c.Dir, args[0]), args)
}

// deskScriptFile runs a workspace script in a child interpreter.
func (x *execution) deskScriptFile(ctx context.Context, c *dinterp.Call, abs string, args []string) int {
	data, err := x.readAll(ctx, abs)
	if err != nil {
		fmt.Fprintf(c.Stderr, "bash: %s: %s\n", args[0], capErrno{vfs.Errno(err)})
		if errors.Is(err, fs.ErrNotExist) {
			return ExitNotFound
		}
		return 126
	}
	src := string(data)
	if strings.HasPrefix(src, "#!") {
		line, _, _ := strings.Cut(src, "\n")
		interp := strings.Fields(line[2:])
		ok := len(interp) > 0 && (path.Base(interp[0]) == "bash" || path.Base(interp[0]) == "sh" ||
			path.Base(interp[0]) == "env" && len(interp) > 1 && (interp[1] == "bash" || interp[1] == "sh"))
		if !ok {
			fmt.Fprintf(c.Stderr, "bash: %s: cannot execute: %s\n", args[0], notExecutableSuffixText)
			return 126
		}
	}
	return c.SubFile(ctx, c, src, args)
}

// deskEnv is the cmds.Env of a call.
func (x *execution) deskEnv(ctx context.Context, c *dinterp.Call) *cmds.Env {
	environ := c.Environ
	env := &cmds.Env{
		Ctx: ctx, FS: x.job.FS, Dir: c.Dir,
		Stdin: ctxReader{ctx, c.Stdin}, NoStdin: c.NoStdin,
		Stdout: c.Stdout, Stderr: c.Stderr,
		Getenv: func(name string) string {
			for _, kv := range environ {
				if k, v, ok := strings.Cut(kv, "="); ok && k == name {
					return v
				}
			}
			return ""
		},
		Environ: func() []string { return environ },
		Limits:  cmds.Limits{MaxReadBytes: x.b.opts.MaxReadBytes},
		Now:     x.b.opts.Now,
		Net:     x.job.Net,
		// which and the like see the interpreter's own bash and sh too.
		HasCommand: x.hasCommand,
	}
	env.Exec = x.execFunc(func(ctx context.Context, e *cmds.Env, args []string) (int, bool) {
		if args[0] != "bash" && args[0] != "sh" && args[0] != "/bin/bash" && args[0] != "/bin/sh" {
			return 0, false
		}
		sub := *c
		sub.Args, sub.Stdin, sub.Stdout, sub.Stderr, sub.Dir = args, e.Stdin, e.Stdout, e.Stderr, e.Dir
		if e.Environ != nil {
			sub.Environ = e.Environ() // env -u, env X=1 ...
		}
		return x.deskShell(ctx, &sub), true
	})
	return env
}

// runDeskChecked prepares the working directory and runs the desk interpreter.
func (x *execution) runDeskChecked() (run.Outcome, error) {
	if !x.enterCwd() {
		return run.Outcome{ExitCode: 1}, nil
	}
	out, err := x.runDesk()
	if memDebug != nil {
		memDebug("peak %d\n", x.mem.peak.Load())
	}
	return out, err
}

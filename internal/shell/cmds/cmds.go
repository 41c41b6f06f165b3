package cmds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Env is everything a command sees. Commands never touch the host: files go
// through FS, the working directory is Dir, the environment is Getenv.
// NotFound is what Env.Exec returns for a name no command has. It is not an
// exit status: callers report the failure and exit 127 (or what their GNU
// counterpart does).
const NotFound = -1

type Env struct {
	Ctx   context.Context // cancelled on Kill and timeout: check it in loops
	FS    *vfs.FS         // the workspace; use Ctx (it carries the execution's actor)
	Dir   string          // the working directory, absolute within the workspace
	Stdin io.Reader
	// NoStdin is set when the script gave the command no standard input (Stdin
	// then reads as empty); tools that search stdin only when it is piped (rg)
	// look at it.
	NoStdin bool
	Stdout  io.Writer
	Stderr  io.Writer
	// Getenv returns an exported variable of the shell ("" if unset).
	Getenv func(name string) string
	// Environ lists the exported variables as "NAME=value", sorted.
	Environ func() []string
	// Exec runs another command (args[0] is its name) through the shell, with
	// the same Env, and returns its exit status; used by xargs, find -exec,
	// timeout, env and similar. When no command has that name it prints
	// nothing and returns NotFound, so the caller reports it in its own words
	// (as GNU tools do after a failed execvp).
	Exec func(ctx context.Context, env *Env, args []string) int
	// HasCommand reports whether the shell runs a command of that name:
	// its own programs (bash, sh), the commands the embedder added and this
	// package's (which and similar answer from it). Nil: this package's
	// registry only.
	HasCommand func(name string) bool
	// Limits bound what one command may do.
	Limits Limits
	// Mem is the memory budget of the execution: a command that holds
	// input (or anything that grows with it) charges it here before it
	// allocates it, and stops when a charge fails (the execution is then
	// over its budget and already stopping). Nil: no budget. What a
	// command still holds is returned when it ends.
	Mem Memory
	// Now is the clock of date, touch, find -mtime, ls and tar (nil: the
	// host's time.Now). The shell backend sets it from Options.Now.
	Now func() time.Time
	// Net is the execution's network (run.Job.Net), through which curl and
	// wget send every request; nil: no network (they fail with
	// run.ErrNoNetwork's message).
	Net http.RoundTripper
}

// Clock returns the current time from Now (time.Now when Now is nil).
func (e *Env) Clock() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

// Limits bound a command. The shell sets them from its options.
type Limits struct {
	// MaxReadBytes bounds what a command may hold in memory from one input
	// (sort, tac, a whole file for sed -i...). Past it: ErrTooLarge.
	MaxReadBytes int64
}

// Memory is a memory budget (Env.Mem).
type Memory interface {
	// Grow charges n more bytes (n < 0 returns them). It fails when the
	// budget cannot hold them.
	Grow(n int64) error
}

// Hold charges n bytes to Env.Mem (nothing without one).
func (e *Env) Hold(n int64) error {
	if e.Mem == nil || n == 0 {
		return nil
	}
	return e.Mem.Grow(n)
}

// Release returns n bytes to Env.Mem.
func (e *Env) Release(n int64) {
	if e.Mem != nil && n > 0 {
		e.Mem.Grow(-n)
	}
}

// ErrTooLarge is returned (and reported) when a command would hold more than
// Limits.MaxReadBytes in memory.
var ErrTooLarge = errors.New("input too large for the shell backend's memory limit")

// compileRegexp is regexp.Compile within grep's bounds (checkRegexp):
// sed, csplit, nl, tac and find compile through it.
func compileRegexp(expr string) (*regexp.Regexp, error) {
	if err := checkRegexp(expr); err != nil {
		return nil, err
	}
	return regexp.Compile(expr)
}

// gnuMessage is an error whose text is a GNU tool's own message, worded
// and capitalized as the tool prints it ("Invalid range end").
type gnuMessage string

func (m gnuMessage) Error() string { return string(m) }

// Func runs one command. args[0] is the name it was called by. It returns the
// exit status (0 success, 1 and 2 as the GNU tool does, 127 not found, ...).
// Output and diagnostics go to env.Stdout and env.Stderr; diagnostics are
// worded as GNU coreutils words them ("cat: x: No such file or directory").
type Func func(env *Env, args []string) int

var (
	mu       sync.RWMutex
	registry = map[string]Func{}
)

// Register makes f the command name. It panics on a duplicate (a programming
// error caught by the package's tests). Call it from an init function in the
// command's own file. "NAME --version" is answered for f where versionLines
// has a line for the name.
func Register(name string, f Func) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("cmds: command registered twice: " + name)
	}
	registry[name] = withVersion(name, f)
}

// Lookup returns the command name.
func Lookup(name string) (Func, bool) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := registry[name]
	return f, ok
}

// Names lists the registered commands in order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Abs resolves a path argument against the working directory.
func (e *Env) Abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return vfs.Clean(p)
	}
	return vfs.Clean(path.Join(e.Dir, p))
}

// Errorf prints "name: message" to Stderr.
func (e *Env) Errorf(name, format string, args ...any) {
	fmt.Fprintf(e.Stderr, "%s: %s\n", name, fmt.Sprintf(format, args...))
}

// PathError prints a GNU-style diagnostic for a failed operation on a path
// argument: "name: arg: No such file or directory". arg is the argument as
// the user wrote it.
func (e *Env) PathError(name, arg string, err error) {
	fmt.Fprintf(e.Stderr, "%s: %s: %s\n", name, arg, Strerror(err))
}

// Strerror renders an error as the C library's strerror does ("No such file or
// directory"), for errno errors; other errors as they are.
func Strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	if errors.Is(err, ErrTooLarge) {
		return ErrTooLarge.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Canceled reports whether the command should stop (Kill or timeout).
func (e *Env) Canceled() bool { return e.Ctx.Err() != nil }

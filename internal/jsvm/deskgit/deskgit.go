package deskgit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/gitws"
	"github.com/desk-dev/desk/internal/jsvm"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// Specifier is the module's import specifier.
const Specifier = "desk:git"

// DefaultMaxOutputBytes is Module.MaxOutputBytes when it is 0.
const DefaultMaxOutputBytes = 8 << 20

// Module is the desk:git host module. The zero value is ready to use.
type Module struct {
	// MaxOutputBytes bounds what one call's git writes to stdout and to
	// stderr, each (0: DefaultMaxOutputBytes). A call past it fails with
	// code E2BIG: narrow it (log's n, paths).
	MaxOutputBytes int64
	// MaxObjectBytes is gitws.Env.MaxObjectBytes (0: its default).
	MaxObjectBytes int64
	// Now is the clock of commit dates (nil: time.Now; tests fix it).
	Now func() time.Time
}

var _ jsvm.HostModule = (*Module)(nil)

// Modules returns the js backend's host modules with desk:git in it: what
// jsvm.Options.HostModules gets where the backend is built.
func Modules() map[string]jsvm.HostModule {
	return map[string]jsvm.HostModule{Specifier: &Module{}}
}

// Functions returns the module's functions for one execution: they run git
// on job.FS with the execution's environment and network.
func (m *Module) Functions(ctx context.Context, job *run.Job) map[string]jsvm.HostFunc {
	s := &session{m: m, job: job}
	fns := map[string]func(ctx context.Context, a *args) (any, error){
		"cli": s.cli, "init": s.init, "clone": s.clone, "status": s.status, "diff": s.diff,
		"log": s.log, "add": s.add, "commit": s.commit, "checkout": s.checkout,
		"branch": s.branch, "fetch": s.fetch, "pull": s.pull, "push": s.push,
		"revParse": s.revParse,
	}
	out := make(map[string]jsvm.HostFunc, len(fns))
	for name, f := range fns {
		out[name] = func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
			a, err := parseArgs(name, raw)
			if err != nil {
				return nil, err
			}
			v, err := f(ctx, a)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, nil
			}
			return json.Marshal(v)
		}
	}
	return out
}

// session is the module for one execution.
type session struct {
	m   *Module
	job *run.Job
}

// callError is a failed call as JavaScript sees it: an Error whose message
// is git's error text, with code (ERR_GIT for a non-zero exit status,
// ERR_INVALID_ARG_TYPE / ERR_INVALID_ARG_VALUE for bad arguments, E2BIG for
// output past the bound) and, for a git failure, exitCode, stderr and the
// command line (argv).
type callError struct {
	msg      string
	code     string
	exitCode int
	stderr   string
	argv     []string
}

func (e *callError) Error() string { return e.msg }

// Code is the error's code property.
func (e *callError) Code() string { return e.code }

// Props are the error's other properties (jsvm adds them to the Error).
func (e *callError) Props() map[string]any {
	if e.argv == nil {
		return nil
	}
	return map[string]any{"exitCode": e.exitCode, "stderr": e.stderr, "argv": e.argv}
}

func argError(code, format string, a ...any) error {
	return &callError{msg: fmt.Sprintf(format, a...), code: code}
}

// result is one git run.
type result struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

// run runs git argv (without "git") in dir (relative to the execution's
// cwd; "" the cwd itself), with stdin.
func (s *session) run(ctx context.Context, dir string, stdin string, argv ...string) (result, error) {
	limit := s.m.MaxOutputBytes
	if limit <= 0 {
		limit = DefaultMaxOutputBytes
	}
	stdout := &boundedBuffer{max: limit}
	stderr := &boundedBuffer{max: limit}
	env := &gitws.Env{
		Ctx: ctx, FS: s.job.FS, Dir: s.dir(dir),
		Stdin: strings.NewReader(stdin), Stdout: stdout, Stderr: stderr,
		Getenv:         func(k string) string { return s.job.Env[k] },
		Now:            s.m.Now,
		HTTPClient:     httpClient(s.job.Net),
		MaxObjectBytes: s.m.MaxObjectBytes,
	}
	code := gitws.Main(env, append([]string{"git"}, argv...))
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	if stdout.over || stderr.over {
		return result{}, &callError{code: "E2BIG", msg: fmt.Sprintf("git %s: output over %d bytes (narrow the call: paths, a count)", strings.Join(argv, " "), limit)}
	}
	return result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}, nil
}

// git runs argv and fails with a *callError unless it exits 0.
func (s *session) git(ctx context.Context, dir string, argv ...string) (result, error) {
	r, err := s.run(ctx, dir, "", argv...)
	if err != nil {
		return r, err
	}
	if r.Code != 0 {
		return r, gitError(r, argv)
	}
	return r, nil
}

// gitError is a git run's failure (a *callError): its message is git's
// error text (the "fatal: " or "error: " prefix dropped), else its output.
func gitError(r result, argv []string) error {
	msg := strings.TrimSpace(r.Stderr)
	if msg == "" {
		msg = strings.TrimSpace(r.Stdout)
	}
	for _, p := range []string{"fatal: ", "error: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	if msg == "" {
		msg = fmt.Sprintf("git %s exited with status %d", strings.Join(argv, " "), r.Code)
	}
	return &callError{msg: msg, code: "ERR_GIT", exitCode: r.Code, stderr: r.Stderr, argv: append([]string{"git"}, argv...)}
}

// dir resolves a directory option against the execution's cwd.
func (s *session) dir(d string) string {
	cwd := s.job.Cwd
	if cwd == "" {
		cwd = run.DefaultCwd
	}
	switch {
	case d == "":
		return cwd
	case strings.HasPrefix(d, "/"):
		return vfs.Clean(d)
	}
	return vfs.Clean(cwd + "/" + d)
}

// httpClient is git's client over the execution's network: nil (no
// network: gitws refuses http(s) remotes saying so) when there is none.
func httpClient(net http.RoundTripper) *http.Client {
	if net == nil {
		return nil
	}
	return &http.Client{Transport: egress.RefusalErrors(net)}
}

// boundedBuffer keeps at most max bytes and notes that more came.
type boundedBuffer struct {
	bytes.Buffer
	max  int64
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		b.over = true
		return 0, errors.New("output over the bound")
	}
	return b.Buffer.Write(p)
}

var _ io.Writer = (*boundedBuffer)(nil)

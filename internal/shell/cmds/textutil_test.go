package cmds

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// textRow is one table case for the text tools: args run with files and
// stdin through the shared harness must print out and errOut and exit code.
// confirm runs the same row through the real GNU tool unless skip says why not.
type textRow struct {
	name   string
	files  map[string]string
	stdin  string
	args   []string
	out    string
	errOut string
	code   int
	skip   string            // why the row differs from GNU (a divergence): confirm requires GNU to disagree
	env    map[string]string // extra environment (Getenv, Environ)
	now    time.Time         // Env.Now's time (zero: the host's clock)
	host   string            // why the real tool's answer depends on the host (not confirmed either way)
}

// runTextRows runs rows through the harness and, where the real tool is on
// the host, confirms each row against it in a temp dir.
func runTextRows(t *testing.T, rows []textRow) {
	t.Helper()
	for _, r := range rows {
		name := r.name
		if name == "" {
			name = strings.Join(r.args, " ")
		}
		t.Run(name, func(t *testing.T) {
			var out, errOut string
			var code int
			if r.env == nil && r.now.IsZero() {
				out, errOut, code = run(t, r.files, r.stdin, r.args...)
			} else {
				out, errOut, code = runTextEnv(t, r)
			}
			if out != r.out || errOut != r.errOut || code != r.code {
				t.Errorf("%q:\n got out=%q err=%q code=%d\nwant out=%q err=%q code=%d",
					r.args, out, errOut, code, r.out, r.errOut, r.code)
			}
		})
	}
	t.Run("confirm", func(t *testing.T) {
		for _, r := range rows {
			if r.host == "" {
				confirmRow(t, r)
			}
		}
	})
}

// confirmRow runs one row through the host's GNU tool in a temp dir: it
// must meet the row's expectations, or, for a row marked as a divergence
// (skip), must not.
func confirmRow(t *testing.T, r textRow) {
	t.Helper()
	h, ok := runHost(t, r.args, r.files, r.env, r.stdin)
	if !ok {
		return
	}
	out, errOut, code := h.out, h.errOut, h.code
	same := out == r.out && errOut == r.errOut && code == r.code
	if r.skip != "" {
		if same {
			t.Errorf("GNU %q agrees with a row marked as a divergence (%s)", r.args, r.skip)
		}
		return
	}
	if !same {
		t.Errorf("GNU %q:\n gnu out=%q err=%q code=%d\nwant out=%q err=%q code=%d",
			r.args, out, errOut, code, r.out, r.errOut, r.code)
	}
}

func TestParseOpts(t *testing.T) {
	var errb bytes.Buffer
	env := &Env{Stderr: &errb}
	opts, ops, ok := parseOpts(env, "x", []string{"-n5", "a", "--lines=3", "-qv", "--", "-b"},
		optSpec{shorts: "n:qv", longs: []string{"lines=", "quiet"}})
	if !ok || len(opts) != 4 || opts[0] != (opt{"n", "5"}) || opts[1] != (opt{"lines", "3"}) ||
		strings.Join(ops, ",") != "a,-b" {
		t.Fatalf("%v %v %v %s", opts, ops, ok, errb.String())
	}
	if _, _, ok := parseOpts(env, "x", []string{"--qu"}, optSpec{longs: []string{"quiet", "quick"}}); ok {
		t.Fatal("ambiguous accepted")
	}
}

type bytesBuffer = bytes.Buffer

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// testEcho is echo for commands run by xargs, env and timeout in tests (the
// shell's echo is the interpreter's builtin).
func testEcho(env *Env, args []string) int {
	env.Stdout.Write([]byte(strings.Join(args[1:], " ") + "\n"))
	return 0
}

// runTextEnv runs a row with harnessEnv and r.env, and an Exec that knows
// echo besides the registered commands.
func runTextEnv(t *testing.T, r textRow) (string, string, int) {
	t.Helper()
	vars, list := harnessVars(r.env)
	var out, errb bytes.Buffer
	env := &Env{
		Ctx: context.Background(), FS: newStore(t, r.files), Dir: "/work",
		Stdin: strings.NewReader(r.stdin), Stdout: &out, Stderr: &errb,
		Getenv:  func(name string) string { return vars[name] },
		Environ: func() []string { return list },
		Limits:  Limits{MaxReadBytes: 64 << 20},
	}
	if !r.now.IsZero() {
		env.Now = func() time.Time { return r.now }
	}
	env.Exec = testExec
	fn, ok := Lookup(r.args[0])
	if !ok {
		t.Fatalf("command %q is not registered", r.args[0])
	}
	status := fn(env, r.args)
	return out.String(), errb.String(), status
}

// testExec is an Env.Exec for tests: echo, then the registered commands.
func testExec(ctx context.Context, e *Env, a []string) int {
	if a[0] == "echo" {
		return testEcho(e, a)
	}
	fn, ok := Lookup(a[0])
	if !ok {
		return NotFound
	}
	ce := *e
	ce.Ctx = ctx
	return fn(&ce, a)
}

// hostProgram names the host program a row's command is confirmed against
// where that is not the command's own name on PATH. The awk rows are
// written against mawk, Debian's default awk (their divergences name it):
// with gawk installed too (make bench-setup, for the awk benchmarks) Debian
// points /usr/bin/awk at gawk, so the rows name mawk.
var hostProgram = map[string]string{"awk": "mawk"}

// hostRun is a run of a host tool for a table row: its output, error
// output and exit status, and the temp dir it ran in.
type hostRun struct {
	out, errOut string
	code        int
	dir         string
}

// runHost runs args through the host's tool in a new temp dir holding
// files (a name ending in "/" is a directory, a value "->T" a symlink to
// T), with the harness's environment (harnessEnv: LANG=C.UTF-8) and env
// over it, and stdin as its input. It is false for a row the host cannot
// run (a file at an absolute path).
func runHost(t *testing.T, args []string, files, env map[string]string, stdin string) (hostRun, bool) {
	t.Helper()
	prog := args[0]
	if p, ok := hostProgram[prog]; ok {
		prog = p
	}
	bin, err := exec.LookPath(prog)
	if err != nil {
		requireTool(t, prog)
	}
	dir := t.TempDir()
	for n, v := range files {
		if strings.HasPrefix(n, "/") {
			return hostRun{}, false
		}
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if strings.HasPrefix(v, "->") {
			os.Symlink(strings.TrimPrefix(v, "->"), p)
			continue
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Dir = dir
	cmd.Env = []string{"LANG=C.UTF-8", "TZ=UTC", "HOME=/work", "USER=user", "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return hostRun{out.String(), errb.String(), code, dir}, true
}

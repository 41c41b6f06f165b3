package sandbox

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

func TestRun_ExitCodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if out := e.ok("echo hi"); out != "hi\n" {
		t.Errorf("echo hi: stdout %q", out)
	}
	for src, want := range map[string]int{"exit 3": 3, "false": 1, "kill -9 $$": 137, "nosuchcommand": 127} {
		res := e.run(src, run.ExecOptions{})
		if res.Status != run.StatusCompleted || res.ExitCode != want {
			t.Errorf("%q: status %s exit %d, want completed %d (stderr %q)", src, res.Status, res.ExitCode, want, res.Stderr)
		}
	}
}

func TestRun_Stdin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	res := e.run("cat; echo end", run.ExecOptions{Stdin: strings.NewReader("line one\nline two\n")})
	if res.Stdout != "line one\nline two\nend\n" {
		t.Errorf("cat: stdout %q", res.Stdout)
	}
	// More than the window, both ways: stdin in, the same bytes out.
	big := bytes.Repeat([]byte("0123456789abcdef"), 128<<10) // 2 MiB
	res = e.run("cat | sha256sum | cut -c1-16; echo done", run.ExecOptions{Stdin: bytes.NewReader(big)})
	if res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "done\n") || len(res.Stdout) != 17+5 {
		t.Errorf("2 MiB through cat: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	res = e.run("wc -c", run.ExecOptions{Stdin: bytes.NewReader(big), OutputLimit: 64 << 20})
	if strings.TrimSpace(res.Stdout) != "2097152" {
		t.Errorf("wc -c: %q", res.Stdout)
	}
	// A program that stops reading early does not hang the execution.
	res = e.run("head -c 5", run.ExecOptions{Stdin: bytes.NewReader(big)})
	if res.Stdout != "01234" || res.ExitCode != 0 {
		t.Errorf("head -c 5: exit %d stdout %q", res.ExitCode, res.Stdout)
	}
	// No stdin: an immediate end of file.
	if out := e.ok("cat; echo eof"); out != "eof\n" {
		t.Errorf("no stdin: %q", out)
	}
}

func TestRun_LargeOutput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	res := e.run("head -c 5000000 /dev/zero | tr '\\0' x; echo", run.ExecOptions{OutputLimit: 8 << 20})
	if res.ExitCode != 0 || len(res.Stdout) != 5000001 {
		t.Errorf("5 MB of output: exit %d, got %d bytes (stderr %q)", res.ExitCode, len(res.Stdout), res.Stderr)
	}
}

func TestRun_Env(t *testing.T) {
	os.Setenv("DESK_TEST_HOST_SECRET", "leaked")
	defer os.Unsetenv("DESK_TEST_HOST_SECRET")
	e := newEnv(t, Options{})
	res := e.run("env | sort", run.ExecOptions{Env: map[string]string{"FOO": "bar baz"}})
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	if env["FOO"] != "bar baz" {
		t.Errorf("FOO=%q, want the execution's value", env["FOO"])
	}
	if !strings.HasPrefix(env["PATH"], "/home/agent/.local/bin:") || env["NPM_CONFIG_PREFIX"] != "/home/agent/.local" {
		t.Errorf("PATH=%q NPM_CONFIG_PREFIX=%q", env["PATH"], env["NPM_CONFIG_PREFIX"])
	}
	if env["HOME"] != "/home/agent" || env["HOSTNAME"] != "ws" || env["DESK_EXEC_ID"] == "" || env["TMPDIR"] != "/tmp" {
		t.Errorf("HOME=%q HOSTNAME=%q DESK_EXEC_ID=%q TMPDIR=%q", env["HOME"], env["HOSTNAME"], env["DESK_EXEC_ID"], env["TMPDIR"])
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "HOSTNAME": true,
		"LANG": true, "TERM": true, "TMPDIR": true, "FOO": true, "DESK_EXEC_ID": true, "NPM_CONFIG_PREFIX": true, "PIP_BREAK_SYSTEM_PACKAGES": true,
		"PWD": true, "SHLVL": true, "_": true} // the last three are bash's own
	for k := range env {
		if !allowed[k] {
			t.Errorf("unexpected variable %s=%q in the sandbox", k, env[k])
		}
	}
	if strings.Contains(res.Stdout, "leaked") {
		t.Error("the host's environment leaked into the sandbox")
	}
	// An explicit HOME wins.
	if out := e.run("echo $HOME", run.ExecOptions{Env: map[string]string{"HOME": "/tmp"}}).Stdout; out != "/tmp\n" {
		t.Errorf("explicit HOME: %q", out)
	}
}

func TestRun_Cwd(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	if err := os.MkdirAll(filepath.Join(e.wsDir, "sub/dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := e.ok("pwd"); out != "/workspace\n" {
		t.Errorf("default cwd: %q", out)
	}
	if out := e.run("pwd", run.ExecOptions{Cwd: "/workspace/sub/dir"}).Stdout; out != "/workspace/sub/dir\n" {
		t.Errorf("cwd /workspace/sub/dir: %q", out)
	}
	if out := e.run("pwd", run.ExecOptions{Cwd: "/tmp"}).Stdout; out != "/tmp\n" {
		t.Errorf("cwd /tmp: %q", out)
	}
	res := e.run("pwd", run.ExecOptions{Cwd: "/workspace/missing"})
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "working directory /workspace/missing: No such file or directory") {
		t.Errorf("missing cwd: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}

// TestRun_StreamOrder checks that output is streamed, in order: the script
// waits for a line of input after each output, and the test sends it only
// once the output has arrived, so output held back until the end would stop
// the test at the hang guard.
func TestRun_StreamOrder(t *testing.T) {
	e := newEnv(t, Options{})
	e.ok("true") // warm
	in, feed := io.Pipe()
	defer feed.Close()
	x, err := e.r.Exec(ctx(t), "echo one; read a; echo two >&2; read a; echo three; read a; echo four >&2", run.ExecOptions{Stdin: in})
	if err != nil {
		t.Fatal(err)
	}
	s := x.Events(0)
	var got []string
	want := []string{"stdout:one", "stderr:two", "stdout:three", "stderr:four"}
	for len(got) < len(want) {
		ev, err := s.Next(ctx(t))
		if err != nil {
			t.Fatalf("after events %v: %v (output not streamed while the script waits for input?)", got, err)
		}
		if ev.Type == run.EventStdout || ev.Type == run.EventStderr {
			got = append(got, string(ev.Type)+":"+strings.TrimSpace(string(ev.Data)))
			if len(got) < len(want) {
				go feed.Write([]byte("\n")) // the script reads it next
			}
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("events %v, want %v", got, want)
	}
	if res, err := x.Wait(ctx(t)); err != nil || res.ExitCode != 0 {
		t.Errorf("Wait: %+v, %v", res, err)
	}
}

func TestRun_KillKillsGrandchildren(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{KillGrace: 500 * time.Millisecond})
	x, err := e.r.Exec(ctx(t), "sleep 1000 & sleep 1000; wait", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bx := func() *box { return e.box() }
	waitFor(t, 5*time.Second, "two sleeps", func() bool { return bx() != nil && countProcs(t, bx(), "sleep") == 2 })
	if err := x.Kill(run.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusCancelled || res.ExitCode != 143 {
		t.Errorf("status %s exit %d, want cancelled 143", res.Status, res.ExitCode)
	}
	if n := countProcs(t, bx(), "sleep"); n != 0 {
		t.Errorf("%d sleep processes left after Kill", n)
	}
	if out := e.ok("ps -e -o comm= | sort | tr '\\n' ' '"); strings.Contains(out, "sleep") {
		t.Errorf("processes in the sandbox after Kill: %s", out)
	}
}

func TestRun_LeftoversKilledAtExit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	// A background job outlives the script; setsid makes another escape its session.
	res := e.run("sleep 1000 & setsid sleep 999 & echo started", run.ExecOptions{})
	if res.Stdout != "started\n" {
		t.Fatalf("status %s exit %d error %q stdout %q stderr %q", res.Status, res.ExitCode, res.Error, res.Stdout, res.Stderr)
	}
	if n := countProcs(t, e.box(), "sleep"); n != 0 {
		t.Errorf("%d sleep processes left after the execution ended", n)
	}
}

// TestRun_TimeoutTermThenKill: at the timeout a script gets SIGTERM, and
// SIGKILL KillGrace later if it is still there.
func TestRun_TimeoutTermThenKill(t *testing.T) {
	const timeout, grace = 500 * time.Millisecond, 700 * time.Millisecond
	t.Run("handled", func(t *testing.T) {
		// A script that handles SIGTERM ends on it: with a grace longer
		// than the step's hang guard (ctx), waiting out the grace would
		// fail the test.
		e := newEnv(t, Options{KillGrace: time.Hour})
		e.ok("true")
		res := e.run("trap 'echo got TERM; exit 7' TERM; sleep 1000 & wait", run.ExecOptions{Timeout: timeout})
		if res.Status != run.StatusTimedOut || !strings.Contains(res.Stdout, "got TERM") {
			t.Errorf("TERM handled: status %s stdout %q stderr %q", res.Status, res.Stdout, res.Stderr)
		}
	})
	t.Run("ignored", func(t *testing.T) {
		// One that ignores it is killed, and not before KillGrace has
		// passed (a lower bound: a slow machine only makes it later).
		e := newEnv(t, Options{KillGrace: grace})
		e.ok("true")
		res := e.run("trap '' TERM; sleep 1000", run.ExecOptions{Timeout: timeout})
		if res.Status != run.StatusTimedOut {
			t.Errorf("TERM ignored: status %s", res.Status)
		}
		if d := res.Duration(); d < timeout+grace-100*time.Millisecond {
			t.Errorf("TERM ignored: killed after %v, before timeout + grace (%v)", d, timeout+grace)
		}
		if n := countProcs(t, e.box(), "sleep"); n != 0 {
			t.Errorf("%d sleep processes left", n)
		}
	})
}

func TestRun_OwnWallTimeLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Timeout: 500 * time.Millisecond, KillGrace: 200 * time.Millisecond})
	res := e.run("sleep 10", run.ExecOptions{})
	if res.Status != run.StatusCompleted || res.ExitCode != run.ExitTimedOut ||
		!strings.Contains(res.Stderr, "desk: sandbox: killed: the wall time limit of 500ms per execution was reached") {
		t.Errorf("status %s exit %d stderr %q", res.Status, res.ExitCode, res.Stderr)
	}
}

func TestLimits_ForkBomb(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Pids: 64, KillGrace: 300 * time.Millisecond})
	// Started first: the timeout below covers the execution, not a cold
	// start (making the root skeleton takes hundreds of ms on a loaded
	// machine under -race).
	e.ok("true")
	// The classic bomb, with the script kept alive so that it runs until the timeout.
	res := e.run(":(){ :|:& };:; sleep 100", run.ExecOptions{Timeout: time.Second})
	if res.Status != run.StatusTimedOut {
		t.Errorf("fork bomb: status %s", res.Status)
	}
	if !strings.Contains(res.Stderr, "desk: sandbox: limit: a fork failed: the sandbox reached its process limit (64 processes and threads)") {
		t.Errorf("fork bomb: stderr does not name the limit: %q", tail(res.Stderr))
	}
	// The sandbox is usable again and the bomb is gone.
	out := e.ok("ps -e -o comm= | wc -l")
	if n := strings.TrimSpace(out); n > "4" || len(n) > 1 {
		t.Errorf("%s processes in the sandbox after the fork bomb", n)
	}
}

func TestLimits_OutOfMemory(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{Memory: 32 << 20})
	res := e.run("x=$(head -c 100000000 /dev/zero | tr '\\0' x); echo survived", run.ExecOptions{})
	if res.ExitCode != 137 || !strings.Contains(res.Stderr, "desk: sandbox: killed: out of memory (limit 32 MiB)") {
		t.Errorf("exit %d status %s error %q stdout %q stderr %q", res.ExitCode, res.Status, res.Error, res.Stdout, tail(res.Stderr))
	}
	if out := e.ok("echo alive"); out != "alive\n" {
		t.Errorf("after OOM: %q", out)
	}
}

// tail returns the end of a long string.
func tail(s string) string {
	if len(s) > 500 {
		return "..." + s[len(s)-500:]
	}
	return s
}

// countProcs counts the sandbox's processes named comm, seen from the host.
func countProcs(t testing.TB, x *box, comm string) int {
	if t != nil {
		t.Helper()
	}
	return liveProcs(x, func(dir string) bool {
		c, _ := os.ReadFile(dir + "/comm")
		return strings.TrimSpace(string(c)) == comm
	})
}

// liveProcs counts the sandbox's live (not zombie) processes, seen from the
// host, for which match (given the process's /proc directory) is true.
func liveProcs(x *box, match func(dir string) bool) int {
	if x == nil {
		return 0
	}
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, d := range ents {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		dir := "/proc/" + d.Name()
		ns, err := os.Readlink(dir + "/ns/pid")
		if err != nil || ns != x.pidNS() {
			continue
		}
		st, _ := os.ReadFile(dir + "/stat")
		if match(dir) && !bytes.Contains(st, []byte(") Z ")) {
			n++
		}
	}
	return n
}

// TestRun_Usage checks that the init's CPU time and peak RSS reach the
// execution's record (run.Info.Usage): 50 MB through a pipe costs CPU time,
// and a 20 MB string held by the shell shows in the peak RSS.
func TestRun_Usage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	res := e.run(`head -c 50000000 /dev/zero | tail -c 1 >/dev/null; x=$(head -c 20000000 /dev/zero | tr '\0' x); echo ${#x}`, run.ExecOptions{})
	if res.Status != run.StatusCompleted || res.ExitCode != 0 || res.Stdout != "20000000\n" {
		t.Fatalf("status %s, exit %d, stdout %q, stderr %q", res.Status, res.ExitCode, res.Stdout, tail(res.Stderr))
	}
	u := res.Usage
	if u == nil {
		t.Fatal("no usage in the record")
	}
	if u.UserTime+u.SysTime <= 0 || u.UserTime < 0 || u.SysTime < 0 {
		t.Errorf("CPU time: user %v sys %v, want some", u.UserTime, u.SysTime)
	}
	if u.MaxRSS < 16<<20 || u.MaxRSS > 1<<30 {
		t.Errorf("peak RSS %d bytes, want between 16 MiB and the 1 GiB limit", u.MaxRSS)
	}
	t.Logf("usage: user %v sys %v max_rss %d KiB", u.UserTime, u.SysTime, u.MaxRSS>>10)
	// A program that exits with an error is measured too.
	if res := e.run("exit 3", run.ExecOptions{}); res.ExitCode != 3 || res.Usage == nil || res.Usage.MaxRSS <= 0 {
		t.Errorf("exit 3: exit %d, usage %+v", res.ExitCode, res.Usage)
	}
}

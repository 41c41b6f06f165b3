package sandbox

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// shellReader collects a shell session's output on a goroutine of its own.
type shellReader struct {
	mu   sync.Mutex
	buf  strings.Builder
	more chan struct{} // a token after each read
	done chan struct{} // closed when Read failed
	err  error
}

func readShell(sh *ShellSession) *shellReader {
	r := &shellReader{more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		b := make([]byte, 4096)
		for {
			n, err := sh.Read(b)
			r.mu.Lock()
			r.buf.Write(b[:n])
			if err != nil {
				r.err = err
			}
			r.mu.Unlock()
			select {
			case r.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *shellReader) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// until waits until the output holds want (after the offset from) and
// returns the offset just past it.
func (r *shellReader) until(t *testing.T, from int, want string) int {
	t.Helper()
	c := ctx(t)
	for {
		s := r.String()
		if i := strings.Index(s[from:], want); i >= 0 {
			return from + i + len(want)
		}
		select {
		case <-r.more:
		case <-r.done:
			if s := r.String(); !strings.Contains(s[from:], want) {
				t.Fatalf("the shell's output ended (%v) without %q:\n%s", r.err, want, s)
			}
		case <-c.Done():
			t.Fatalf("no %q in the shell's output:\n%s", want, s)
		}
	}
}

// end waits for the end of the output and returns all of it.
func (r *shellReader) end(t *testing.T) string {
	t.Helper()
	select {
	case <-r.done:
	case <-ctx(t).Done():
		t.Fatalf("the shell's output did not end:\n%s", r.String())
	}
	if !errors.Is(r.err, io.EOF) {
		t.Errorf("the output ended with %v, want EOF", r.err)
	}
	return r.String()
}

func (e *env) users() int {
	e.b.mu.Lock()
	defer e.b.mu.Unlock()
	if x := e.b.boxes["ws"]; x != nil {
		return x.users
	}
	return 0
}

// TestShell_Terminal: a login shell on a real terminal of the sandbox, with
// the window size and TERM asked for, its files in the workspace's store
// attributed to the session, and its exit code.
func TestShell_Terminal(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	sh, err := e.b.Shell(ctx(t), Workspace{FS: e.fs}, ShellOptions{ID: "shell-test", Term: "vt220"})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if sh.ID() != "shell-test" || sh.PID() <= 1 {
		t.Errorf("ID %q, PID %d", sh.ID(), sh.PID())
	}
	if n := e.users(); n != 1 {
		t.Errorf("the sandbox has %d users while a shell is open, want 1", n)
	}
	out := readShell(sh)
	if err := sh.Resize(40, 132); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(sh, "stty size; tty; echo TERM=$TERM; pwd; echo made > /workspace/from-shell; exit 3\n"); err != nil {
		t.Fatal(err)
	}
	all := out.end(t)
	code, err := sh.Wait(ctx(t))
	if err != nil || code != 3 {
		t.Errorf("Wait: %d, %v; want 3", code, err)
	}
	for _, want := range []string{"40 132\r\n/dev/pts/", "\r\nTERM=vt220\r\n/workspace\r\n"} {
		if !strings.Contains(all, want) {
			t.Errorf("the output lacks %q:\n%s", want, all)
		}
	}
	b, err := e.fs.ReadFile(ctx(t), "/workspace/from-shell")
	if err != nil || string(b) != "made\n" {
		t.Errorf("the file made in the shell, in the store: %q, %v", b, err)
	}
	chs, err := e.fs.Changes(ctx(t), 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range chs {
		if c.Path == "/workspace/from-shell" {
			found = true
			if c.Actor != "shell-test" {
				t.Errorf("%s %s by %q, want the session's id", c.Op, c.Path, c.Actor)
			}
		}
	}
	if !found {
		t.Error("no change in the journal for the file made in the shell")
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	if n := e.users(); n != 0 {
		t.Errorf("the sandbox has %d users after the shell ended", n)
	}
	if _, err := sh.Write([]byte("x")); !errors.Is(err, ErrShellEnded) {
		t.Errorf("Write after the end: %v", err)
	}
}

// TestShell_CloseKillsProcesses: closing a running session hangs it up; what
// it left running, even what ignores SIGHUP, is gone.
func TestShell_CloseKillsProcesses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{KillGrace: 200 * time.Millisecond})
	sh, err := e.b.Shell(ctx(t), Workspace{Name: "ws", FS: e.fs}, ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := readShell(sh)
	io.WriteString(sh, "sleep 1000 & nohup sleep 999 >/dev/null 2>&1 & echo started-$((40+2))\n")
	out.until(t, 0, "started-42")
	// The background jobs may not have exec'd sleep yet.
	waitFor(t, 10*time.Second, "two sleeps", func() bool { return countProcs(t, e.box(), "sleep") == 2 })
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	code, err := sh.Wait(ctx(t))
	if err != nil || code != 129 {
		t.Errorf("Wait after Close: %d, %v; want 129 (SIGHUP)", code, err)
	}
	if n := countProcs(t, e.box(), "sleep"); n != 0 {
		t.Errorf("%d sleeps survived the session", n)
	}
	got := e.ok(`n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done; echo $n`)
	if got != "0\n" {
		t.Errorf("a later execution sees %q sleeps", got)
	}
	if _, err := sh.Read(make([]byte, 10)); !errors.Is(err, ErrShellEnded) {
		t.Errorf("Read after Close: %v", err)
	}
	if n := e.users(); n != 0 {
		t.Errorf("the sandbox has %d users after Close", n)
	}
}

// TestShell_InterruptAndEOF: ^C typed on the terminal interrupts the
// foreground job (the line discipline turns it into SIGINT), and the end of
// input at the prompt ends the shell like ^D.
func TestShell_InterruptAndEOF(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	sh, err := e.b.Shell(ctx(t), Workspace{Name: "ws", FS: e.fs}, ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	out := readShell(sh)
	io.WriteString(sh, "sleep 100; echo not-$((1))-interrupted\n")
	waitFor(t, 10*time.Second, "sleep", func() bool { return countProcs(t, e.box(), "sleep") == 1 })
	io.WriteString(sh, "\x03")
	io.WriteString(sh, "PS1='P''ROMPT> '; echo after-$((2+3))\n")
	at := out.until(t, 0, "after-5")
	out.until(t, at, "PROMPT> ")
	if err := sh.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	all := out.end(t)
	code, err := sh.Wait(ctx(t))
	if err != nil || code != 0 {
		t.Errorf("Wait: %d, %v; want 0 (the last command's status)", code, err)
	}
	if strings.Contains(all, "not-1-interrupted") {
		t.Errorf("^C did not interrupt the command list:\n%s", all)
	}
	if _, err := sh.Write([]byte("x")); !errors.Is(err, ErrShellEnded) {
		t.Errorf("Write after CloseWrite: %v", err)
	}
}

func TestShell_Options(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]ShellOptions{
		"rows":   {Rows: -1},
		"cols":   {Cols: 70000},
		"term":   {Term: "xterm; rm -rf /"},
		"id":     {ID: "-bad"},
		"cwd":    {Cwd: "relative"},
		"length": {Term: strings.Repeat("x", MaxTermLen+1)},
	} {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("%s: %+v accepted", name, o)
		}
	}
	o, err := ShellOptions{}.withDefaults()
	if err != nil || o.Rows != DefaultShellRows || o.Cols != DefaultShellCols || o.Term != DefaultShellTerm ||
		o.Timeout != DefaultShellTimeout || !strings.HasPrefix(o.ID, "shell-") || o.Cwd != "/workspace" {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	if o, _ := (ShellOptions{Timeout: -1}).withDefaults(); o.Timeout != 0 {
		t.Errorf("a negative timeout is %v, want none", o.Timeout)
	}
	b := &Backend{}
	if _, err := b.Shell(context.Background(), Workspace{Name: "ws"}, ShellOptions{}); err == nil {
		t.Error("a shell without a store started")
	}
}

// TestShell_StartFails: a shell that cannot start is an error of Shell, and
// gives the sandbox back.
func TestShell_StartFails(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	_, err := e.b.Shell(ctx(t), Workspace{Name: "ws", FS: e.fs}, ShellOptions{Cwd: "/nonexistent"})
	if err == nil || !strings.Contains(err.Error(), "working directory /nonexistent: No such file or directory") {
		t.Errorf("Shell in a missing directory: %v", err)
	}
	if n := e.users(); n != 0 {
		t.Errorf("the sandbox has %d users after a failed start", n)
	}
	// The sandbox is fine: the next shell starts.
	sh, err := e.b.Shell(ctx(t), Workspace{Name: "ws", FS: e.fs}, ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := readShell(sh)
	io.WriteString(sh, "exit 7\n")
	out.end(t)
	if code, err := sh.Wait(ctx(t)); err != nil || code != 7 {
		t.Errorf("Wait: %d, %v", code, err)
	}
	sh.Close()
}

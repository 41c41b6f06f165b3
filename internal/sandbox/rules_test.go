package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// decisions collects what a backend's DecisionHook sees.
type decisions struct {
	mu sync.Mutex
	ds []policy.Decision
	ch chan struct{}
}

func (e *env) decisions() *decisions {
	d := &decisions{ch: make(chan struct{}, 1000)}
	e.b.SetDecisionHook(func(ws, exec string, x policy.Decision) {
		d.mu.Lock()
		d.ds = append(d.ds, x)
		d.mu.Unlock()
		select {
		case d.ch <- struct{}{}:
		default:
		}
	})
	return d
}

// take returns and forgets the decisions seen so far.
func (d *decisions) take() []policy.Decision {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.ds
	d.ds = nil
	return out
}

// commandSet is one workspace layer of command rules.
func commandSet(t testing.TB, def policy.Action, rules ...string) policy.Set {
	t.Helper()
	p := policy.Policy{DefaultCommand: def}
	for _, r := range rules {
		c, err := policy.ParseCommandRule(r)
		if err != nil {
			t.Fatal(err)
		}
		p.Commands = append(p.Commands, c)
	}
	v, err := p.Validate()
	if err != nil {
		t.Fatal(err)
	}
	return policy.Set{{Source: policy.SourceWorkspace, Policy: v}}
}

// runSet runs src on the backend with set in force (as run's Gate leaves
// it on the context; nil: no policy) and returns its exit code, stdout and
// stderr.
func (e *env) runSet(set policy.Set, id, src string) (int, string, string) {
	e.t.Helper()
	c := ctx(e.t)
	if set != nil {
		c = policy.WithSet(c, set)
	}
	var out, errb bytes.Buffer
	job := &run.Job{ID: id, Backend: ID, Source: src, Cwd: run.DefaultCwd, Env: run.DefaultEnv(),
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: e.fs}
	o, err := e.b.Run(c, job)
	if err != nil {
		e.t.Fatalf("Run(%q): %v", src, err)
	}
	return o.ExitCode, out.String(), errb.String()
}

// pyCtypes is python preamble for calling system calls by number.
const pyCtypes = `import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def cargv(words):
    a = (ctypes.c_char_p * (len(words) + 1))(*[w.encode() for w in words], None)
    return a
`

// TestExecRules_Deny: a command denied by a rule is refused at execve
// however the script reaches it — through $cmd, python's subprocess, env,
// a script file's own commands, fexecve, execveat relative to a directory
// descriptor, a symbolic link — with EACCES and one record each; allowed
// programs run.
func TestExecRules_Deny(t *testing.T) {
	e := newEnv(t, Options{})
	ds := e.decisions()
	set := commandSet(t, "", "deny whoami", "deny ls /etc")
	for _, tc := range []struct {
		name, src string
		want      string // in stdout
		subject   string // the recorded command line
	}{
		{"$cmd", `cmd=whoami; $cmd; echo "rc=$?"`, "rc=126", "/usr/bin/whoami"},
		{"argument pattern", `d=/etc; ls $d; echo "rc=$?"`, "rc=126", "/usr/bin/ls /etc"},
		{"python subprocess", `python3 -c "
import subprocess
try:
    subprocess.run(['whoami'])
except PermissionError as e:
    print('errno', e.errno)"`, "errno 13", "/usr/bin/whoami"},
		{"env", `env whoami; echo "rc=$?"`, "rc=126", "/usr/bin/whoami"},
		{"script file", `printf '#!/bin/bash\nwhoami\necho "inner rc=$?"\n' > /tmp/s.sh && chmod +x /tmp/s.sh && /tmp/s.sh`, "inner rc=126", "/usr/bin/whoami"},
		{"fexecve", `python3 -c "
import os
fd = os.open('/usr/bin/whoami', os.O_RDONLY)
try:
    os.execve(fd, ['whoami'], {})
except PermissionError as e:
    print('errno', e.errno)"`, "errno 13", "/usr/bin/whoami"},
		{"execveat", `python3 -c "` + pyCtypes + `
d = os.open('/usr/bin', os.O_RDONLY | os.O_DIRECTORY)
r = libc.syscall(322, d, b'whoami', cargv(['whoami']), cargv([]), 0)
print('errno', ctypes.get_errno())"`, "errno 13", "/usr/bin/whoami"},
		{"symbolic link", `ln -sf /usr/bin/whoami /tmp/w && /tmp/w; echo "rc=$?"`, "rc=126", "/usr/bin/whoami"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.t = t
			code, out, stderr := e.runSet(set, "exec-"+strings.ReplaceAll(tc.name, " ", "-"), tc.src)
			if code != 0 || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, stdout %q (want %q), stderr %q", code, out, tc.want, stderr)
			}
			if !strings.Contains(stderr, "desk: sandbox: exec of") || !strings.Contains(stderr, "Permission denied") {
				t.Errorf("stderr %q: no note of the refusal", stderr)
			}
			got := ds.take()
			if len(got) != 1 {
				t.Fatalf("%d decisions recorded, want 1: %+v", len(got), got)
			}
			d := got[0]
			if d.Outcome != policy.Denied || d.Kind != "command" || !strings.HasPrefix(d.Rule, "deny ") || d.Source != policy.SourceWorkspace {
				t.Errorf("decision %+v", d)
			}
			if d.Subject != tc.subject && !strings.HasPrefix(d.Subject, tc.subject+" ") {
				t.Errorf("subject %q, want %q", d.Subject, tc.subject)
			}
		})
	}
	e.t = t
	code, out, stderr := e.runSet(set, "exec-allowed", `echo hi; /bin/true; ls /tmp >/dev/null; id -u; python3 -c 'import subprocess; subprocess.run(["true"], check=True)'; echo done`)
	if code != 0 || out != "hi\n0\ndone\n" || stderr != "" {
		t.Errorf("allowed programs: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if got := ds.take(); len(got) != 0 {
		t.Errorf("allowed programs recorded %+v", got)
	}
}

// TestExecRules_NoRulesNoFilter: an execution without command rules runs
// under no extra filter (and may make a seccomp listener of its own), one
// with rules under one more, which refuses a listener.
func TestExecRules_NoRulesNoFilter(t *testing.T) {
	e := newEnv(t, Options{})
	filters := `grep Seccomp_filters /proc/self/status | tr -d ' \t'`
	listener := `python3 -c "` + pyCtypes + `
class F(ctypes.Structure): _fields_ = [('code', ctypes.c_ushort), ('jt', ctypes.c_ubyte), ('jf', ctypes.c_ubyte), ('k', ctypes.c_uint)]
class P(ctypes.Structure): _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.POINTER(F))]
f = (F * 1)(F(6, 0, 0, 0x7fff0000))
libc.prctl(38, 1, 0, 0, 0)
r = libc.syscall(317, 1, 8, ctypes.byref(P(1, f)))
print('listener' if r >= 0 else 'errno %d' % ctypes.get_errno())"`
	for _, none := range []policy.Set{nil, {}, commandSet(t, "")} {
		_, base, _ := e.runSet(none, "plain", filters)
		_, own, _ := e.runSet(none, "plain-listener", listener)
		if own != "listener\n" {
			t.Errorf("without command rules a program's own listener: %q", own)
		}
		_, ruled, _ := e.runSet(commandSet(t, "", "deny whoami"), "ruled", filters)
		var n, m int
		if _, err := fmtSscan(base, &n); err != nil {
			t.Fatalf("%q: %v", base, err)
		}
		if _, err := fmtSscan(ruled, &m); err != nil {
			t.Fatalf("%q: %v", ruled, err)
		}
		if m != n+1 {
			t.Errorf("filters: %d without rules, %d with: want one more", n, m)
		}
		if code, out, stderr := e.runSet(none, "plain-whoami", "whoami"); code != 0 || out != "root\n" {
			t.Errorf("whoami without rules: exit %d, %q %q", code, out, stderr)
		}
	}
	_, own, _ := e.runSet(commandSet(t, "", "deny whoami"), "ruled-listener", listener)
	if own != "errno 1\n" {
		t.Errorf("with command rules a program's own listener: %q, want EPERM", own)
	}
}

// fmtSscan reads "Seccomp_filters:N".
func fmtSscan(s string, n *int) (int, error) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "Seccomp_filters:"))
	v := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, io.ErrUnexpectedEOF
		}
		v = v*10 + int(c-'0')
	}
	if s == "" {
		return 0, io.ErrUnexpectedEOF
	}
	*n = v
	return 1, nil
}

// TestExecRules_Ask: a command a rule asks about runs when the script was
// approved for it (its decision was Asked), and is refused, recorded as
// asked, when the script did not show it; a default of deny is an
// allow-list that symbolic links of the distribution (python3 →
// python3.X) do not undo.
func TestExecRules_Ask(t *testing.T) {
	e := newEnv(t, Options{})
	ds := e.decisions()
	set := commandSet(t, "", "ask whoami")
	if code, out, stderr := e.runSet(set, "approved", "whoami"); code != 0 || out != "root\n" {
		t.Errorf("approved whoami: exit %d, %q %q", code, out, stderr)
	}
	code, out, stderr := e.runSet(set, "hidden", `python3 -c "
import subprocess
try:
    subprocess.run(['whoami'])
except PermissionError as e:
    print('errno', e.errno)"`)
	if code != 0 || out != "errno 13\n" || !strings.Contains(stderr, "needs approval") {
		t.Errorf("whoami hidden in python: exit %d, %q %q", code, out, stderr)
	}
	if got := ds.take(); len(got) != 1 || got[0].Outcome != policy.Asked || got[0].Rule != "ask whoami" {
		t.Errorf("decisions %+v", got)
	}
	allow := commandSet(t, policy.Refuse, "allow bash *", "allow python3 *", "allow true")
	code, out, stderr = e.runSet(allow, "allowlist", `python3 -c 'print(1)'; true; /bin/true; whoami; echo "rc=$?"`)
	if code != 0 || out != "1\nrc=126\n" {
		t.Errorf("allow-list: exit %d, %q %q", code, out, stderr)
	}
	if got := ds.take(); len(got) != 1 || got[0].Rule != "default deny" || got[0].Subject != "/usr/bin/whoami" {
		t.Errorf("decisions %+v", got)
	}
}

// TestExecRules_ImageUser: the programs of an image whose user is not
// root are read and decided too: allowed ones run, denied ones are
// refused.
func TestExecRules_ImageUser(t *testing.T) {
	s := testImageStore(t)
	asUser := sandboxImage(importTestImage(t, s, "busybox:user", v1.Config{Env: []string{"PATH=/bin"}, User: "app"}))
	e := imageEnv(t, func(string) *Image { return asUser })
	ds := e.decisions()
	set := commandSet(t, "", "deny only-in-image")
	code, out, stderr := e.runSet(set, "image-user", `id -u; /bin/sh -c 'echo sub'; /usr/local/bin/only-in-image; echo "rc=$?"`)
	if code != 0 || out != "1000\nsub\nrc=126\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if got := ds.take(); len(got) != 1 || got[0].Rule != "deny only-in-image" {
		t.Errorf("decisions %+v", got)
	}
}

// TestExecRules_Unreadable: a process whose memory the init cannot read
// (it changed its credentials, so it is not dumpable until its exec) is
// refused, and the refusal says so.
func TestExecRules_Unreadable(t *testing.T) {
	e := newEnv(t, Options{})
	code, out, stderr := e.runSet(commandSet(t, "", "deny whoami"), "unreadable", `setpriv --reuid=1000 --regid=1000 --clear-groups id -u; echo "rc=$?"`)
	if code != 0 || out != "rc=126\n" || !strings.Contains(stderr, "(unreadable)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, out, _ := e.runSet(nil, "readable", `setpriv --reuid=1000 --regid=1000 --clear-groups id -u`); code != 0 || out != "1000\n" {
		t.Errorf("without rules: exit %d, stdout %q", code, out)
	}
}

// TestExecRules_Detached: a detached execution's refusals are recorded too
// (they travel outside its stream).
func TestExecRules_Detached(t *testing.T) {
	e := newEnv(t, Options{})
	ds := e.decisions()
	c := policy.WithSet(ctx(t), commandSet(t, "", "deny whoami"))
	var out bytes.Buffer
	job := &run.Job{ID: "det", Backend: ID, Source: `cmd=whoami; $cmd; echo "rc=$?"`, Cwd: run.DefaultCwd, Env: run.DefaultEnv(),
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: io.Discard, FS: e.fs}
	o, err := e.b.RunDetached(c, job, func() {})
	if err != nil || o.ExitCode != 0 || out.String() != "rc=126\n" {
		t.Fatalf("%+v %v %q", o, err, out.String())
	}
	select {
	case <-ds.ch:
	case <-c.Done():
		t.Fatal("no record of the refusal")
	}
	if got := ds.take(); len(got) != 1 || got[0].Outcome != policy.Denied {
		t.Errorf("decisions %+v", got)
	}
}

// TestAccess_ForgedExecID: a process of an execution whose path rules deny
// a file gains nothing by naming another running execution (whose rules
// allow it) in DESK_EXEC_ID, even after leaving its session.
func TestAccess_ForgedExecID(t *testing.T) {
	e := newFUSEEnv(t, Options{})
	e.ok("echo secret > /workspace/secret")
	rules := func(rule string) context.Context {
		r, err := policy.ParsePathRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		set := policy.Set{{Source: policy.SourceExecution, Policy: policy.Policy{Paths: []policy.PathRule{r}}}}
		return vfs.WithAccess(policy.WithSet(ctx(t), set), set.Checker())
	}
	// B: rules that allow everything, running until cancelled.
	bctx, cancel := context.WithCancel(rules("write /**"))
	defer cancel()
	started := make(chan struct{})
	bdone := make(chan struct{})
	go func() {
		defer close(bdone)
		job := &run.Job{ID: "exec-B", Backend: ID, Source: `cat /workspace/secret; exec sleep 600`, Cwd: run.DefaultCwd, Env: run.DefaultEnv(),
			Stdin: strings.NewReader(""), Stdout: &signalWriter{ch: started}, Stderr: io.Discard, FS: e.fs}
		e.b.Run(bctx, job)
	}()
	select {
	case <-started:
	case <-ctx(t).Done():
		t.Fatal("B did not start")
	}
	var out, errb bytes.Buffer
	job := &run.Job{ID: "exec-A", Backend: ID, Cwd: run.DefaultCwd, Env: run.DefaultEnv(), Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, FS: e.fs,
		Source: `cat /workspace/secret; echo "own=$?"; DESK_EXEC_ID=exec-B cat /workspace/secret; echo "env=$?"; DESK_EXEC_ID=exec-B setsid -w cat /workspace/secret; echo "setsid=$?"`}
	o, err := e.b.Run(rules("deny secret"), job)
	if err != nil || o.ExitCode != 0 {
		t.Fatalf("%+v %v %s", o, err, errb.String())
	}
	if got := out.String(); got != "own=1\nenv=1\nsetsid=1\n" {
		t.Errorf("A's reads: %q (stderr %q), want all refused", got, errb.String())
	}
	cancel()
	<-bdone
}

// signalWriter closes ch at its first write.
type signalWriter struct {
	once sync.Once
	ch   chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}

// TestExecRules_ThroughGate: the rules run's Gate puts on an execution
// (policy.PolicyGate: here an execution layer) reach the sandbox: a
// command the parse cannot see is refused at exec.
func TestExecRules_ThroughGate(t *testing.T) {
	e := newEnv(t, Options{})
	e.r.Close()
	r, err := run.Open(ctx(t), e.fs, map[string]run.Backend{ID: e.b}, run.Options{DefaultBackend: ID, Gate: run.PolicyGate(run.PolicyConfig{})})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	e.r = r
	c := policy.WithLayer(ctx(t), policy.Layer{Source: policy.SourceExecution, Policy: commandSet(t, "", "deny whoami")[0].Policy})
	x, err := r.Exec(c, `python3 -c "import subprocess; subprocess.run(['whoami'])"; echo "rc=$?"`, run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Stderr, "PermissionError") || !strings.Contains(res.Stderr, `by rule "deny whoami" of the execution policy`) || res.Stdout != "rc=1\n" {
		t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
	if _, err := r.Exec(c, `whoami`, run.ExecOptions{}); !errors.Is(err, policy.ErrDenied) {
		t.Errorf("whoami at the Gate: %v", err)
	}
}

// TestExecRules_LaunchWhileCollecting: the launch of an execution with
// command rules waits, inside the init's fork (a vfork, which keeps the
// forking thread's share of the Go scheduler), until its first exec is
// answered. That answer must not need the init's own runtime: a garbage
// collection stopping the world meanwhile would wait for the fork, and the
// fork for the answer, for ever. Executions with rules start one after
// another while another execution's output keeps the init allocating, so
// collecting.
func TestExecRules_LaunchWhileCollecting(t *testing.T) {
	e := newEnv(t, Options{})
	set := commandSet(t, "", "deny whoami")
	noise, cancel := context.WithCancel(ctx(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		job := &run.Job{ID: "noise", Backend: ID, Source: "while :; do head -c 64M /dev/zero; done",
			Cwd: run.DefaultCwd, Env: run.DefaultEnv(), Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, FS: e.fs}
		e.b.Run(noise, job)
	}()
	defer func() {
		cancel()
		<-done
	}()
	for i := range 300 {
		if code, out, stderr := e.runSet(set, fmt.Sprintf("launch-%d", i), "echo ok"); code != 0 || out != "ok\n" {
			t.Fatalf("launch %d: exit %d, stdout %q, stderr %q", i, code, out, stderr)
		}
	}
}

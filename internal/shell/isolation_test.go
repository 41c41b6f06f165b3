package shell

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/cmds"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/vfs"
)

// snapshot describes dir and every fixture path under it (mode, size, mtime,
// ctime, atime) with lstat only: reading a directory would change its atime.
// A file created anywhere changes its directory's mtime.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	paths := []string{dir}
	for n := range fixture {
		for p := filepath.Join(dir, n); p != dir; p = filepath.Dir(p) {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			out[p] = err.Error()
			continue
		}
		st := fi.Sys().(*syscall.Stat_t)
		out[p] = fmt.Sprintf("%v %d m%d c%d.%d a%d.%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), st.Ctim.Sec, st.Ctim.Nsec, st.Atim.Sec, st.Atim.Nsec)
	}
	return out
}

// listing lists every path under dir (it reads directories: call it last).
func listing(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out
}

func diffSnap(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if v != w {
			d = append(d, "changed "+k+": "+v+" -> "+w)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "created "+k)
		}
	}
	sort.Strings(d)
	return d
}

// TestBackend_canary runs hostile scripts with the process's working
// directory and TMPDIR in a canary directory holding the fixture, and fails
// if anything there (or in os.TempDir) was read, created or changed.
func TestBackend_canary(t *testing.T) {
	canary := t.TempDir()
	shelltest.WriteHostFixture(t, canary, fixture)
	// Make atimes older than mtimes+1 day so that relatime would update them
	// on any read.
	old := time.Now().Add(-72 * time.Hour)
	filepath.WalkDir(canary, func(p string, d fs.DirEntry, err error) error {
		os.Chtimes(p, old, old.Add(time.Hour)) // atime older than mtime: any read updates it
		return nil
	})
	hostTmp := os.TempDir()
	store := newStore(t, fixture)                         // its database lives in another temp dir
	interpRows := shelltest.LoadTable(t, interpTableFile) // read before the working directory moves
	t.Chdir(canary)
	t.Setenv("TMPDIR", canary)
	before := snapshot(t, canary)

	scripts := []string{
		`cat a.txt; cat ` + canary + `/a.txt`,
		`echo x > a.txt; echo y >> b.txt; echo z > new.txt`,
		`echo x > ` + canary + `/a.txt; echo x > ` + canary + `/created.txt`,
		`echo x > /etc/desk-canary; echo x > ../../desk-canary; cat /etc/passwd`,
		`echo * */* ` + canary + `/*`,
		`cd ` + canary + ` && ls; cd /; cd ..; pwd`,
		`cd dir; echo hi > here.txt; cd ../..; echo hi > there.txt`,
		`read x < ` + canary + `/a.txt; echo "$x"`,
		`source ` + canary + `/a.txt; . a.txt`,
		`[ -f ` + canary + `/a.txt ] && echo exists; test -r a.txt; [ -x /bin/sh ]`,
		`nosuchcmd; ` + canary + `/a.txt; /bin/sh -c 'touch /tmp/x'; /usr/bin/env touch x; ./a.txt`,
		`cat <(echo hi)`,
		`eval 'cat <(echo hi)'`,
		`echo x > ` + canary + `/sh-interp-1; echo x > ` + os.TempDir() + `/sh-interp-2`,
		`echo > $TMPDIR/t; echo $TMPDIR`,
		`type ls; command -v ls; type -p sh; hash; command -V nosuch`,
		`mkdir -p d/e && touch d/e/f && cp a.txt d/ && mv b.txt d/ && rm -r d`,
		`exec > out.txt; echo redirected`,
		`echo $(< ` + canary + `/a.txt) $(cat ` + canary + `/a.txt)`,
	}
	b := New(Options{})
	for _, s := range scripts {
		got := runScript(context.Background(), b, store, s, "")
		if got.err != nil {
			t.Errorf("%q: %v", s, got.err)
		}
	}
	// The table too, over the same canary.
	for _, r := range allRows() {
		runScript(context.Background(), b, newStore(t, rowFixture(r)), r.script, r.stdin)
	}
	// desk's interpreter: the hostile scripts, its own table and the fuzz
	// target's seeds, over the same canary.
	bd := New(Options{Interpreter: InterpDesk, MaxLoopIters: 100_000, MaxCommands: 200_000})
	for _, s := range scripts {
		if got := runScript(context.Background(), bd, store, s, ""); got.err != nil {
			t.Errorf("desk interpreter: %q: %v", s, got.err)
		}
	}
	deskStore := newStore(t, nil)
	for i, r := range interpRows {
		dir := fmt.Sprintf("/r%d", i)
		shelltest.WriteStoreFixture(t, deskStore, dir, fixture)
		runScriptIn(context.Background(), bd, deskStore, dir, r.Script, r.Stdin)
	}
	for _, s := range fuzzSeeds {
		runScript(context.Background(), bd, store, s, "")
		runScript(context.Background(), bd, store, grammarScript([]byte(s)), "")
	}
	after := snapshot(t, canary)
	if d := diffSnap(before, after); len(d) > 0 {
		t.Errorf("the host canary directory changed:\n%s", strings.Join(d, "\n"))
	}
	// os.TempDir() is the canary while the scripts run: nothing may be
	// created there; nor FIFOs in the real temporary directory.
	if os.TempDir() != canary {
		t.Fatalf("os.TempDir() = %s", os.TempDir())
	}
	if l := listing(t, canary); len(l) != countFixture(canary) {
		t.Errorf("host canary listing has more than the fixture: %v", l)
	}
	if m, _ := filepath.Glob(filepath.Join(hostTmp, "sh-interp-*")); len(m) > 0 {
		t.Errorf("FIFOs in %s: %v", hostTmp, m)
	}
	if _, err := os.Stat("/etc/desk-canary"); err == nil {
		t.Error("/etc/desk-canary exists on the host")
	}
	// The workspace got the writes instead.
	if data, err := store.ReadFile(context.Background(), "/work/new.txt"); err != nil || string(data) != "z\n" {
		t.Errorf("workspace /work/new.txt = %q, %v", data, err)
	}
	if _, err := store.Stat(context.Background(), "/desk-canary"); err != nil {
		t.Errorf("../../desk-canary should land at the workspace root: %v", err)
	}
}

func countFixture(dir string) int {
	seen := map[string]bool{dir: true}
	for n := range fixture {
		for p := filepath.Join(dir, n); p != dir; p = filepath.Dir(p) {
			seen[p] = true
		}
	}
	return len(seen)
}

// TestBackend_Run_kill: Kill and timeouts stop loops and blocking commands.
func TestBackend_Run_kill(t *testing.T) {
	cmdsBlock := map[string]cmds.Func{
		"block": func(env *cmds.Env, args []string) int {
			<-env.Ctx.Done()
			return 1
		},
	}
	b := New(Options{Commands: cmdsBlock})
	f := newStore(t, fixture)
	for _, script := range []string{
		`while true; do :; done`,
		`while ((1)); do x=1; done`,
		`for ((;;)); do :; done`,
		`f() { while :; do :; done; }; f`,
		`block`,
		`echo start; block | block`,
		`x=$(block); echo never`,
		`(while :; do :; done)`,
		`while :; do :; done & wait`,
	} {
		for _, in := range interpreters {
			t.Run(in+"/"+script, func(t *testing.T) {
				runKilled(t, f, script, Options{Commands: cmdsBlock, MaxLoopIters: 1 << 40, MaxCommands: 1 << 40, Interpreter: in})
			})
		}
	}
	_ = b
}

// runKilled runs script under opts and kills it once it runs.
func runKilled(t *testing.T, f *vfs.FS, script string, opts Options) {
	{
		{
			// Generous limits would take long: rely on cancellation.
			b := New(opts)
			ctx, cancel := context.WithCancelCause(context.Background())
			done := make(chan result, 1)
			started := make(chan struct{})
			go func() {
				close(started)
				done <- runScript(ctx, b, f, script, "")
			}()
			<-started
			cancel(&run.KillError{Signal: run.SIGKILL})
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the script did not stop after cancellation")
			}
		}
	}
}

// TestBackend_Run_limits: each limit ends the execution with ExitLimit and
// says which.
func TestBackend_Run_limits(t *testing.T) {
	big := map[string]cmds.Func{
		"spew": func(env *cmds.Env, args []string) int {
			buf := make([]byte, 4096)
			for !env.Canceled() {
				if _, err := env.Stdout.Write(buf); err != nil {
					return 1
				}
			}
			return 1
		},
	}
	cases := []struct {
		name, script, limit string
		opts                Options
	}{
		{"output", `while :; do echo xxxxxxxxxxxxxxxx; done`, "MaxOutputBytes", Options{MaxOutputBytes: 10000}},
		{"output from a command", `spew`, "MaxOutputBytes", Options{MaxOutputBytes: 100000}},
		{"commands", `while :; do true; done`, "MaxCommands", Options{MaxCommands: 500}},
		{"loops", `while ((1)); do x=1; done`, "MaxLoopIters", Options{MaxLoopIters: 500}},
		{"c-style loops", `for ((;;)); do x=1; done`, "MaxLoopIters", Options{MaxLoopIters: 500}},
		{"call depth", `f() { f; }; f`, "MaxCallDepth", Options{MaxCallDepth: 100}},
		{"eval depth", `s='eval "$s"'; eval "$s"`, "MaxCallDepth", Options{MaxCallDepth: 100}},
		{"source depth", `echo '. ./r.sh' > r.sh; . ./r.sh`, "MaxCallDepth", Options{MaxCallDepth: 100}},
		{"string", `x=aaaaaaaa; while :; do x=$x$x; done`, "MaxStringBytes", Options{MaxStringBytes: 1 << 16}},
		{"variables", `i=0; x=$(printf %1000s); while :; do eval v$i=\$x; i=$((i+1)); done`, "MaxVarBytes", Options{MaxVarBytes: 1 << 16}},
		{"args", `set -- {1..100}; echo "$@" "$@" "$@"`, "MaxArgs", Options{MaxArgs: 200}},
		{"glob", `for i in 1 2 3 4 5 6 7 8 9; do echo > f$i; done; echo * * *`, "MaxGlobEntries", Options{MaxGlobEntries: 20}},
		{"read", `printf %2000s > big; . ./big`, "MaxReadBytes", Options{MaxReadBytes: 1000}},
	}
	for _, in := range interpreters {
		for _, c := range cases {
			t.Run(in+"/"+c.name, func(t *testing.T) {
				c.opts.Commands = big
				c.opts.Interpreter = in
				runLimited(t, c.script, c.limit, c.opts)
			})
		}
	}
}

// runLimited runs script under opts and checks it stops with the limit.
func runLimited(t *testing.T, script, limit string, opts Options) {
	c := struct{ script, limit string }{script, limit}
	{
		{
			b := New(opts)
			got := runScript(context.Background(), b, newStore(t, fixture), c.script, "")
			if got.err != nil {
				t.Fatal(got.err)
			}
			if got.exit != ExitLimit || !strings.Contains(got.stderr, "limit exceeded: "+c.limit) {
				t.Fatalf("exit %d, stderr %q; want %d and the limit %s", got.exit, tail(got.stderr), ExitLimit, c.limit)
			}
		}
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "..." + s[len(s)-300:]
	}
	return s
}

// TestBackend_Run_runtime: end to end through run, the change set lists
// what the script wrote.
func TestBackend_Run_runtime(t *testing.T) {
	ctx := context.Background()
	fsys, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if err := fsys.MkdirAll(ctx, "/workspace/old", 0o755); err != nil {
		t.Fatal(err)
	}
	fsys.WriteFile(ctx, "/workspace/old/gone.txt", []byte("x"), 0o644)
	rt, err := run.Open(ctx, fsys, map[string]run.Backend{"shell": New(Options{})}, run.Options{DefaultBackend: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	x, err := rt.Exec(ctx, "mkdir -p out; echo hi > out/a.txt; echo more >> out/a.txt; { echo b; } > b.txt; echo done\n"+
		"while read -r l; do echo \"in:$l\"; done", run.ExecOptions{Stdin: strings.NewReader("s1\ns2\n")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusCompleted || res.ExitCode != 0 || res.Stdout != "done\nin:s1\nin:s2\n" {
		t.Fatalf("%s %d stdout %q stderr %q err %q", res.Status, res.ExitCode, res.Stdout, res.Stderr, res.Error)
	}
	if res.Changes == nil {
		t.Fatal("no change set")
	}
	got := strings.Join(res.Changes.Created, ",")
	if _, ok := cmds.Lookup("mkdir"); ok {
		if got != "/workspace/b.txt,/workspace/out,/workspace/out/a.txt" {
			t.Errorf("created %v", res.Changes.Created)
		}
	} else if !strings.Contains(got, "/workspace/b.txt") {
		t.Errorf("created %v", res.Changes.Created)
	}
	if data, _ := fsys.ReadFile(ctx, "/workspace/b.txt"); string(data) != "b\n" {
		t.Errorf("b.txt = %q", data)
	}

	// Timeout: status timed-out, promptly.
	x, err = rt.Exec(ctx, "while :; do :; done", run.ExecOptions{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	res, err = x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusTimedOut {
		t.Fatalf("status %s, want timed-out (%s)", res.Status, res.Error)
	}
	// Kill.
	x, err = rt.Exec(ctx, "echo go; while :; do :; done", run.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Events(0).Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rt.Kill(ctx, x.ID(), run.SIGTERM); err != nil && !errors.Is(err, run.ErrNotRunning) {
		t.Fatal(err)
	}
	res, err = x.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != run.StatusCancelled {
		t.Fatalf("status %s, want cancelled", res.Status)
	}
}

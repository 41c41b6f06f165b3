package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// These tests run the sandbox on its real workspace mount (fusefs over the
// store, bound at /workspace), against the real runc.

// put writes a file of the workspace through the store, as the shell backend
// and the API do.
func (e *env) put(name, data string) {
	e.t.Helper()
	if err := e.fs.MkdirAll(ctx(e.t), filepath.Dir(name), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := e.fs.WriteFile(ctx(e.t), name, []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// get reads a file of the workspace through the store.
func (e *env) get(name string) string {
	e.t.Helper()
	b, err := e.fs.ReadFile(ctx(e.t), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// check runs the store's consistency check.
func (e *env) check() {
	e.t.Helper()
	rep, err := e.fs.Check(ctx(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	if !rep.OK() {
		e.t.Fatalf("store check: %v", rep.Problems)
	}
}

func TestFUSE_WorkspaceIsTheStore(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	// A fresh store has no /workspace: the mount makes it, owned by root.
	out := e.ok(`stat -c '%U %G %a' /workspace; findmnt -n -o FSTYPE,OPTIONS /workspace; pwd`)
	if !strings.HasPrefix(out, "root root 755\nfuse.desk ") || !strings.Contains(out, "allow_other") || !strings.HasSuffix(out, "\n/workspace\n") {
		t.Errorf("the workspace mount:\n%s", out)
	}
	// Paths agree: /workspace/x in the sandbox is /workspace/x in the store,
	// and what root makes inside is root's in the store.
	e.ok(`echo hi > x; mkdir -p d/e; chown 1000:1000 d; ln -s x l`)
	if got := e.get("/workspace/x"); got != "hi\n" {
		t.Errorf("/workspace/x in the store = %q", got)
	}
	fi, err := e.fs.Lstat(ctx(t), "/workspace/d")
	if err != nil {
		t.Fatal(err)
	}
	if a := fi.Attr(); a.Uid != 1000 || a.Gid != 1000 {
		t.Errorf("chown 1000:1000 inside: the store has %d:%d", a.Uid, a.Gid)
	}
	if fi, err = e.fs.Lstat(ctx(t), "/workspace/x"); err != nil {
		t.Fatal(err)
	} else if a := fi.Attr(); a.Uid != 0 || a.Gid != 0 {
		t.Errorf("a file root made inside: the store has %d:%d", a.Uid, a.Gid)
	}
	e.check()
}

func TestFUSE_Consistency(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	e.ok("true")
	// Store → sandbox, immediately, also after the sandbox read (and the
	// kernel cached) the file, its attributes and the directory.
	e.put("/workspace/a", "one\n")
	if got := e.ok("cat a"); got != "one\n" {
		t.Fatalf("cat a = %q", got)
	}
	for i, v := range []string{"two, longer\n", "3\n", ""} {
		e.put("/workspace/a", v)
		if got := e.ok("cat a; stat -c %s a"); got != v+strconv.Itoa(len(v))+"\n" {
			t.Errorf("change %d: cat a; stat = %q, want %q", i, got, v+strconv.Itoa(len(v)))
		}
	}
	e.ok("ls; test ! -e b")
	e.put("/workspace/b", "bee\n") // a name the kernel cached as missing
	if got := e.ok("ls; cat b"); got != "a\nb\nbee\n" {
		t.Errorf("new file: %q", got)
	}
	if err := e.fs.Remove(ctx(t), "/workspace/b"); err != nil {
		t.Fatal(err)
	}
	e.ok("test ! -e b")
	if err := e.fs.Rename(ctx(t), "/workspace/a", "/workspace/c", 0); err != nil {
		t.Fatal(err)
	}
	e.ok("test ! -e a && test -e c")
	if err := e.fs.Chmod(ctx(t), "/workspace/c", 0o751); err != nil {
		t.Fatal(err)
	}
	if got := e.ok("stat -c %a c"); got != "751\n" {
		t.Errorf("chmod through the store: %q", got)
	}

	// Directories made through the store just before an execution can be
	// entered, and stay its working directory (their entries are not
	// invalidated under it: getcwd works).
	for i := range 20 {
		e.put(fmt.Sprintf("/workspace/dirs/d%d/f", i), "x")
		want := fmt.Sprintf("/workspace/dirs/d%d\n/workspace/dirs/d%d\n", i, i)
		if got := e.ok(fmt.Sprintf("cd dirs/d%d && cat f >/dev/null && /bin/pwd -P && readlink /proc/self/cwd", i)); got != want {
			t.Errorf("working directory d%d: %q", i, got)
		}
	}

	// Sandbox → store: what an execution wrote is in the store when it
	// returns, and a store reader that read it before sees the change.
	e.ok("echo one > s")
	if got := e.get("/workspace/s"); got != "one\n" {
		t.Fatalf("store read %q", got)
	}
	e.ok("echo two >> s; mv s t; mkdir -p u/v")
	if got := e.get("/workspace/t"); got != "one\ntwo\n" {
		t.Errorf("store read %q", got)
	}
	if _, err := e.fs.Stat(ctx(t), "/workspace/s"); err == nil {
		t.Error("/workspace/s still exists in the store")
	}
	if fi, err := e.fs.Stat(ctx(t), "/workspace/u/v"); err != nil || !fi.IsDir() {
		t.Errorf("/workspace/u/v: %v", err)
	}

	// A program that keeps running sees the store's changes without
	// reopening anything but the file: it reads the file until it holds 1,
	// says so, then until it holds 2. (It polls: nothing tells a program
	// that a file changed. The execution's timeout is the hang guard.)
	x, err := e.r.Exec(ctx(t), `until [ "$(cat live 2>/dev/null)" = 1 ]; do sleep 0.01; done; echo saw 1
until [ "$(cat live)" = 2 ]; do sleep 0.01; done`, run.ExecOptions{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.put("/workspace/live", "1")
	waitOutput(t, x, "saw 1\n")
	e.put("/workspace/live", "2")
	res, err := x.Wait(ctx(t))
	if err != nil || res.Status != run.StatusCompleted || res.ExitCode != 0 {
		t.Errorf("a running loop did not see the change: %v %+v", err, res)
	}
	e.check()
}

func TestFUSE_ChangesAttributedToExecutions(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	e.put("/workspace/old", "x")
	e.put("/workspace/keep", "x")
	res := e.run("echo new > new; echo more >> keep; rm old; mkdir dir; touch dir/f", run.ExecOptions{})
	if res.ExitCode != 0 || res.Changes == nil {
		t.Fatalf("exec: %+v", res)
	}
	c := res.Changes
	if !slices.Equal(c.Created, []string{"/workspace/dir", "/workspace/dir/f", "/workspace/new"}) ||
		!slices.Equal(c.Modified, []string{"/workspace/keep"}) || !slices.Equal(c.Deleted, []string{"/workspace/old"}) {
		t.Errorf("change set: %+v", c)
	}
	// A process that leaves the execution's session (a daemon) is
	// attributed by the DESK_EXEC_ID it inherited.
	res = e.run("setsid sh -c 'echo d > daemon.txt' & wait; sleep 0.2", run.ExecOptions{})
	if res.ExitCode != 0 || res.Changes == nil || !slices.Equal(res.Changes.Created, []string{"/workspace/daemon.txt"}) {
		t.Errorf("a write from another session: %+v, changes %+v", res, res.Changes)
	}
	// Concurrent executions: each has its own writes.
	var wg sync.WaitGroup
	sets := make([]*run.Changes, 2)
	for i := range sets {
		wg.Go(func() {
			r := e.run(fmt.Sprintf("for j in 1 2 3; do echo > p%d-$j; sleep 0.01; done", i), run.ExecOptions{})
			sets[i] = r.Changes
		})
	}
	wg.Wait()
	for i, c := range sets {
		want := []string{}
		for j := 1; j <= 3; j++ {
			want = append(want, fmt.Sprintf("/workspace/p%d-%d", i, j))
		}
		if c == nil || !slices.Equal(c.Created, want) || len(c.Modified)+len(c.Deleted) != 0 {
			t.Errorf("execution %d: change set %+v, want created %v", i, c, want)
		}
	}
}

// tool returns the host path of a program the workloads need; it skips the
// test when the host lacks it, unless DESK_REQUIRE_SANDBOX=1 (CI: `make
// setup` installs them), where that is a failure.
func tool(t *testing.T, name string) {
	t.Helper()
	for _, dir := range []string{"/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return
		}
	}
	testenv.Need(t, testenv.Sandbox, fmt.Errorf("the host has no /usr/bin/%s for the sandbox (make test-setup installs it)", name))
}

func TestFUSE_Workloads(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	t.Run("git", func(t *testing.T) {
		tool(t, "git")
		e.ok(`mkdir repo && cd repo && git init -q -b main &&
			for i in $(seq 100); do mkdir -p d$((i % 10)); echo "file $i" > d$((i % 10))/f$i.txt; done &&
			git add -A && git -c user.name=t -c user.email=t@example.com commit -qm "100 files"`)
		if got := e.ok("cd repo && git status --porcelain && git log --oneline | wc -l && git ls-files | wc -l && git fsck --strict 2>&1"); got != "1\n100\n" {
			t.Errorf("git status, log, ls-files, fsck: %q", got)
		}
		// A change through the store shows in git status at once.
		e.put("/workspace/repo/d3/f3.txt", "changed\n")
		if got := e.ok("cd repo && git status --porcelain"); got != " M d3/f3.txt\n" {
			t.Errorf("git status after a store change: %q", got)
		}
	})
	t.Run("npm", func(t *testing.T) {
		tool(t, "node")
		tool(t, "npm")
		// Three packages, c → b → a and c → a, packed with npm pack and
		// installed from file: tarballs: no registry (there is no network).
		e.put("/workspace/npm/src/a/package.json", `{"name":"a","version":"1.0.0","main":"index.js"}`)
		e.put("/workspace/npm/src/a/index.js", `module.exports = () => "a";`)
		e.put("/workspace/npm/src/b/package.json", `{"name":"b","version":"1.0.0","main":"index.js","dependencies":{"a":"file:/workspace/npm/tgz/a-1.0.0.tgz"}}`)
		e.put("/workspace/npm/src/b/index.js", `const a = require("a"); module.exports = () => "b(" + a() + ")";`)
		e.put("/workspace/npm/src/c/package.json", `{"name":"c","version":"1.0.0","main":"index.js","dependencies":{"a":"file:/workspace/npm/tgz/a-1.0.0.tgz","b":"file:/workspace/npm/tgz/b-1.0.0.tgz"}}`)
		e.put("/workspace/npm/src/c/index.js", `const a = require("a"), b = require("b"); module.exports = () => "c(" + b() + "," + a() + ")";`)
		e.put("/workspace/npm/app/package.json", `{"name":"app","version":"1.0.0","private":true,"dependencies":{"c":"file:/workspace/npm/tgz/c-1.0.0.tgz"},"scripts":{"test":"node test.js"}}`)
		e.put("/workspace/npm/app/test.js", `const c = require("c"); if (c() !== "c(b(a),a)") { console.error("got", c()); process.exit(1) } console.log("ok", c());`)
		env := "export npm_config_cache=/tmp/npm-cache npm_config_update_notifier=false; "
		e.ok(env + "mkdir -p npm/tgz && cd npm/tgz && for p in a b c; do npm pack --silent ../src/$p; done")
		out := e.ok(env + "cd npm/app && npm install --offline --no-audit --no-fund && npm test && ls node_modules")
		if !strings.Contains(out, "ok c(b(a),a)") || !strings.HasSuffix(out, "a\nb\nc\n") {
			t.Errorf("npm install, npm test:\n%s", out)
		}
		if got := e.get("/workspace/npm/app/node_modules/b/index.js"); !strings.Contains(got, `require("a")`) {
			t.Errorf("node_modules/b/index.js in the store: %q", got)
		}
	})
	t.Run("make", func(t *testing.T) {
		tool(t, "gcc")
		tool(t, "make")
		e.put("/workspace/c/hello.c", "#include <stdio.h>\n#include \"msg.h\"\nint main(void) { printf(\"%s\\n\", MSG); return 0; }\n")
		e.put("/workspace/c/msg.h", "#define MSG \"hello\"\n")
		e.put("/workspace/c/Makefile", "hello: hello.o\n\tgcc -o $@ $^\nhello.o: hello.c msg.h\n\tgcc -O2 -c -o $@ $<\n")
		if got := e.ok("cd c && make -s && ./hello"); got != "hello\n" {
			t.Errorf("make; ./hello = %q", got)
		}
		if got := e.ok("cd c && make"); !strings.Contains(got, "up to date") {
			t.Errorf("make again = %q", got)
		}
		// A header changed through the store is newer: make rebuilds. (Its
		// mtime is set a second past the program's, so that no clock's
		// granularity decides.)
		e.put("/workspace/c/msg.h", "#define MSG \"changed\"\n")
		built, err := e.fs.Stat(ctx(t), "/workspace/c/hello")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.fs.Chtimes(ctx(t), "/workspace/c/msg.h", built.ModTime(), built.ModTime().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		if got := e.ok("cd c && make -s && ./hello"); got != "changed\n" {
			t.Errorf("make after a store change; ./hello = %q", got)
		}
	})
	t.Run("python", func(t *testing.T) {
		tool(t, "python3")
		e.put("/workspace/py/calc.py", "def add(a, b):\n    return a + b\n")
		e.put("/workspace/py/test_calc.py", "import unittest\nimport calc\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(2, 3), 5)\n\n    def test_file(self):\n        with open('out.txt', 'w') as f:\n            f.write('x')\n        with open('out.txt') as f:\n            self.assertEqual(f.read(), 'x')\n")
		res := e.run("cd py && python3 -m unittest -v 2>&1 && ls __pycache__ | wc -l", run.ExecOptions{})
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "Ran 2 tests") || !strings.Contains(res.Stdout, "OK") {
			t.Errorf("python3 -m unittest: exit %d\n%s%s", res.ExitCode, res.Stdout, res.Stderr)
		}
	})
	e.check()
}

func TestFUSE_NoEscape(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	shadow, err := os.ReadFile("/etc/shadow")
	if err != nil || len(shadow) == 0 {
		t.Fatalf("the host's /etc/shadow: %v", err)
	}
	dbDir := filepath.Dir(e.fs.Path())
	mnt := e.b.opts.MountDir
	// Symbolic links made in the store (as an agent could, through any
	// backend) to host paths resolve inside the sandbox's root.
	if err := e.fs.MkdirAll(ctx(t), "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"shadow": "/etc/shadow", "db": e.fs.Path(), "dbdir": dbDir, "mnt": mnt,
		"rel": "../../../../../../../../etc/shadow", "reldb": "../../../../../../../.." + e.fs.Path(),
	} {
		if err := e.fs.Symlink(ctx(t), target, "/workspace/"+name); err != nil {
			t.Fatal(err)
		}
	}
	e.ok("true") // start it
	out := e.run(`for f in shadow db dbdir mnt rel reldb; do cat $f/* $f 2>&1; done; cat ../etc/shadow ../../etc/shadow /workspace/../`+
		e.fs.Path()+` 2>&1; ls -a ..; ls -a `+mnt+" "+dbDir+" 2>&1", run.ExecOptions{})
	if strings.Contains(out.Stdout, "root:") || strings.Contains(out.Stdout, "SQLite format") || bytes.Contains([]byte(out.Stdout), shadow[:min(20, len(shadow))]) {
		t.Errorf("host files read through the workspace:\n%s", out.Stdout)
	}
	if !strings.Contains(out.Stdout, "No such file or directory") {
		t.Errorf("expected missing files:\n%s", out.Stdout)
	}
	// /workspace/.. is the sandbox's root, not the mount's host directory.
	if got := e.ok("cd /workspace/.. && pwd && ls -d workspace usr"); got != "/\nusr\nworkspace\n" {
		t.Errorf("/workspace/..: %q", got)
	}
	// Nothing in the sandbox is the store's database: search every
	// filesystem the sandbox has for SQLite files and for the file's name.
	base := filepath.Base(e.fs.Path())
	if got := e.ok("find / -path /proc -prune -o -name '" + base + "*' -print 2>/dev/null; find /workspace /tmp /root -type f -exec head -c 16 {} + 2>/dev/null | grep -c 'SQLite format' || true"); got != "0\n" {
		t.Errorf("database files visible in the sandbox: %q", got)
	}
	// The symbolic links are in the store as they were made: nothing wrote
	// through them.
	if got, err := e.fs.Readlink(ctx(t), "/workspace/shadow"); err != nil || got != "/etc/shadow" {
		t.Errorf("readlink: %q %v", got, err)
	}
	// Writing through a link to a host path writes inside the sandbox (here:
	// fails, its /etc is read-only), never the host.
	e.fail("echo pwned > shadow", run.ExecOptions{})
	if b, _ := os.ReadFile("/etc/shadow"); !bytes.Equal(b, shadow) {
		t.Fatal("the host's /etc/shadow changed")
	}
}

// TestFUSE_WorkDirSymlinkRefused: a store whose /workspace is a symbolic
// link (to a directory that also exists in the store, so that the store
// resolves it) must not get the link's target resolved on the host, which
// would put the host's directory at the sandbox's /workspace.
func TestFUSE_WorkDirSymlinkRefused(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	if err := e.fs.Mkdir(ctx(t), "/etc", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Symlink(ctx(t), "/etc", "/workspace"); err != nil {
		t.Fatal(err)
	}
	res := e.run("ls -A /workspace; test -e /workspace/machine-id && echo HOST", run.ExecOptions{Cwd: "/"})
	if res.Status != run.StatusFailed || !strings.Contains(res.Error, "/workspace is not a directory in the workspace") || strings.Contains(res.Stdout, "HOST") {
		t.Errorf("status %s, error %q, stdout %q", res.Status, res.Error, res.Stdout)
	}
	// Made a directory again, it works; swapped for a link while a sandbox
	// runs, the next sandbox refuses it too.
	if err := e.fs.Remove(ctx(t), "/workspace"); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Mkdir(ctx(t), "/workspace", 0o755); err != nil {
		t.Fatal(err)
	}
	e.ok("touch x")
	if err := e.fs.Rename(ctx(t), "/workspace", "/old", 0); err != nil {
		t.Fatal(err)
	}
	if err := e.fs.Symlink(ctx(t), "/etc", "/workspace"); err != nil {
		t.Fatal(err)
	}
	if err := e.b.Stop(ctx(t), "ws"); err != nil {
		t.Fatal(err)
	}
	if res := e.run("ls -A /workspace", run.ExecOptions{Cwd: "/"}); res.Status != run.StatusFailed || strings.Contains(res.Stdout, "machine-id") {
		t.Errorf("after the swap: status %s, error %q, stdout %q", res.Status, res.Error, res.Stdout)
	}
	if ents, _ := os.ReadDir(e.b.opts.MountDir); len(ents) != 0 {
		t.Errorf("mount points left after failed starts: %v", ents)
	}
}

// mountConn returns the FUSE connection number of the sandbox's mount (its
// device minor), for /sys/fs/fuse/connections.
func mountConn(t *testing.T, x *box) int {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(x.mount.Dir, &st); err != nil {
		t.Fatal(err)
	}
	return int(unix.Minor(st.Dev))
}

// ackWriter collects the acknowledgements a program prints ("ok N"), and
// tells when it has seen n of them.
type ackWriter struct {
	want int
	hit  chan struct{} // closed at the want-th line

	mu    sync.Mutex
	buf   bytes.Buffer
	fired bool
}

func (w *ackWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.fired && bytes.Count(w.buf.Bytes(), []byte("\n")) >= w.want {
		close(w.hit)
		w.fired = true
	}
	return len(p), nil
}

// String returns what was written.
func (w *ackWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// acks returns the numbers acknowledged.
func (w *ackWriter) acks() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for line := range strings.Lines(w.buf.String()) {
		if n, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "ok "); ok && strings.HasSuffix(line, "\n") {
			i, err := strconv.Atoi(n)
			if err == nil {
				out = append(out, i)
			}
		}
	}
	return out
}

// writerSource writes file wN (N from 1) with "data N" and a 64 KiB tail,
// and prints "ok N" once close(2) returned: acknowledged. Every tenth file
// is synced with fsync first.
const writerSource = `i=0; while :; do i=$((i+1)); { echo "data $i"; head -c 65536 /dev/zero; } > w$i || exit 1; ` +
	`if [ $((i % 10)) = 0 ]; then sync w$i || exit 1; fi; echo "ok $i"; done`

// checkAcked checks that every acknowledged file is in the store, whole.
func checkAcked(t *testing.T, fs *vfs.FS, dir string, acks []int) {
	t.Helper()
	for _, i := range acks {
		b, err := fs.ReadFile(context.Background(), fmt.Sprintf("%s/w%d", dir, i))
		want := fmt.Sprintf("data %d\n", i)
		if err != nil || len(b) != len(want)+65536 || string(b[:len(want)]) != want {
			t.Errorf("acknowledged file w%d: %d bytes, %v", i, len(b), err)
		}
	}
}

func TestFUSE_ServerAbortedMidWrite(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	e.ok("true")
	x := e.box()
	conn := mountConn(t, x)
	w := &ackWriter{want: 50, hit: make(chan struct{})}
	job := e.job(1, writerSource)
	job.Stdout = w
	type result struct {
		out run.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := e.b.Run(context.Background(), job)
		done <- result{out, err}
	}()
	select {
	case <-w.hit:
	case <-time.After(30 * time.Second):
		t.Fatal("the writer did not acknowledge 50 files")
	}
	// Kill the FUSE server: abort its connection, as the kernel does when the
	// server process dies.
	if err := os.WriteFile(fmt.Sprintf("/sys/fs/fuse/connections/%d/abort", conn), []byte("1"), 0); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the execution did not end after the mount ended")
	}
	if r.err == nil && r.out.ExitCode == 0 {
		t.Errorf("the execution succeeded after its mount was aborted: %+v", r.out)
	}
	t.Logf("the execution ended with %+v, %v", r.out, r.err)
	<-x.gone
	acks := w.acks()
	if len(acks) < 50 {
		t.Fatalf("%d acknowledgements", len(acks))
	}
	// The next execution gets a new sandbox on a new mount, and sees every
	// acknowledged file.
	last := acks[len(acks)-1]
	if got := e.ok(fmt.Sprintf("head -n1 w%d", last)); got != fmt.Sprintf("data %d\n", last) {
		t.Errorf("after the restart: %q", got)
	}
	if y := e.box(); y == x || y.mount.Dir == x.mount.Dir {
		t.Error("no new sandbox or no new mount")
	}
	checkAcked(t, e.fs, "/workspace", acks)
	e.check()
	// The old mount point is gone from the host.
	ents, _ := os.ReadDir(e.b.opts.MountDir)
	if len(ents) != 1 {
		t.Errorf("mount points: %v", ents)
	}
}

func TestFUSE_InitKilledMidWrite(t *testing.T) {
	t.Parallel()
	e := newFUSEEnv(t, Options{})
	e.ok("true")
	x := e.box()
	w := &ackWriter{want: 50, hit: make(chan struct{})}
	job := e.job(1, writerSource)
	job.Stdout = w
	done := make(chan error, 1)
	go func() {
		_, err := e.b.Run(context.Background(), job)
		done <- err
	}()
	select {
	case <-w.hit:
	case <-time.After(30 * time.Second):
		t.Fatal("the writer did not acknowledge 50 files")
	}
	if err := unix.Kill(x.initPID, unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "sandbox stopped") {
			t.Errorf("the execution ended with %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the execution did not end after its init was killed")
	}
	<-x.gone
	acks := w.acks()
	// The sandbox's mount was released with it; the next execution gets a
	// new sandbox on a new mount and sees every acknowledged file.
	last := acks[len(acks)-1]
	if got := e.ok(fmt.Sprintf("head -n1 w%d", last)); got != fmt.Sprintf("data %d\n", last) {
		t.Errorf("after the restart: %q", got)
	}
	checkAcked(t, e.fs, "/workspace", acks)
	e.check()
	if ents, _ := os.ReadDir(e.b.opts.MountDir); len(ents) != 1 {
		t.Errorf("mount points: %v", ents)
	}
}

// TestFUSE_ServerKilledMidWrite kills a desk server (a test process of its
// own serving the mount) with SIGKILL while a sandbox writes through it: the
// store, opened again, passes Check and holds every acknowledged write, and a
// new server cleans up the dead mount.
func TestFUSE_ServerKilledMidWrite(t *testing.T) {
	t.Parallel()
	requireSandbox(t, true)
	e := newEnv(t, Options{}) // for its directory
	dir := filepath.Join(e.dir, "srv")
	if err := os.MkdirAll(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// A dead mount would stop the temporary directory's removal.
		ents, _ := os.ReadDir(filepath.Join(dir, "state", "mnt"))
		for _, m := range ents {
			unix.Unmount(filepath.Join(dir, "state", "mnt", m.Name()), unix.MNT_DETACH)
		}
	})
	exe, _ := os.Executable()
	srv := exec.Command(exe, "sandbox-test-server", dir, "fuse")
	w := &ackWriter{want: 50, hit: make(chan struct{})}
	srv.Stdout = w
	var errb bytes.Buffer
	srv.Stderr = &errb
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.hit:
	case <-time.After(60 * time.Second):
		srv.Process.Kill()
		srv.Wait()
		t.Fatalf("the test server did not acknowledge 50 files:\n%s\n%s", w.String(), errb.String())
	}
	srv.Process.Signal(unix.SIGKILL)
	srv.Wait()
	acks := w.acks()
	fs, err := vfs.Open(context.Background(), filepath.Join(dir, "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	rep, err := fs.Check(context.Background())
	if err != nil || !rep.OK() {
		t.Fatalf("check after the kill: %v %v", err, rep)
	}
	checkAcked(t, fs, "/workspace", acks)
	// The dead mount is still mounted; a new backend on the same state
	// directory detaches and removes it.
	mnt := filepath.Join(dir, "state", "mnt")
	if ents, _ := os.ReadDir(mnt); len(ents) != 1 {
		t.Fatalf("mount points left: %v", ents)
	}
	b, err := New(Options{InitPath: exe, StateDir: filepath.Join(dir, "state"), RuntimeRoot: filepath.Join(dir, "runc"), CgroupParent: "desk-sandbox-test"})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
		t.Errorf("mount points left after a new server started: %v", ents)
	}
}

func BenchmarkFUSE_WarmExec(b *testing.B) {
	e := newFUSEEnv(b, Options{})
	if _, err := e.b.Run(context.Background(), e.job(0, "true")); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		out, err := e.b.Run(context.Background(), e.job(i, "true"))
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("%v %v", out, err)
		}
	}
}

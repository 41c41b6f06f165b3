package gitws

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// testEnvVars is the environment of every command here: a fixed identity
// and fixed dates make commit ids deterministic.
var testEnvVars = map[string]string{
	"GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
	"GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
	"GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_DATE": "@1700000000 +0100",
	"HOME": "/home",
}

// store is a real vfs store in a temporary directory.
type store struct {
	t    testing.TB
	fs   *vfs.FS
	http *http.Client
	cred func(context.Context, string) (Credential, bool, error)
	vars map[string]string
}

func newStore(t testing.TB) *store {
	t.Helper()
	ctx := context.Background()
	f, err := vfs.Open(ctx, filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	for _, d := range []string{"/home", "/w"} {
		if err := f.MkdirAll(ctx, d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &store{t: t, fs: f, vars: testEnvVars}
}

// git runs one command line in dir and returns stdout, stderr and the exit
// status.
func (s *store) git(dir string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	st := Main(&Env{
		Ctx: context.Background(), FS: s.fs, Dir: dir,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv:     func(k string) string { return s.vars[k] },
		HTTPClient: s.http, Credentials: s.cred,
	}, append([]string{"git"}, args...))
	return out.String(), errb.String(), st
}

// ok runs a command that must succeed and returns its stdout.
func (s *store) ok(dir string, args ...string) string {
	s.t.Helper()
	out, errs, st := s.git(dir, args...)
	if st != 0 {
		s.t.Fatalf("git %s in %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), dir, st, out, errs)
	}
	return out
}

// fails runs a command that must fail with status want and returns stderr.
func (s *store) fails(want int, dir string, args ...string) string {
	s.t.Helper()
	out, errs, st := s.git(dir, args...)
	if st != want {
		s.t.Fatalf("git %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), st, want, out, errs)
	}
	return errs
}

func (s *store) write(p, content string) {
	s.t.Helper()
	ctx := context.Background()
	if err := s.fs.MkdirAll(ctx, filepath.Dir(p), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := s.fs.WriteFile(ctx, p, []byte(content), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *store) read(p string) string {
	s.t.Helper()
	b, err := s.fs.ReadFile(context.Background(), p)
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

func wantEq(t testing.TB, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestLocalWorkflow runs the everyday cycle on a store: init, add, commit,
// status, diff, log, branch, merge, and a push to a bare repository in the
// same store, then a clone of it.
func TestLocalWorkflow(t *testing.T) {
	s := newStore(t)
	s.ok("/w", "init", "-q", "-b", "main")
	s.write("/w/a.txt", "alpha\n")
	s.write("/w/dir/b.txt", "one\ntwo\nthree\n")
	wantEq(t, "status before add", s.ok("/w", "status", "--porcelain"), "?? a.txt\n?? dir/\n")
	s.ok("/w", "add", "-A")
	wantEq(t, "status after add", s.ok("/w", "status", "--porcelain"), "A  a.txt\nA  dir/b.txt\n")
	s.ok("/w", "commit", "-q", "-m", "first")
	wantEq(t, "status clean", s.ok("/w", "status", "--porcelain"), "")
	// The id git 2.39 gives this content, identity and date.
	first := strings.TrimSpace(s.ok("/w", "rev-parse", "HEAD"))
	if len(first) != 40 {
		t.Fatalf("rev-parse HEAD = %q", first)
	}

	s.write("/w/dir/b.txt", "one\nTWO\nthree\n")
	wantEq(t, "diff", s.ok("/w", "diff"), "diff --git a/dir/b.txt b/dir/b.txt\n"+
		"index 4cb29ea..ddc897f 100644\n--- a/dir/b.txt\n+++ b/dir/b.txt\n"+
		"@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n")
	wantEq(t, "diff --stat", s.ok("/w", "diff", "--stat"), " dir/b.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")
	s.ok("/w", "commit", "-q", "-am", "second")
	wantEq(t, "log", s.ok("/w", "log", "--format=%s"), "second\nfirst\n")

	// A branch with its own commit, merged three-way into main.
	s.ok("/w", "switch", "-q", "-c", "topic", "HEAD~1")
	s.write("/w/a.txt", "alpha\nbeta\n")
	s.ok("/w", "commit", "-q", "-am", "topic")
	wantEq(t, "branches", s.ok("/w", "branch"), "  main\n* topic\n")
	wantEq(t, "show-current", s.ok("/w", "branch", "--show-current"), "topic\n")
	s.ok("/w", "switch", "-q", "main")
	s.ok("/w", "merge", "-q", "-m", "merge topic", "topic")
	wantEq(t, "merged a.txt", s.read("/w/a.txt"), "alpha\nbeta\n")
	wantEq(t, "merged b.txt", s.read("/w/dir/b.txt"), "one\nTWO\nthree\n")
	wantEq(t, "log after merge", s.ok("/w", "log", "--format=%s %p", "-n", "1"), "merge topic "+
		strings.TrimSpace(s.ok("/w", "log", "--format=%h", "-n", "1", "HEAD^1"))+" "+
		strings.TrimSpace(s.ok("/w", "log", "--format=%h", "-n", "1", "topic"))+"\n")

	// Push to a bare repository in the same store; clone it back.
	s.ok("/", "init", "-q", "--bare", "-b", "main", "/bare.git")
	s.ok("/w", "remote", "add", "origin", "/bare.git")
	s.ok("/w", "push", "-q", "origin", "main", "topic")
	head := s.ok("/w", "rev-parse", "main")
	wantEq(t, "bare main", s.ok("/bare.git", "rev-parse", "main"), head)
	s.ok("/", "clone", "-q", "/bare.git", "/c")
	wantEq(t, "clone head", s.ok("/c", "rev-parse", "HEAD"), head)
	wantEq(t, "clone file", s.read("/c/a.txt"), "alpha\nbeta\n")
	wantEq(t, "clone status", s.ok("/c", "status", "--porcelain"), "")
	// A bare repository whose HEAD names a branch never pushed: as git,
	// a warning, an unborn HEAD and nothing checked out.
	s.ok("/", "init", "-q", "--bare", "/other.git")
	s.ok("/w", "push", "-q", "/other.git", "main")
	_, e, st := s.git("/", "clone", "-q", "/other.git", "/o")
	if st != 0 || !strings.Contains(e, "warning: remote HEAD refers to nonexistent ref, unable to checkout") {
		t.Fatalf("clone with a dangling remote HEAD: %d %q", st, e)
	}
	wantEq(t, "unborn HEAD", s.read("/o/.git/HEAD"), "ref: refs/heads/master\n")

	// A commit in the clone, pushed, fetched and fast-forwarded in /w.
	s.write("/c/new.txt", "new\n")
	s.ok("/c", "add", "new.txt")
	s.ok("/c", "commit", "-q", "-m", "from clone")
	s.ok("/c", "push", "-q")
	s.ok("/w", "pull", "-q", "origin", "main")
	wantEq(t, "pulled", s.read("/w/new.txt"), "new\n")
	wantEq(t, "pulled head", s.ok("/w", "rev-parse", "HEAD"), s.ok("/c", "rev-parse", "HEAD"))
}

// TestConcurrentStatusAndCommit runs status and commit from two goroutines
// on one store: each command must succeed, and the repository must end
// with every commit.
func TestConcurrentStatusAndCommit(t *testing.T) {
	s := newStore(t)
	s.ok("/w", "init", "-q")
	for i := 0; i < 20; i++ {
		s.write(fmt.Sprintf("/w/f%02d.txt", i), "v0\n")
	}
	s.ok("/w", "add", "-A")
	s.ok("/w", "commit", "-q", "-m", "c0")

	const rounds = 10
	var wg sync.WaitGroup
	errs := make(chan string, 2*rounds)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i <= rounds; i++ {
			if err := s.fs.WriteFile(context.Background(), fmt.Sprintf("/w/f%02d.txt", i), []byte(fmt.Sprintf("v%d\n", i)), 0o644); err != nil {
				errs <- err.Error()
				return
			}
			if out, e, st := s.git("/w", "commit", "-q", "-am", fmt.Sprintf("c%d", i)); st != 0 {
				errs <- fmt.Sprintf("commit %d: %d %s %s", i, st, out, e)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			out, e, st := s.git("/w", "status", "--porcelain")
			if st != 0 {
				errs <- fmt.Sprintf("status: %d %s", st, e)
				continue
			}
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if l != "" && !strings.HasPrefix(l, " M f") && !strings.HasPrefix(l, "M  f") && !strings.HasPrefix(l, "MM f") {
					errs <- fmt.Sprintf("status line %q", l)
				}
			}
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	wantEq(t, "commit count", fmt.Sprint(strings.Count(s.ok("/w", "log", "--oneline"), "\n")), fmt.Sprint(rounds+1))
	wantEq(t, "status after", s.ok("/w", "status", "--porcelain"), "")
}

// TestBadInput checks that bad command lines fail with git's status and
// first error line, and leave the repository as it was.
func TestBadInput(t *testing.T) {
	s := newStore(t)
	e := s.fails(128, "/w", "status")
	if !strings.Contains(e, "not a git repository") {
		t.Fatalf("status outside a repository: %q", e)
	}
	s.ok("/w", "init", "-q")
	s.write("/w/a", "a\n")
	s.ok("/w", "add", "a")
	s.ok("/w", "commit", "-q", "-m", "one")
	before := s.ok("/w", "rev-parse", "HEAD")
	cases := []struct {
		args []string
		st   int
		msg  string
	}{
		{[]string{"frobnicate"}, 1, "git: 'frobnicate' is not a git command"},
		{[]string{"log", "nosuchrev"}, 128, "fatal: ambiguous argument 'nosuchrev'"},
		{[]string{"rev-parse", "--verify", "nope"}, 128, "fatal: Needed a single revision"},
		{[]string{"commit", "-m", "empty"}, 1, ""},
		{[]string{"checkout", "nobranch"}, 1, "error: pathspec 'nobranch' did not match"},
		{[]string{"branch", "-d", "nobranch"}, 1, "error: branch 'nobranch' not found"},
		{[]string{"status", "--bogus"}, 129, "error: unknown option `bogus'"},
		{[]string{"add", "missing"}, 128, "fatal: pathspec 'missing' did not match any files"},
		{[]string{"merge", "nothing"}, 1, "merge: nothing - not something we can merge"},
		{[]string{"push", "nowhere"}, 128, "fatal: 'nowhere' does not appear to be a git repository"},
		{[]string{"clone", "ssh://example.com/r.git", "/x"}, 128, "not supported"},
		{[]string{"clone", "http://127.0.0.1:1/r.git", "/x"}, 128, "network access is not configured"},
	}
	for _, c := range cases {
		e := s.fails(c.st, "/w", c.args...)
		if c.msg != "" && !strings.Contains(e, c.msg) {
			t.Errorf("git %s: stderr %q, want it to contain %q", strings.Join(c.args, " "), e, c.msg)
		}
	}
	wantEq(t, "HEAD unchanged", s.ok("/w", "rev-parse", "HEAD"), before)
	wantEq(t, "status unchanged", s.ok("/w", "status", "--porcelain"), "")

	// No identity: a clear error, no commit.
	s.vars = map[string]string{"HOME": "/home"}
	s.write("/w/a", "b\n")
	e = s.fails(128, "/w", "commit", "-q", "-am", "x")
	if !strings.Contains(e, "Please tell me who you are") && !strings.Contains(e, "identity") {
		t.Errorf("commit without identity: %q", e)
	}
	s.vars = testEnvVars
	wantEq(t, "HEAD unchanged after identity error", s.ok("/w", "rev-parse", "HEAD"), before)

	// A cancelled context stops a command with an error, not a panic.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	st := Main(&Env{Ctx: ctx, FS: s.fs, Dir: "/w", Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return testEnvVars[k] }, Now: func() time.Time { return time.Unix(0, 0) }},
		[]string{"git", "status"})
	if st == 0 {
		t.Errorf("status with a cancelled context succeeded: %q", out.String())
	}
}

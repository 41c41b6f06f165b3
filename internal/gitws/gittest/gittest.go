package gittest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

// Identity is the environment that fixes who commits and when, so commit
// ids are the same wherever the same content is committed.
var Identity = map[string]string{
	"GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
	"GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
	"GIT_AUTHOR_DATE": "@1700000000 +0100", "GIT_COMMITTER_DATE": "@1700000000 +0100",
}

// Env is the process environment of Git: Identity, HOME=home, no system
// configuration, the C locale and PATH.
func Env(home string) []string {
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C", "LC_ALL=C"}
	for k, v := range Identity {
		env = append(env, k+"="+v)
	}
	return env
}

// Git runs the machine's git in dir (HOME is dir) and returns its stdout;
// a failure fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := GitErr(dir, nil, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// GitErr runs the machine's git in dir with stdin (nil: none) and returns
// its stdout, or an error with its stderr.
func GitErr(dir string, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = Env(dir)
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return stdout.String(), nil
}

// HTTPBackend is the path of the machine's git http-backend.
func HTTPBackend(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("git http-backend: %v", err)
	}
	return p
}

// Server starts the real git http-backend under net/http/cgi on 127.0.0.1,
// serving the repositories under root at /NAME.git, pushes included (the
// requests come as REMOTE_USER "test"). It stops when the test ends.
func Server(t testing.TB, root string) *httptest.Server {
	t.Helper()
	h := &cgi.Handler{
		Path:   HTTPBackend(t),
		Dir:    root,
		Env:    []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root, "REMOTE_USER=test"},
		Stderr: testLog{t},
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// testLog writes a CGI program's stderr to the test's log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("git http-backend: %s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// SmallRepo makes root/NAME.git, a bare repository with two commits on
// main ("one": a.txt; "two": b.txt), written by the real git with Identity.
// It returns the bare repository's path.
func SmallRepo(t testing.TB, root, name string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	Git(t, root, "init", "-q", "-b", "main", src)
	for _, f := range []struct{ name, body, msg string }{{"a.txt", "alpha\n", "one"}, {"b.txt", "beta\n", "two"}} {
		if err := os.WriteFile(filepath.Join(src, f.name), []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		Git(t, src, "add", "-A")
		Git(t, src, "commit", "-q", "-m", f.msg)
	}
	bare := filepath.Join(root, name+".git")
	Git(t, root, "clone", "-q", "--bare", src, bare)
	return bare
}

// BigRepo describes a repository made by Big.
type BigRepo struct {
	Files   int // files in the last commit's tree
	Commits int
	Dirs    int // directories the files are spread over
}

// Big writes a bare repository at dir (branch main) whose last commit has
// r.Files files in r.Dirs directories, and r.Commits commits, with git
// fast-import (one process, one pack): the first commit adds most files,
// each later one adds one and changes three, and every message has a
// subject and a body, so history, diffs and logs have substance. The
// content is a function of r alone, so the same r always gives the same
// commit ids.
func Big(t testing.TB, dir string, r BigRepo) {
	t.Helper()
	if r.Dirs <= 0 {
		r.Dirs = 1
	}
	Git(t, filepath.Dir(dir), "init", "-q", "--bare", "-b", "main", dir)
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		err := writeStream(w, r)
		if err == nil {
			err = w.Flush()
		}
		pw.CloseWithError(err)
	}()
	if _, err := GitErr(dir, pr, "fast-import", "--quiet", "--done"); err != nil {
		t.Fatal(err)
	}
}

// bigFile is the name of file i of r.
func bigFile(r BigRepo, i int) string {
	return fmt.Sprintf("d%03d/f%05d.txt", i%r.Dirs, i)
}

// writeStream writes r's history as a fast-import stream.
func writeStream(w *bufio.Writer, r BigRepo) error {
	const when = 1700000000
	base := r.Files - (r.Commits - 1) // files of the first commit; each later commit adds one
	if base < 1 {
		return fmt.Errorf("a repository of %d commits needs at least %d files", r.Commits, r.Commits)
	}
	blob := func(path string, gen int) {
		body := fmt.Sprintf("%s generation %d\nline two of %s\nline three\n", path, gen, path)
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(body), body)
	}
	for c := 0; c < r.Commits; c++ {
		msg := fmt.Sprintf("commit %d\n\nThe body of commit %d.\n", c, c)
		fmt.Fprintf(w, "commit refs/heads/main\nmark :%d\n", c+1)
		fmt.Fprintf(w, "author A U Thor <author@example.com> %d +0000\n", when+c*60)
		fmt.Fprintf(w, "committer C O Mitter <committer@example.com> %d +0000\n", when+c*60)
		fmt.Fprintf(w, "data %d\n%s", len(msg), msg)
		if c == 0 {
			for i := 0; i < base; i++ {
				blob(bigFile(r, i), 0)
			}
		} else {
			fmt.Fprintf(w, "from :%d\n", c)
			blob(bigFile(r, base+c-1), c) // a new file
			for k := 0; k < 3; k++ {      // three changed ones
				blob(bigFile(r, (c*7919+k*104729)%base), c)
			}
		}
		w.WriteString("\n")
	}
	_, err := w.WriteString("done\n")
	return err
}

// Tree is `git ls-files -s` and `git log --format=%H %T` of the repository
// at dir by the real git: what two repositories with the same content and
// history agree on.
func Tree(t testing.TB, dir string) string {
	t.Helper()
	return Git(t, dir, "ls-files", "-s") + Git(t, dir, "log", "--format=%H %T")
}

// Export copies the store's tree below root into the host directory dst
// (directories, files with their permission bits, symbolic links), for the
// real git to read.
func Export(t testing.TB, f *vfs.FS, root, dst string) {
	t.Helper()
	ctx := context.Background()
	var walk func(p, d string)
	walk = func(p, d string) {
		ents, err := f.ReadDir(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			sp, dp := p+"/"+e.Name, filepath.Join(d, e.Name)
			switch e.Mode & vfs.S_IFMT {
			case vfs.S_IFDIR:
				if err := os.MkdirAll(dp, 0o755); err != nil {
					t.Fatal(err)
				}
				walk(sp, dp)
			case vfs.S_IFLNK:
				tg, err := f.Readlink(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tg, dp); err != nil {
					t.Fatal(err)
				}
			default:
				data, err := f.ReadFile(ctx, sp)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dp, data, fs.FileMode(e.Mode&0o777)); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dp, fs.FileMode(e.Mode&0o777)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	walk(root, dst)
}

// Import copies the host directory src into the store at dst (created),
// files with their permission bits and symbolic links.
func Import(t testing.TB, f *vfs.FS, src, dst string) {
	t.Helper()
	ctx := context.Background()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		sp := dst
		if rel != "." {
			sp = dst + "/" + filepath.ToSlash(rel)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return f.MkdirAll(ctx, sp, fi.Mode().Perm())
		case d.Type()&fs.ModeSymlink != 0:
			tg, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return f.Symlink(ctx, tg, sp)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return f.WriteFile(ctx, sp, data, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatalf("import %s into the store: %v", src, err)
	}
}

// BigScript is a bash script of git commands over a big repository (Big):
// clone $SRC into big, then status, log (all of it, with --stat, by path),
// diffs between revisions, 100 files changed, 10 deleted, one added,
// status and diffs of that, a commit and the log after it. Its stdout is
// the same wherever git is git: tests run it through desk's backends and
// through the real git on a temporary directory and compare.
const BigScript = `set -e
git clone -q "$SRC" big
cd big
echo "== status"; git status --porcelain; git status
echo "== log"; git log --format='%H %T %P %an <%ae> %aI %s'
echo "== log -n 20 --stat"; git log -n 20 --stat
echo "== log path"; git log --oneline -- d007
echo "== diff --stat"; git diff --stat HEAD~20 HEAD
echo "== diff"; git diff HEAD~3 HEAD
for f in $(git ls-files | head -n 100); do echo appended >> "$f"; done
for f in $(git ls-files | tail -n 10); do rm "$f"; done
mkdir -p added && echo new > added/new.txt
echo "== changed status"; git status --porcelain; git status
echo "== changed diff --stat"; git diff --stat
echo "== changed diff --name-status"; git diff --name-status
echo "== changed diff"; git diff
git add -A
echo "== cached"; git diff --cached --stat
git commit -q -m "a big change"
echo "== after commit"; git status --porcelain; git log -n 2 --format='%H %T %s'; git log -n 1 --stat
`

// Bash runs script with the host's bash in dir, with Env(dir) and vars,
// and returns its stdout, stderr and exit status.
func Bash(t testing.TB, dir string, vars map[string]string, script string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = Env(dir)
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("bash: %v", err)
	}
	return out.String(), errb.String(), code
}

// FirstDiff describes where a and b first differ, by line, with a few
// lines of context ("" when they are equal).
func FirstDiff(a, b string) string {
	if a == b {
		return ""
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	from := max(0, i-3)
	ctx := func(l []string) string {
		return strings.Join(l[from:min(len(l), i+3)], "\n")
	}
	return fmt.Sprintf("first difference at line %d (of %d and %d):\n--- one:\n%s\n--- other:\n%s", i+1, len(la), len(lb), ctx(la), ctx(lb))
}

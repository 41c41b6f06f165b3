package gitws

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// The benchmarks compare this package on a store (the SQLite file on the
// temporary directory's file system, ext4 here) with the real git on tmpfs
// (/dev/shm) and on ext4 (os.TempDir), on one repository of benchFiles
// files and benchCommits commits built by git fast-import. Each iteration
// runs the operation once in each of the three and reports each one's
// milliseconds and the ratios of gitws to git on ext4 and on tmpfs.
const (
	benchDirs    = 100
	benchPerDir  = 100 // benchDirs*benchPerDir files
	benchCommits = 500
	benchChanged = 100 // files changed by the "100 changed files" rows
)

// benchFixture is the shared repository, built once per test binary.
type benchFixture struct {
	root, shm string // temporary directories (ext4, tmpfs)
	src       string // the bare source repository (ext4)
	ext4, tmp string // real git work trees
	fs        *vfs.FS
	err       error
}

var (
	fixOnce sync.Once
	fix     benchFixture
)

func benchPath(i int) string {
	return fmt.Sprintf("d%03d/f%03d.txt", i/benchPerDir, i%benchPerDir)
}

func benchContent(i, rev int) string {
	var b strings.Builder
	for l := 0; l < 10; l++ {
		fmt.Fprintf(&b, "file %d line %d\n", i, l)
	}
	if rev > 0 {
		fmt.Fprintf(&b, "revision %d\n", rev)
	}
	return b.String()
}

// hostGit runs the real git in dir, its output discarded.
func hostGit(dir string, stdin io.Reader, args ...string) error {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C"}
	for k, v := range testEnvVars {
		if k != "HOME" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return nil
}

// fastImport writes the history: the first commit adds every file, each
// later one changes 20 of them.
func fastImport(w io.Writer) error {
	bw := bufio.NewWriter(w)
	data := func(s string) { fmt.Fprintf(bw, "data %d\n%s\n", len(s), s) }
	for c := 0; c < benchCommits; c++ {
		fmt.Fprintf(bw, "commit refs/heads/main\nmark :%d\n", c+1)
		fmt.Fprintf(bw, "author A U Thor <author@example.com> %d +0000\n", 1700000000+c)
		fmt.Fprintf(bw, "committer C O Mitter <committer@example.com> %d +0000\n", 1700000000+c)
		data(fmt.Sprintf("commit %d", c))
		if c > 0 {
			fmt.Fprintf(bw, "from :%d\n", c)
		}
		if c == 0 {
			for i := 0; i < benchDirs*benchPerDir; i++ {
				fmt.Fprintf(bw, "M 100644 inline %s\n", benchPath(i))
				data(benchContent(i, 0))
			}
			continue
		}
		for k := 0; k < 20; k++ {
			i := (c*97 + k*389) % (benchDirs * benchPerDir)
			fmt.Fprintf(bw, "M 100644 inline %s\n", benchPath(i))
			data(benchContent(i, c))
		}
	}
	fmt.Fprint(bw, "done\n")
	return bw.Flush()
}

// copyToStore copies the host directory src into the store at dst.
func copyToStore(ctx context.Context, f *vfs.FS, src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := vfs.Clean(dst + "/" + filepath.ToSlash(rel))
		if d.IsDir() {
			return f.MkdirAll(ctx, to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return f.WriteFile(ctx, to, b, 0o644)
	})
}

func buildFixture() {
	ctx := context.Background()
	var err error
	defer func() { fix.err = err }()
	if fix.root, err = os.MkdirTemp("", "gitws-bench-"); err != nil {
		return
	}
	if fix.shm, err = os.MkdirTemp("/dev/shm", "gitws-bench-"); err != nil {
		return
	}
	fix.src = filepath.Join(fix.root, "src.git")
	if err = hostGit(fix.root, nil, "init", "-q", "--bare", "-b", "main", fix.src); err != nil {
		return
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(fastImport(pw)) }()
	if err = hostGit(fix.src, pr, "fast-import", "--quiet", "--done"); err != nil {
		return
	}
	if err = hostGit(fix.src, nil, "repack", "-adq"); err != nil {
		return
	}
	fix.ext4 = filepath.Join(fix.root, "w")
	fix.tmp = filepath.Join(fix.shm, "w")
	for _, w := range []string{fix.ext4, fix.tmp} {
		if err = hostGit(fix.root, nil, "clone", "-q", fix.src, w); err != nil {
			return
		}
		if err = hostGit(w, nil, "status", "--porcelain"); err != nil {
			return
		}
	}
	if fix.fs, err = vfs.Open(ctx, filepath.Join(fix.root, "ws.db"), vfs.Options{}); err != nil {
		return
	}
	if err = copyToStore(ctx, fix.fs, fix.src, "/src.git"); err != nil {
		return
	}
	if _, e, st := benchGitws("/", "clone", "-q", "/src.git", "/w"); st != 0 {
		err = fmt.Errorf("gitws clone: %s", e)
		return
	}
	if _, e, st := benchGitws("/w", "status", "--porcelain"); st != 0 {
		err = fmt.Errorf("gitws status: %s", e)
	}
}

// benchGitws runs a gitws command on the fixture's store.
func benchGitws(dir string, args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	st := Main(&Env{
		Ctx: context.Background(), FS: fix.fs, Dir: dir,
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return testEnvVars[k] },
	}, append([]string{"git"}, args...))
	return out.String(), errb.String(), st
}

func fixture(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Fatalf("the benchmarks compare with the real git: %v", err)
	}
	fixOnce.Do(buildFixture)
	if fix.err != nil {
		b.Fatal(fix.err)
	}
}

// removeFixture removes the fixture's directories (TestMain, after the run).
func removeFixture() {
	if fix.fs != nil {
		_ = fix.fs.Close()
	}
	for _, d := range []string{fix.root, fix.shm} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	removeFixture()
	os.Exit(code)
}

// benchSide is one of the three repositories an iteration runs in.
type benchSide struct {
	name string
	run  func(args ...string) error
	// write replaces the content of a work tree file (rel path).
	write func(rel, content string) error
	total time.Duration
}

func benchSides() []*benchSide {
	ctx := context.Background()
	host := func(name, dir string) *benchSide {
		return &benchSide{name: name,
			run: func(args ...string) error { return hostGit(dir, nil, args...) },
			write: func(rel, content string) error {
				return os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644)
			}}
	}
	return []*benchSide{
		{name: "gitws",
			run: func(args ...string) error {
				if _, e, st := benchGitws("/w", args...); st != 0 {
					return fmt.Errorf("gitws %s: exit %d: %s", strings.Join(args, " "), st, e)
				}
				return nil
			},
			write: func(rel, content string) error {
				return fix.fs.WriteFile(ctx, "/w/"+rel, []byte(content), 0o644)
			}},
		host("git-tmpfs", fix.tmp),
		host("git-ext4", fix.ext4),
	}
}

// benchRows runs op (timed) in each benchSide per iteration, with prepare (not
// timed) before each, and reports each benchSide's ms/op and gitws's ratios.
func benchRows(b *testing.B, prepare func(s *benchSide, i int) error, op ...string) {
	fixture(b)
	ss := benchSides()
	for _, s := range ss {
		if err := s.run("reset", "-q", "--hard"); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range ss {
			if prepare != nil {
				b.StopTimer()
				if err := prepare(s, i); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			t0 := time.Now()
			if err := s.run(op...); err != nil {
				b.Fatal(err)
			}
			s.total += time.Since(t0)
		}
	}
	b.StopTimer()
	ms := func(s *benchSide) float64 { return float64(s.total.Microseconds()) / 1000 / float64(b.N) }
	for _, s := range ss {
		b.ReportMetric(ms(s), s.name+"-ms/op")
	}
	b.ReportMetric(ms(ss[0])/ms(ss[2]), "x-ext4")
	b.ReportMetric(ms(ss[0])/ms(ss[1]), "x-tmpfs")
	for _, s := range ss {
		if err := s.run("reset", "-q", "--hard"); err != nil {
			b.Fatal(err)
		}
	}
}

// change100 makes benchChanged files differ from HEAD (once per run).
func change100(s *benchSide, i int) error {
	if i > 0 {
		return nil
	}
	return changeFiles(s, -1)
}

func changeFiles(s *benchSide, rev int) error {
	for k := 0; k < benchChanged; k++ {
		j := k * (benchDirs * benchPerDir / benchChanged)
		if err := s.write(benchPath(j), benchContent(j, 0)+fmt.Sprintf("changed %d\n", rev)); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkStatusClean(b *testing.B) { benchRows(b, nil, "status", "--porcelain") }

func BenchmarkStatus100Changed(b *testing.B) { benchRows(b, change100, "status", "--porcelain") }

func BenchmarkDiffStat100Changed(b *testing.B) { benchRows(b, change100, "diff", "--stat") }

var commitRev int

func BenchmarkCommit100Changed(b *testing.B) {
	// The revision counts on across the runs of the benchmark (b.N 1,
	// then more), so every commit has something to commit.
	benchRows(b, func(s *benchSide, i int) error {
		if s.name == "gitws" {
			commitRev++
		}
		return changeFiles(s, commitRev)
	}, "commit", "-qam", "change 100")
}

func BenchmarkLog100(b *testing.B) { benchRows(b, nil, "log", "-n", "100") }

// BenchmarkCloneLocal clones the 10,000-file, 500-commit repository: gitws
// from a bare copy in the store into the store, the real git from the bare
// repository on ext4 into tmpfs and into ext4 (git's local clone).
func BenchmarkCloneLocal(b *testing.B) {
	fixture(b)
	ctx := context.Background()
	rows := []struct {
		name  string
		clone func(i int) error
		clean func(i int) error
		total time.Duration
	}{
		{name: "gitws",
			clone: func(i int) error {
				if _, e, st := benchGitws("/", "clone", "-q", "/src.git", fmt.Sprintf("/clone%d", i)); st != 0 {
					return fmt.Errorf("gitws clone: %s", e)
				}
				return nil
			},
			clean: func(i int) error { return fix.fs.RemoveAll(ctx, fmt.Sprintf("/clone%d", i)) }},
		{name: "git-tmpfs",
			clone: func(i int) error {
				return hostGit(fix.shm, nil, "clone", "-q", fix.src, filepath.Join(fix.shm, fmt.Sprint("clone", i)))
			},
			clean: func(i int) error { return os.RemoveAll(filepath.Join(fix.shm, fmt.Sprint("clone", i))) }},
		{name: "git-ext4",
			clone: func(i int) error {
				return hostGit(fix.root, nil, "clone", "-q", fix.src, filepath.Join(fix.root, fmt.Sprint("clone", i)))
			},
			clean: func(i int) error { return os.RemoveAll(filepath.Join(fix.root, fmt.Sprint("clone", i))) }},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range rows {
			t0 := time.Now()
			if err := rows[k].clone(i); err != nil {
				b.Fatal(err)
			}
			rows[k].total += time.Since(t0)
			b.StopTimer()
			if err := rows[k].clean(i); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	for _, r := range rows {
		b.ReportMetric(ms(r.total), r.name+"-ms/op")
	}
	b.ReportMetric(ms(rows[0].total)/ms(rows[2].total), "x-ext4")
	b.ReportMetric(ms(rows[0].total)/ms(rows[1].total), "x-tmpfs")
}

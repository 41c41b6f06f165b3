package artifact

import (
	"context"
	"fmt"
	"io/fs"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Clone benchmark: one repository of benchFiles files in benchCommits
// commits, made by the real git and packed by git clone --bare, served
// (the same bytes) by desk from a workspace store and by the real git
// http-backend (under net/http/cgi) from the disk; each iteration runs
// the real git clone once from each and reports both times and their
// ratio.
const (
	benchDirs    = 100
	benchPerDir  = 100 // benchDirs*benchPerDir files
	benchCommits = 5
)

func hostRun(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C",
		"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=c", "GIT_COMMITTER_EMAIL=c@example.com"}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// copyIn copies the host directory src into the store at dst.
func copyIn(ctx context.Context, b *testing.B, f *vfs.FS, src, dst string) {
	b.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := dst + "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			return f.MkdirAll(ctx, to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return f.WriteFile(ctx, to, data, 0o644)
	})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkClone10k(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	src := filepath.Join(root, "src")
	hostRun(b, root, "init", "-q", "-b", "main", src)
	for c := range benchCommits {
		for i := range benchDirs * benchPerDir {
			if c > 0 && i%10 != c {
				continue // later commits change a tenth of the files each
			}
			p := filepath.Join(src, fmt.Sprintf("d%03d/f%03d.txt", i/benchPerDir, i%benchPerDir))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			var s strings.Builder
			for l := range 20 {
				fmt.Fprintf(&s, "file %d line %d revision %d\n", i, l, c)
			}
			if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		hostRun(b, src, "add", "-A")
		hostRun(b, src, "commit", "-q", "-m", fmt.Sprintf("commit %d", c))
	}
	bare := filepath.Join(root, "git", "site.git")
	hostRun(b, root, "clone", "-q", "--bare", src, bare)

	// The real git http-backend on the bare repository.
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		b.Fatal(err)
	}
	backend := &cgi.Handler{Path: filepath.Join(strings.TrimSpace(string(out)), "git-http-backend"), Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Join(root, "git"), "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root}}
	real := httptest.NewServer(backend)
	defer real.Close()

	// desk: the same repository in a workspace store, published.
	fx := newFixture(b)
	copyIn(ctx, b, fx.fs, bare, "/workspace/site.git")
	if _, err := fx.st.Create(ctx, "ws", "site", "/workspace/site.git"); err != nil {
		b.Fatal(err)
	}
	m, err := fx.st.Mint(ctx, "ws", "site", ScopeRead, 0)
	if err != nil {
		b.Fatal(err)
	}
	sides := []struct {
		name, url string
		total     time.Duration
	}{
		{"desk", fx.url("site", m.Secret), 0},
		{"http-backend", real.URL + "/site.git", 0},
	}
	work := filepath.Join(root, "clones")
	b.ResetTimer()
	for range b.N {
		for i := range sides {
			b.StopTimer()
			os.RemoveAll(work)
			if err := os.MkdirAll(work, 0o755); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			start := time.Now()
			hostRun(b, work, "clone", "-q", sides[i].url, "c")
			sides[i].total += time.Since(start)
		}
	}
	b.StopTimer()
	n := len(strings.Split(strings.TrimSpace(func() string {
		o, _ := exec.Command("git", "-C", filepath.Join(work, "c"), "ls-files").Output()
		return string(o)
	}()), "\n"))
	if n != benchDirs*benchPerDir {
		b.Fatalf("the last clone has %d files, want %d", n, benchDirs*benchPerDir)
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
	b.ReportMetric(ms(sides[0].total), "desk-ms/op")
	b.ReportMetric(ms(sides[1].total), "http-backend-ms/op")
	b.ReportMetric(ms(sides[0].total)/ms(sides[1].total), "x-http-backend")
}

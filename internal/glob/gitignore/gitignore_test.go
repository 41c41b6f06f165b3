package gitignore

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// requireGit returns git's path; git is part of the test environment
// (make test-setup), so its absence fails the test.
func requireGit(t *testing.T) string {
	t.Helper()
	g, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed to check the ignore rules against: %v", err)
	}
	return g
}

// walk lists the files of the tree at root (slash paths relative to it)
// that the ignore files leave in, not descending into ignored directories.
func walk(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	var rec func(dir string, rules Rules)
	rec = func(dir string, rules Rules) {
		abs := filepath.Join(root, filepath.FromSlash(dir))
		if data, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
			if rules, err = rules.Add(data, dir); err != nil {
				t.Fatal(err)
			}
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.Name() == ".git" {
				continue
			}
			p := path.Join(dir, e.Name())
			if rules.Ignored(p, e.IsDir()) {
				continue
			}
			if e.IsDir() {
				rec(p, rules)
			} else {
				out = append(out, strings.TrimPrefix(p, "/"))
			}
		}
	}
	rec("/", nil)
	slices.Sort(out)
	return out
}

// gitFiles is what git lists as untracked and not ignored.
func gitFiles(t *testing.T, git, root string) []string {
	t.Helper()
	cmd := exec.Command(git, "-c", "core.excludesFile=/dev/null", "ls-files", "-z", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for f := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return files
}

func gitInit(t *testing.T, git, root string) {
	t.Helper()
	cmd := exec.Command(git, "init", "-q", root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
}

// write makes the files (a trailing "/" makes a directory) under root.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAgainstGit_cases: hand-written trees, each naming the git rule it is
// about, compared with what git lists.
func TestAgainstGit_cases(t *testing.T) {
	git := requireGit(t)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"name at any depth", map[string]string{".gitignore": "*.log\n", "a.log": "", "d/b.log": "", "d/c.txt": ""},
			[]string{".gitignore", "d/c.txt"}},
		{"negation", map[string]string{".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": "", "d/keep.log": ""},
			[]string{".gitignore", "d/keep.log", "keep.log"}},
		{"a re-included directory does not re-include what a rule excludes inside it",
			map[string]string{".gitignore": "*.txt\n!dir/\n", "dir/a.txt": "", "dir/b.md": ""},
			[]string{".gitignore", "dir/b.md"}},
		{"nothing inside an excluded directory comes back",
			map[string]string{".gitignore": "build/\n!build/keep\n", "build/keep": "", "build/x": ""},
			[]string{".gitignore"}},
		{"anchored", map[string]string{".gitignore": "/top\nmid/file\n", "top": "", "d/top": "", "mid/file": "", "d/mid/file": ""},
			[]string{".gitignore", "d/mid/file", "d/top"}},
		{"dir-only", map[string]string{".gitignore": "out/\n", "out": "", "d/out/x": ""},
			[]string{".gitignore", "out"}},
		{"** in the middle backtracks", map[string]string{".gitignore": "a/**/b/c\n", "a/b/x/b/c": "", "a/b/c": "", "a/b/d": ""},
			[]string{".gitignore", "a/b/d"}},
		{"trailing /** keeps the directory", map[string]string{".gitignore": "d/**\n!d/keep\n", "d/keep": "", "d/x": ""},
			[]string{".gitignore", "d/keep"}},
		{"leading **/", map[string]string{".gitignore": "**/gen/*.go\n", "gen/a.go": "", "x/y/gen/b.go": "", "x/gen/s/c.go": ""},
			[]string{".gitignore", "x/gen/s/c.go"}},
		{"nested files override", map[string]string{".gitignore": "*.tmp\n", "d/.gitignore": "!*.tmp\n/local\n", "a.tmp": "", "d/b.tmp": "", "d/local": "", "local": ""},
			[]string{".gitignore", "d/.gitignore", "d/b.tmp", "local"}},
		{"escapes, comments and spaces", map[string]string{".gitignore": "#c\n\\#h\n\\!b\nsp\\ \ntrail   \n", "#c": "", "#h": "", "!b": "", "sp ": "", "trail": "", "c": ""},
			[]string{"#c", ".gitignore", "c"}},
		{"classes and ?", map[string]string{".gitignore": "[ab]?.txt\n[[:digit:]]*\n", "ax.txt": "", "cx.txt": "", "9z": "", "z9": ""},
			[]string{".gitignore", "cx.txt", "z9"}},
		{"stars do not cross /", map[string]string{".gitignore": "a/*.c\n", "a/x.c": "", "a/b/y.c": ""},
			[]string{".gitignore", "a/b/y.c"}},
		{"dot files match *", map[string]string{".gitignore": "*\n!*/\n!.gitignore\n!*.keep\n", ".env": "", "d/.x.keep": "", "d/y": ""},
			[]string{".gitignore", "d/.x.keep"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			gitInit(t, git, root)
			write(t, root, tc.files)
			got, ref := walk(t, root), gitFiles(t, git, root)
			if !slices.Equal(ref, tc.want) {
				t.Errorf("git lists %q, the case expects %q", ref, tc.want)
			}
			if !slices.Equal(got, ref) {
				t.Errorf("got %q, git lists %q", got, ref)
			}
		})
	}
}

// TestAgainstGit_generated: random trees with random ignore files (nested,
// negated, anchored, dir-only, with ** and classes), each compared with
// git's listing. The seed is fixed, so a failure repeats.
func TestAgainstGit_generated(t *testing.T) {
	git := requireGit(t)
	rng := rand.New(rand.NewPCG(12, 34))
	names := []string{"a", "b", "src", "build", "x.log", "y.txt", ".hid", "gen"}
	dirs := []string{"", "a/", "src/", "a/b/", "src/gen/", "build/"}
	pat := func() string {
		var b strings.Builder
		if rng.IntN(5) == 0 {
			b.WriteString("!")
		}
		switch rng.IntN(4) {
		case 0:
			b.WriteString("/")
		case 1:
			b.WriteString("**/")
		}
		segs := 1 + rng.IntN(2)
		for i := range segs {
			if i > 0 {
				b.WriteString([]string{"/", "/**/"}[rng.IntN(2)])
			}
			b.WriteString([]string{"a", "b", "src", "build", "*.log", "*.txt", "*", "?", "[ab]", ".hid", "gen", "x*"}[rng.IntN(12)])
		}
		switch rng.IntN(5) {
		case 0:
			b.WriteString("/")
		case 1:
			b.WriteString("/**")
		}
		return b.String()
	}
	const trees = 60
	for n := range trees {
		files := map[string]string{}
		for range 12 {
			d := dirs[rng.IntN(len(dirs))]
			files[d+names[rng.IntN(len(names))]+[]string{"", ".txt", ".log"}[rng.IntN(3)]] = ""
		}
		for range 1 + rng.IntN(3) {
			var lines []string
			for range 1 + rng.IntN(5) {
				lines = append(lines, pat())
			}
			files[dirs[rng.IntN(len(dirs))]+".gitignore"] = strings.Join(lines, "\n") + "\n"
		}
		// A file may not also be a directory: keep the first of a clash.
		for f := range files {
			for d := path.Dir(f); d != "."; d = path.Dir(d) {
				delete(files, d)
			}
		}
		root := t.TempDir()
		gitInit(t, git, root)
		write(t, root, files)
		got, ref := walk(t, root), gitFiles(t, git, root)
		if !slices.Equal(got, ref) {
			var ig bytes.Buffer
			for f, c := range files {
				if path.Base(f) == ".gitignore" {
					fmt.Fprintf(&ig, "%s:\n%s", f, c)
				}
			}
			t.Errorf("tree %d: got %q, git lists %q\n%s", n, got, ref, ig.String())
		}
	}
}

// TestLimits: a hostile ignore file (more rules than MaxRules, and a line
// over MaxLineBytes) ends with ErrLimit, keeping MaxRules rules, in bounded
// memory.
func TestLimits(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var b strings.Builder
	b.WriteString(strings.Repeat("x", MaxLineBytes+1) + "\n")
	for i := range 1_000_000 {
		fmt.Fprintf(&b, "f%d\n", i)
	}
	rules, err := Rules(nil).Add([]byte(b.String()), "/")
	if !errors.Is(err, ErrLimit) || len(rules) != MaxRules {
		t.Fatalf("got %d rules, %v; want %d and ErrLimit", len(rules), err, MaxRules)
	}
	if !rules.Ignored("/d/f7", false) || rules.Ignored("/f4096", false) {
		t.Error("the first MaxRules rules are not the ones kept")
	}
	_, err = Rules(nil).Add([]byte(strings.Repeat("y", MaxLineBytes+1)+"\nok\n"), "/")
	if !errors.Is(err, ErrLimit) {
		t.Errorf("a long line: %v, want ErrLimit", err)
	}
	runtime.ReadMemStats(&after)
	if live := int64(after.HeapAlloc) - int64(before.HeapAlloc); live > 256<<20 {
		t.Errorf("heap grew by %d bytes", live)
	}
}

package jsvm

import (
	"context"
	"crypto/sha256"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// The Node differential table: testdata/nodediff/*.txt hold small modules
// of the kind agents write, each run under the real Node 20 and under the
// js backend on the same files; stdout, the exit status and the tree left
// behind must be the same. A file holds many cases: a line "=== NAME"
// starts one, and the lines up to the next are its module (main.mjs, or
// main.ts for a NAME ending in ".ts", which Node runs after esbuild has
// compiled it, see tsdiff_test.go). Lines "--- PATH" inside a case
// start a file written beside main (up to the next "---" or "===" line).
//
// Output is compared after one normalization: Node's directory is shown as
// /workspace, where the js backend runs, and the backend's main module name
// as main.mjs.

//go:embed testdata/nodediff/*.txt
var nodediffFiles embed.FS

// diffCase is one module of the table.
type diffCase struct {
	file, name string
	main       string            // the module's source
	files      map[string]string // written beside it
}

// mainName is the file name of the case's module.
func (c diffCase) mainName() string {
	if strings.HasSuffix(c.name, ".ts") {
		return "main.ts"
	}
	return "main.mjs"
}

// loadDiffCases parses the table's files.
func loadDiffCases(t testing.TB) []diffCase {
	t.Helper()
	names, err := fs.Glob(nodediffFiles, "testdata/nodediff/*.txt")
	if err != nil || len(names) == 0 {
		t.Fatalf("no differential cases: %v", err)
	}
	var cases []diffCase
	for _, n := range names {
		b, _ := nodediffFiles.ReadFile(n)
		var cur *diffCase
		var into *strings.Builder
		var intoName string
		flush := func() {
			if cur == nil {
				return
			}
			if intoName == "" {
				cur.main = into.String()
			} else {
				cur.files[intoName] = into.String()
			}
		}
		for _, line := range strings.SplitAfter(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "=== "):
				flush()
				if cur != nil {
					cases = append(cases, *cur)
				}
				cur = &diffCase{file: path.Base(n), name: strings.TrimSpace(line[4:]), files: map[string]string{}}
				into, intoName = &strings.Builder{}, ""
			case strings.HasPrefix(line, "--- ") && cur != nil:
				flush()
				into, intoName = &strings.Builder{}, strings.TrimSpace(line[4:])
			case cur != nil:
				into.WriteString(line)
			}
		}
		flush()
		if cur != nil {
			cases = append(cases, *cur)
		}
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("duplicate case %s", c.name)
		}
		seen[c.name] = true
	}
	return cases
}

// diffFixture is the tree every case starts from, besides its own files.
var diffFixture = []fsEntry{
	{"data", 'd', "", 0o755},
	{"data/users.csv", 'f', "id,name,email,age\n1,Ada Lovelace,ada@example.com,36\n2,Alan Turing,alan@example.com,41\n3,Grace Hopper,grace@example.com,85\n", 0o644},
	{"data/config.json", 'f', `{"name":"app","version":"1.2.3","features":{"search":true,"beta":false},"ports":[8080,8081]}` + "\n", 0o644},
	{"data/app.log", 'f', "2024-01-01T10:00:00Z INFO start\n2024-01-01T10:00:01Z WARN slow query 1200ms\n2024-01-01T10:00:02Z ERROR db timeout\n2024-01-01T10:00:03Z INFO done\n", 0o644},
	{"src", 'd', "", 0o755},
	{"src/a.js", 'f', "export const a = 1;\n", 0o644},
	{"src/b.txt", 'f', "bee\n", 0o644},
	{"src/nested", 'd', "", 0o755},
	{"src/nested/c.md", 'f', "# C\n", 0o644},
	{"empty", 'd', "", 0o755},
}

// TestNodeDifferential runs the table (see above).
func TestNodeDifferential(t *testing.T) {
	nodeBinary(t)
	cases := loadDiffCases(t)
	pass := 0
	for _, c := range cases {
		ok := t.Run(c.file+"/"+c.name, func(t *testing.T) { runDiffCase(t, c) })
		if ok {
			pass++
		}
	}
	t.Logf("node differential: %d of %d cases match", pass, len(cases))
}

// runDiffCase runs c under Node and under the backend and compares them.
func runDiffCase(t *testing.T, c diffCase) {
	src := c.main
	hostDir := t.TempDir()
	writeFixtureHost(t, hostDir, diffFixture)
	for p, content := range c.files {
		full := filepath.Join(hostDir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=/workspace", "LANG=C", "TZ=UTC"}
	var want, werr string
	var wcode int
	if strings.HasSuffix(c.name, ".ts") {
		bundle := tsBundleForNode(t, hostDir, src)
		b, err := os.ReadFile(bundle)
		if err != nil {
			t.Fatal(err)
		}
		want, werr, wcode = runNodeFile(t, hostDir, bundle, string(b), "", env)
	} else {
		want, werr, wcode = runNodeIn(t, hostDir, c.mainName(), src, env)
	}
	want = strings.ReplaceAll(want, hostDir, "/workspace")
	wantTree := hostTree(t, hostDir)

	fsys := newStore(t, c.files)
	writeFixtureStore(t, fsys, "/workspace", diffFixture)
	if err := fsys.WriteFile(context.Background(), "/workspace/"+c.mainName(), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := runJS(ctx, sharedBackend(t), fsys, job{src: src, env: map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/workspace", "LANG": "C", "TZ": "UTC"}})
	got := strings.ReplaceAll(strings.ReplaceAll(r.stdout, mainModuleName, c.mainName()), "%3Csource%3E", c.mainName())
	if got != want {
		diffLines(t, c.name+" stdout", got, want)
	}
	if r.exit != wcode {
		t.Errorf("exit: desk %d, node %d", r.exit, wcode)
	}
	gotTree := storeTree(t, fsys, "/workspace")
	diffLines(t, c.name+" tree", strings.Join(gotTree, "\n"), strings.Join(wantTree, "\n"))
	if t.Failed() {
		t.Logf("node stderr:\n%s\ndesk stderr:\n%s", werr, r.stderr)
	}
}

// runNodeIn runs src as dir/name with node in dir.
func runNodeIn(t *testing.T, dir, name, src string, env []string) (string, string, int) {
	t.Helper()
	return runNodeFile(t, dir, filepath.Join(dir, name), src, "", env)
}

// treeLine describes one entry of a tree for comparison.
func treeLine(rel string, mode fs.FileMode, content []byte, link string) string {
	switch {
	case mode.IsDir():
		return fmt.Sprintf("%s/ %o", rel, mode.Perm())
	case mode&fs.ModeSymlink != 0:
		return fmt.Sprintf("%s -> %s", rel, link)
	}
	return fmt.Sprintf("%s %o %d %x", rel, mode.Perm(), len(content), sha256.Sum256(content))
}

// hostTree lists dir on the host, sorted, without the main module.
func hostTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "main.mjs" || rel == "main.ts" {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		var content []byte
		var link string
		if fi.Mode().IsRegular() {
			content, _ = os.ReadFile(p)
		} else if fi.Mode()&fs.ModeSymlink != 0 {
			link, _ = os.Readlink(p)
		}
		out = append(out, treeLine(rel, fi.Mode(), content, link))
		return nil
	})
	slices.Sort(out)
	return out
}

// storeTree lists dir in the store, sorted, without the main module.
func storeTree(t *testing.T, fsys *vfs.FS, dir string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	var walk func(d, rel string)
	walk = func(d, rel string) {
		ents, err := fsys.ReadDir(ctx, d)
		if err != nil {
			t.Errorf("read dir %s: %v", d, err)
			return
		}
		for _, e := range ents {
			p, r := path.Join(d, e.Name), path.Join(rel, e.Name)
			if r == "main.mjs" || r == "main.ts" {
				continue
			}
			fi, err := fsys.Lstat(ctx, p)
			if err != nil {
				t.Errorf("lstat %s: %v", p, err)
				continue
			}
			var content []byte
			var link string
			switch {
			case fi.Mode().IsRegular():
				content, _ = fsys.ReadFile(ctx, p)
			case fi.Mode()&fs.ModeSymlink != 0:
				link, _ = fsys.Readlink(ctx, p)
			}
			out = append(out, treeLine(r, fi.Mode(), content, link))
			if fi.IsDir() {
				walk(p, r)
			}
		}
	}
	walk(dir, "")
	slices.Sort(out)
	return out
}

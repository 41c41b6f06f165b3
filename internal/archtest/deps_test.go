package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
)

// module is the module path of this repository.
const module = "github.com/desk-dev/desk"

// layers maps package roots (relative to the module) to their layer. A package
// belongs to the longest root that is a prefix of its path.
var layers = map[string]int{
	"internal/testenv":   -2, // below everything: every test may use it
	"internal/sqlite":    -1, // the SQLite driver's seam, below everything that stores
	"internal/vfs":       0,
	"internal/policy":    0,
	"internal/glob":      -1, // a leaf below the layer-0 packages that match patterns (policy)
	"internal/posixre":   -1, // a leaf: POSIX BRE/ERE to RE2, for the shell's grep and sed and gitws's git grep
	"internal/wsfile":    -1, // a leaf below the layer-0 stores of per-workspace documents (policy, egress)
	"internal/jsonlimit": 0,
	"internal/wspath":    0,
	"internal/mediatype": 0,
	"internal/textdiff":  0,
	"internal/cgroup":    0,
	"internal/fair":      0,
	"internal/egress":    0,
	"internal/audit":     0,
	"internal/image":     1,
	"internal/worker":    1,
	"client":             0,
	"internal/archtest":  0,
	"internal/run":       1,
	"internal/fusefs":    1,
	"internal/gitws":     1,
	"internal/fsio":      1,
	"internal/search":    1,
	"internal/share":     1,
	"internal/artifact":  2,
	"internal/shell":     2,
	"internal/jsvm":      2,
	"internal/sandbox":   2,
	"internal/hostmount": 2,
	"internal/tools":     3,
	"internal/workspace": 3,
	"internal/fsbench":   3,
	"internal/host":      4,
	"internal/auth":      4,
	"internal/api":       6,
	"internal/mcp":       5,
	"internal/quota":     2,
}

// testOnly are the packages that only tests import: the shared test helpers.
// Outside a test only another of them may import one. internal/testenv
// imports only the standard library.
var testOnly = []string{"internal/testenv", "internal/sandbox/sandboxtest", "internal/image/imagetest", "internal/vfs/vfstest", "internal/share/s3remote/s3test", "examples/internal/exampletest", "internal/gitws/gittest", "internal/run/runtest", "internal/run/runtest/linecmd", "internal/fsio/fsiotest", "internal/shell/shelltest"}

// cmdRoot may import anything and is imported by nothing.
const cmdRoot = "cmd/desk"

// examplesRoot holds the runnable examples: programs of desk's public
// surface, so they import only the client (and, in tests, the test helpers
// and internal/testenv), and nothing imports them.
const examplesRoot = "examples"

// backends are the execution backends: they never import each other.
var backends = []string{"internal/shell", "internal/jsvm", "internal/sandbox"}

// vfsAllowed are the only non-standard import path prefixes of internal/vfs.
var vfsAllowed = []string{"golang.org/x/sys/"}

// sqliteRoot is the only package that imports the SQLite driver (driver, the
// driver's module path); it imports nothing else but the standard library and
// golang.org/x/sys.
const (
	sqliteRoot = "internal/sqlite"
	driver     = "github.com/ncruces/go-sqlite3"
)

// leafAllowed are the only non-standard imports of the pattern and search
// packages, which every surface shares (glob, glob/gitignore, search): they
// stay small, with no heavy dependency behind them.
var leafAllowed = map[string][]string{
	"internal/glob":   {"mvdan.cc/sh/v3/pattern"},
	"internal/search": {"mvdan.cc/sh/v3/pattern"},
	// The path model and the content types: standard library only.
	"internal/wspath":    nil,
	"internal/posixre":   nil,
	"internal/mediatype": nil,
	// The per-workspace document files: the standard library and flock.
	"internal/wsfile": {"golang.org/x/sys/unix"},
}

// pkg is the part of `go list -json` output the checks use.
type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// root returns the table root of a module-relative package path, or "" if the
// package is in no table entry.
func root(rel string) string {
	if rel == cmdRoot || strings.HasPrefix(rel, cmdRoot+"/") {
		return cmdRoot
	}
	if rel == examplesRoot || strings.HasPrefix(rel, examplesRoot+"/") {
		return examplesRoot
	}
	best := ""
	for r := range layers {
		if (rel == r || strings.HasPrefix(rel, r+"/")) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// isStd reports whether an import path belongs to the standard library: its
// first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// hasAnyPrefix reports whether s starts with one of prefixes, or equals one of
// them without its trailing slash.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) || s == strings.TrimSuffix(p, "/") {
			return true
		}
	}
	return false
}

// check returns every violation of the dependency rules among pkgs, the
// module's own packages.
func check(pkgs []pkg) []string {
	var bad []string
	report := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	for _, p := range pkgs {
		rel, ok := strings.CutPrefix(p.ImportPath, module+"/")
		if !ok {
			continue // the module root package, if any, is not part of the layout
		}
		pr := root(rel)
		if pr == "" {
			report("%s is not in the layer table: add it to layers in internal/archtest/deps_test.go (and to docs/architecture.md) with its layer", rel)
			continue
		}
		type imp struct {
			path string
			test bool
		}
		var imps []imp
		for _, i := range p.Imports {
			imps = append(imps, imp{i, false})
		}
		for _, i := range slices.Concat(p.TestImports, p.XTestImports) {
			if i != p.ImportPath {
				imps = append(imps, imp{i, true})
			}
		}
		for _, im := range imps {
			what := "imports"
			if im.test {
				what = "imports (in a test)"
			}
			irel, internal := strings.CutPrefix(im.path, module+"/")
			if internal && !im.test && slices.Contains(testOnly, irel) && !slices.Contains(testOnly, rel) {
				report("%s %s %s: only tests (and the other test helpers) may import a test helper", rel, what, irel)
			}
			if rel == "internal/testenv" && !im.test && !isStd(im.path) {
				report("%s %s %s: internal/testenv may import only the standard library", rel, what, im.path)
				continue
			}
			switch {
			case !internal && isStd(im.path):
				continue
			case !internal:
				if hasAnyPrefix(im.path, []string{driver + "/"}) && pr != sqliteRoot {
					report("%s %s %s: only internal/sqlite imports the SQLite driver (use its Conn and Stmt)", rel, what, im.path)
					continue
				}
				if pr == sqliteRoot && !hasAnyPrefix(im.path, []string{driver + "/", "golang.org/x/sys/"}) {
					report("%s %s %s: internal/sqlite may import only the standard library, golang.org/x/sys and the SQLite driver", rel, what, im.path)
				}
				if pr == "client" || pr == "internal/textdiff" {
					report("%s %s %s: %s may import only the standard library", rel, what, im.path, pr)
				}
				if pr == "internal/vfs" && !im.test && !hasAnyPrefix(im.path, vfsAllowed) {
					report("%s %s %s: internal/vfs may import only the standard library, golang.org/x/sys and internal/sqlite", rel, what, im.path)
				}
				if allowed, ok := leafAllowed[pr]; ok && !slices.Contains(allowed, im.path) {
					report("%s %s %s: %s may import only the standard library and %v", rel, what, im.path, pr, allowed)
				}
				continue
			case pr == cmdRoot:
				continue
			}
			ir := root(irel)
			switch {
			case ir == "":
				continue // reported as unknown on its own
			case ir == pr:
				continue // own subtree
			case ir == cmdRoot:
				report("%s %s %s: nothing may import the command", rel, what, irel)
			case ir == examplesRoot:
				report("%s %s %s: nothing may import an example", rel, what, irel)
			case pr == examplesRoot:
				if ir != "client" && !slices.Contains(testOnly, irel) {
					report("%s %s %s: an example may import only the client (and the test helpers in tests)", rel, what, irel)
				}
			case (pr == "client" || pr == "internal/textdiff") && !(im.test && ir == "internal/testenv"):
				report("%s %s %s: %s may import only the standard library (and internal/testenv in tests)", rel, what, irel, pr)
			case slices.Contains(backends, pr) && slices.Contains(backends, ir):
				report("%s %s %s: backends never import each other (routing between them lives in internal/run)", rel, what, irel)
			case layers[ir] >= layers[pr]:
				report("%s (layer %d) %s %s (layer %d): a package may import only lower layers or its own subtree",
					rel, layers[pr], what, irel, layers[ir])
			}
		}
	}
	return bad
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// moduleRoot finds the directory holding go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !fileExists(filepath.Join(dir, "go.mod")) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
	return dir
}

// listPackages returns the module's packages as `go list -deps -json ./...` sees them.
func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command(testenv.GoTool(t), "list", "-e", "-deps", "-json", "./...")
	cmd.Dir = moduleRoot(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

func TestDependencyDirection(t *testing.T) {
	pkgs := listPackages(t)
	var names []string
	for _, p := range pkgs {
		names = append(names, p.ImportPath)
	}
	if !slices.Contains(names, module+"/internal/vfs") || !slices.Contains(names, module+"/cmd/desk") {
		t.Fatalf("go list found only %v; expected at least internal/vfs and cmd/desk", names)
	}
	for _, v := range check(pkgs) {
		t.Error(v)
	}
}

func TestCheck_Violations(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	tests := []struct {
		name string
		pkg  pkg
		want string // substring of the single expected violation; "" for none
	}{
		{"lower layer", pkg{ImportPath: m("internal/workspace"), Imports: []string{m("internal/vfs"), m("internal/run"), m("internal/shell"), "fmt"}}, ""},
		{"own subtree", pkg{ImportPath: m("internal/shell/cmds"), Imports: []string{m("internal/shell"), m("internal/vfs")}}, ""},
		{"subtree parent", pkg{ImportPath: m("internal/shell"), Imports: []string{m("internal/shell/cmds")}}, ""},
		{"cmd imports anything", pkg{ImportPath: m("cmd/desk"), Imports: []string{m("internal/api"), "github.com/some/thing"}}, ""},
		{"vfs allowed deps", pkg{ImportPath: m("internal/vfs"), Imports: []string{m("internal/sqlite"), "golang.org/x/sys/unix"}}, ""},
		{"the driver's seam", pkg{ImportPath: m("internal/sqlite"), Imports: []string{"github.com/ncruces/go-sqlite3", "github.com/ncruces/go-sqlite3/vfs", "golang.org/x/sys/unix"}}, ""},
		{"auth uses the seam", pkg{ImportPath: m("internal/auth"), Imports: []string{m("internal/sqlite")}}, ""},
		{"driver outside the seam", pkg{ImportPath: m("internal/vfs"), Imports: []string{"github.com/ncruces/go-sqlite3"}}, "only internal/sqlite imports the SQLite driver"},
		{"driver in a test", pkg{ImportPath: m("internal/auth"), XTestImports: []string{"github.com/ncruces/go-sqlite3/vfs"}}, "only internal/sqlite imports the SQLite driver"},
		{"seam heavy dep", pkg{ImportPath: m("internal/sqlite"), Imports: []string{"github.com/hanwen/go-fuse/v2/fs"}}, "internal/sqlite may import only"},
		{"seam imports upward", pkg{ImportPath: m("internal/sqlite"), Imports: []string{m("internal/vfs")}}, "internal/sqlite (layer -1) imports internal/vfs (layer 0)"},
		{"api uses client", pkg{ImportPath: m("internal/api"), Imports: []string{m("client"), m("internal/host")}}, ""},
		{"upward", pkg{ImportPath: m("internal/vfs"), Imports: []string{m("internal/run")}}, "internal/vfs (layer 0) imports internal/run (layer 1)"},
		{"same layer", pkg{ImportPath: m("internal/run"), Imports: []string{m("internal/fusefs")}}, "only lower layers"},
		{"upward in a test", pkg{ImportPath: m("internal/policy"), XTestImports: []string{m("internal/api")}}, "imports (in a test) internal/api"},
		{"backend to backend", pkg{ImportPath: m("internal/shell"), Imports: []string{m("internal/sandbox")}}, "backends never import each other"},
		{"vfs heavy dep", pkg{ImportPath: m("internal/vfs"), Imports: []string{"github.com/hanwen/go-fuse/v2/fs"}}, "internal/vfs may import only"},
		{"client not stdlib", pkg{ImportPath: m("client"), Imports: []string{m("internal/vfs")}}, "client may import only the standard library"},
		{"client third party", pkg{ImportPath: m("client"), Imports: []string{"golang.org/x/sys/unix"}}, "client may import only the standard library"},
		{"textdiff is a leaf", pkg{ImportPath: m("internal/textdiff"), Imports: []string{m("internal/glob")}}, "internal/textdiff may import only the standard library"},
		{"textdiff's tests use testenv", pkg{ImportPath: m("internal/textdiff"), TestImports: []string{m("internal/testenv")}}, ""},
		{"textdiff third party", pkg{ImportPath: m("internal/textdiff"), TestImports: []string{"github.com/some/diff"}}, "internal/textdiff may import only the standard library"},
		{"example uses the client", pkg{ImportPath: m("examples/pdf"), Imports: []string{m("client"), "github.com/some/thing"}, TestImports: []string{m("examples/internal/exampletest"), m("internal/testenv")}}, ""},
		{"example uses internals", pkg{ImportPath: m("examples/pdf"), Imports: []string{m("internal/tools")}}, "an example may import only the client"},
		{"example uses testenv outside a test", pkg{ImportPath: m("examples/pdf"), Imports: []string{m("internal/testenv")}}, "only tests"},
		{"example harness uses testenv", pkg{ImportPath: m("examples/internal/exampletest"), Imports: []string{m("client"), m("internal/testenv")}}, ""},
		{"example harness outside a test", pkg{ImportPath: m("examples/pdf"), Imports: []string{m("examples/internal/exampletest")}}, "only tests"},
		{"imports an example", pkg{ImportPath: m("internal/api"), Imports: []string{m("examples/pdf")}}, "nothing may import an example"},
		{"imports the command", pkg{ImportPath: m("internal/api"), Imports: []string{m("cmd/desk")}}, "nothing may import the command"},
		{"glob allowed deps", pkg{ImportPath: m("internal/glob/gitignore"), Imports: []string{"mvdan.cc/sh/v3/pattern", "regexp"}}, ""},
		{"glob heavy dep", pkg{ImportPath: m("internal/glob/gitignore"), Imports: []string{"github.com/go-git/go-git/v5/plumbing/format/gitignore"}}, "internal/glob may import only"},
		{"search imports vfs and glob", pkg{ImportPath: m("internal/search"), Imports: []string{m("internal/vfs"), m("internal/glob")}}, ""},
		{"search above the shell", pkg{ImportPath: m("internal/search"), Imports: []string{m("internal/shell/cmds")}}, "only lower layers"},
		{"unknown package", pkg{ImportPath: m("internal/newthing")}, "internal/newthing is not in the layer table"},
		{"unknown top level", pkg{ImportPath: m("tools/gen")}, "tools/gen is not in the layer table"},
		{"test helper in a test", pkg{ImportPath: m("internal/api"), XTestImports: []string{m("internal/testenv"), m("internal/sandbox/sandboxtest")}}, ""},
		{"test helper in a helper", pkg{ImportPath: m("internal/vfs/vfstest"), Imports: []string{m("internal/testenv")}}, ""},
		{"test helper outside a test", pkg{ImportPath: m("internal/sandbox"), Imports: []string{m("internal/testenv")}}, "only tests (and the other test helpers) may import a test helper"},
		{"sandboxtest outside a test", pkg{ImportPath: m("internal/api"), Imports: []string{m("internal/sandbox/sandboxtest")}}, "may import a test helper"},
		{"testenv imports the module", pkg{ImportPath: m("internal/testenv"), Imports: []string{m("internal/vfs")}}, "internal/testenv may import only the standard library"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := check([]pkg{tc.pkg})
			switch {
			case tc.want == "" && len(got) != 0:
				t.Errorf("unexpected violations: %q", got)
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
				t.Errorf("violations %q, want one containing %q", got, tc.want)
			}
		})
	}
}

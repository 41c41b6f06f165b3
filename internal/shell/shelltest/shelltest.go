package shelltest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// Row is one row of the interpreter table (testdata/interp_table.jsonl of
// internal/shell): a bash script with the stdout, stderr and exit status
// bash 5.2 gives it.
type Row struct {
	Name   string `json:"name"`
	Script string `json:"script"`
	Stdin  string `json:"stdin,omitempty"`
	Out    string `json:"out"`
	Err    string `json:"err"`
	Exit   int    `json:"exit"`
	// Diverge: desk differs from bash on purpose (the reason); bash must
	// still disagree with Out/Err/Exit, which are desk's.
	Diverge string `json:"diverge,omitempty"`
}

// LoadTable reads the interpreter table at file: one JSON row a line,
// blank lines and // comments skipped. A bad line or a repeated name fails
// the test.
func LoadTable(t testing.TB, file string) []Row {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var r Row
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		if seen[r.Name] {
			t.Fatalf("%s:%d: duplicate row %q", file, n, r.Name)
		}
		seen[r.Name] = true
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	return rows
}

// SortedKeys are m's keys in order.
func SortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WriteHostFixture writes files (path relative to dir: content; a path
// ending in "/" is a directory) under dir on the host.
func WriteHostFixture(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for _, n := range SortedKeys(files) {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(files[n]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// BashEnv is the environment the oracle bash runs with: what the shell
// backend gives a script by default.
var BashEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/workspace", "LANG=C.UTF-8", "TZ=UTC", "USER=user", "SHELL=/bin/bash"}

// Bash runs script with the real bash (its path) as bash -c in dir, with
// BashEnv and stdin, and returns what it wrote and its exit status. A bash
// that cannot start fails the test.
func Bash(t testing.TB, bash, dir, script, stdin string) (stdout, stderr string, exit int) {
	t.Helper()
	cmd := exec.Command(bash, "-c", script)
	cmd.Args[0] = "bash"
	cmd.Dir = dir
	cmd.Env = BashEnv
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("bash -c %q: %v", script, err)
		}
		exit = ee.ExitCode()
	}
	return out.String(), errb.String(), exit
}

// Fixture is the tree the shell tables' scripts run in (a path ending in
// "/" is a directory).
var Fixture = map[string]string{
	"a.txt":          "alpha\n",
	"b.txt":          "beta\n",
	"space name.txt": "sp\n",
	"dir/c.txt":      "gamma\n",
	"dir/sub/d.md":   "delta\n",
	"empty/":         "",
	"lines.txt":      "one\ntwo\nthree\n",
}

// WriteStoreFixture writes files (as WriteHostFixture) under dir in the
// workspace store f.
func WriteStoreFixture(t testing.TB, f *vfs.FS, dir string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	if err := f.MkdirAll(ctx, dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range SortedKeys(files) {
		p := dir + "/" + n
		var err error
		if strings.HasSuffix(p, "/") {
			err = f.MkdirAll(ctx, p, 0o755)
		} else if err = f.MkdirAll(ctx, path.Dir(p), 0o755); err == nil {
			err = f.WriteFile(ctx, p, []byte(files[n]), 0o644)
		}
		if err != nil {
			t.Fatalf("fixture %s: %v", p, err)
		}
	}
}

package shell

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// The interpreter table, testdata/interp_table.jsonl, is tested by package
// interptest (confirmed against bash, run on both interpreters); the
// canary test runs it here too.
const interpTableFile = "testdata/interp_table.jsonl"

// irow is one row of the interpreter table.
type irow struct {
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

func loadInterpTable(t testing.TB) []irow {
	t.Helper()
	data, err := os.ReadFile(interpTableFile)
	if err != nil {
		t.Fatal(err)
	}
	var rows []irow
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var r irow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s:%d: %v", interpTableFile, n, err)
		}
		if seen[r.Name] {
			t.Fatalf("%s:%d: duplicate row %q", interpTableFile, n, r.Name)
		}
		seen[r.Name] = true
		rows = append(rows, r)
	}
	return rows
}

// testTimeout is a hang guard for one row, not a speed expectation.
const testTimeout = 60 * time.Second

// runRecovered is runScript with a panic of the interpreter turned into a
// failed result (mvdan.cc/sh's panics on some scripts, e.g. ((c[$k]++))).
func runRecovered(ctx context.Context, b *Backend, f *vfs.FS, dir, script, stdin string) (got result) {
	defer func() {
		if p := recover(); p != nil {
			got = result{err: fmt.Errorf("panic: %v", p), exit: -1}
		}
	}()
	return runScriptIn(ctx, b, f, dir, script, stdin)
}

// writeStoreFixture writes files under dir in the store.
func writeStoreFixture(t testing.TB, f *vfs.FS, dir string, files map[string]string) {
	t.Helper()
	ctx := context.Background()
	if err := f.MkdirAll(ctx, dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range sortedKeys(files) {
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

// runScriptIn runs script through b on f in dir with stdin.
func runScriptIn(ctx context.Context, b *Backend, f *vfs.FS, dir, script, stdin string) result {
	var out, errb syncBuffer
	job := &run.Job{
		ID: "test", Backend: "shell", Source: script, Cwd: dir,
		Env:   map[string]string{"LANG": "C.UTF-8", "DESK_EXEC_ID": "test"},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, FS: f,
	}
	o, err := b.Run(vfs.WithActor(ctx, "test"), job)
	return result{out.String(), errb.String(), o.ExitCode, err}
}

// TestTable_interpreters runs the existing compatibility table (allRows)
// on both interpreters. A row's expectation is bash's, except on rows
// marked diverge, whose expectation is the mvdan interpreter's own
// divergence: for those, desk's interpreter counts as passing when it
// gives what bash gives (TestTable_confirm's bash run), as it should.
// It fails when desk's interpreter misses a row mvdan's passes, unless
// the row is listed in deskBehind (each still failing).
func TestTable_interpreters(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	rows := allRows()
	bm, bd := New(Options{}), New(Options{Interpreter: InterpDesk})
	f := newStore(t, nil)
	mvdanPass, deskPass := 0, 0
	for i, r := range rows {
		if len(missing(r.needs)) > 0 {
			continue
		}
		fx := rowFixture(r)
		dm, dd := fmt.Sprintf("/m%d", i), fmt.Sprintf("/d%d", i)
		writeStoreFixture(t, f, dm, fx)
		writeStoreFixture(t, f, dd, fx)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		gm := runRecovered(ctx, bm, f, dm, r.script, r.stdin)
		gd := runRecovered(ctx, bd, f, dd, r.script, r.stdin)
		cancel()
		okM := agrees(r, gm)
		okD := agrees(r, gd)
		var bt result
		if r.diverge != "" {
			// desk passes a mvdan divergence by agreeing with bash
			bt = runBashFixture(t, bash, fx, r.script, r.stdin)
			okD = okD || gd.err == nil && gd.stdout == bt.stdout && gd.exit == bt.exit
		}
		if okM {
			mvdanPass++
		}
		if okD {
			deskPass++
		}
		reason, behind := deskBehind[r.name]
		switch {
		case behind && (okD || !okM):
			t.Errorf("%s: listed in deskBehind (%s) but desk passes or mvdan fails: unlist it", r.name, reason)
		case !behind && okM && !okD:
			t.Errorf("%s: mvdan passes, desk does not: stdout %q stderr %q exit %d err %v (want %q, %q, %d; bash gave %q, %q, %d)",
				r.name, gd.stdout, gd.stderr, gd.exit, gd.err, r.out, r.errSub, r.exit, bt.stdout, bt.stderr, bt.exit)
		}
	}
	t.Logf("existing table, %d rows: mvdan interpreter %d, desk interpreter %d", len(rows), mvdanPass, deskPass)
}

// runBashFixture runs a script with bash -c in a copy of files.
func runBashFixture(t testing.TB, bash string, files map[string]string, script, stdin string) result {
	dir := t.TempDir()
	writeHostFixture(t, dir, files)
	cmd := exec.Command(bash, "-c", script)
	cmd.Args[0] = "bash"
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/workspace", "LANG=C.UTF-8", "TZ=UTC", "USER=user", "SHELL=/bin/bash"}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	got := result{}
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("bash -c %q: %v", script, err)
		}
		got.exit = ee.ExitCode()
	}
	got.stdout, got.stderr = out.String(), errb.String()
	return got
}

// deskBehind lists the rows of the existing table mvdan's interpreter
// passes and desk's does not yet, each with why.
var deskBehind = map[string]string{}

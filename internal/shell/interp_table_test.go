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
	var out, errb testenv.SyncBuffer
	job := &run.Job{
		ID: "test", Backend: "shell", Source: script, Cwd: dir,
		Env:   map[string]string{"LANG": "C.UTF-8", "DESK_EXEC_ID": "test"},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, FS: f,
	}
	o, err := b.Run(vfs.WithActor(ctx, "test"), job)
	return result{out.String(), errb.String(), o.ExitCode, err}
}

// TestTable_interpreters holds mvdan.cc/sh's interpreter (still selectable
// as Options.Interpreter "mvdan") to the existing compatibility table
// (allRows): every row meets its expectations, which on rows marked mvdan
// are its own divergences from bash (TestBackend_Run_table holds the
// default interpreter to bash's output on those). It logs how many rows
// each interpreter gives bash's answer on.
func TestTable_interpreters(t *testing.T) {
	rows := allRows()
	bm := New(Options{Interpreter: InterpMvdan})
	f := newStore(t, nil)
	mvdanRows, bashLike, diverge := 0, 0, 0
	for i, r := range rows {
		if len(missing(r.needs)) > 0 {
			continue
		}
		dm := fmt.Sprintf("/m%d/work", i) // as runScript's /work
		writeStoreFixture(t, f, dm, rowFixture(r))
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		gm := runRecovered(ctx, bm, f, dm, r.script, r.stdin)
		cancel()
		if !agrees(r, gm) {
			t.Errorf("%s: mvdan's interpreter: stdout %q stderr %q exit %d err %v (want %q, %q, %d)",
				r.name, gm.stdout, gm.stderr, gm.exit, gm.err, r.out, r.errSub, r.exit)
		}
		switch {
		case r.mvdan != "":
			mvdanRows++
		case r.diverge != "":
			diverge++
		default:
			bashLike++
		}
	}
	t.Logf("existing table, %d rows: both interpreters as bash on %d; desk's as bash, mvdan's not, on %d; both diverge on purpose on %d",
		len(rows), bashLike, mvdanRows, diverge)
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
	var out, errb testenv.SyncBuffer
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

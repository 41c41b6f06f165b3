package interptest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// The interpreter table (testdata/interp_table.jsonl): one bash script a
// line with the stdout, stderr and exit status bash 5.2 gives it (bash -c in
// a copy of the fixture). Every row is confirmed against the real bash
// (TestInterpTable_confirm) and run through the backend on desk's
// interpreter (TestInterpTable_desk), which must agree exactly on all
// three except on the rows of deskGaps, each still failing; the same rows
// on mvdan.cc/sh's interpreter are counted (TestInterpTable_mvdan).
//
// go test ./internal/shell/interptest -run TestInterpTable_confirm -update-interp-table
// rewrites the expectations from bash (for new rows; review the diff).

var updateInterpTable = flag.Bool("update-interp-table", false, "rewrite ../testdata/interp_table.jsonl's expectations from bash")

const interpTableFile = "../testdata/interp_table.jsonl"

// irow is one row of the interpreter table.
type irow struct{ shelltest.Row }

func loadInterpTable(t testing.TB) []irow {
	t.Helper()
	var rows []irow
	for _, r := range shelltest.LoadTable(t, interpTableFile) {
		rows = append(rows, irow{r})
	}
	return rows
}

// runBash runs a script with the real bash -c in a fresh copy of the fixture.
func runBash(t testing.TB, bash, script, stdin string) result {
	dir := t.TempDir()
	shelltest.WriteHostFixture(t, dir, fixture)
	var got result
	got.stdout, got.stderr, got.exit = shelltest.Bash(t, bash, dir, script, stdin)
	return got
}

func (r irow) agrees(got result) bool {
	return got.err == nil && got.stdout == r.Out && got.stderr == r.Err && got.exit == r.Exit
}

func (r irow) diff(got result) string {
	var b strings.Builder
	if got.err != nil {
		fmt.Fprintf(&b, "Run error: %v; ", got.err)
	}
	if got.stdout != r.Out {
		fmt.Fprintf(&b, "stdout %q, want %q; ", got.stdout, r.Out)
	}
	if got.stderr != r.Err {
		fmt.Fprintf(&b, "stderr %q, want %q; ", got.stderr, r.Err)
	}
	if got.exit != r.Exit {
		fmt.Fprintf(&b, "exit %d, want %d", got.exit, r.Exit)
	}
	return b.String()
}

func TestInterpTable_confirm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		testenv.Need(t, testenv.Shells, fmt.Errorf("find bash: %w", err))
	}
	rows := loadInterpTable(t)
	if *updateInterpTable {
		var b bytes.Buffer
		for _, r := range rows {
			if r.Diverge == "" {
				got := runBash(t, bash, r.Script, r.Stdin)
				r.Out, r.Err, r.Exit = got.stdout, got.stderr, got.exit
			}
			line, _ := json.Marshal(r)
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(interpTableFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, r := range rows {
		t.Run(r.Name, func(t *testing.T) {
			got := runBash(t, bash, r.Script, r.Stdin)
			if r.Diverge != "" {
				if r.agrees(got) {
					t.Errorf("marked as a divergence (%s), but bash agrees", r.Diverge)
				}
				return
			}
			if !r.agrees(got) {
				t.Errorf("bash: %s", r.diff(got))
			}
		})
	}
	t.Logf("%d rows confirmed against bash", len(rows))
}

// runInterpTable runs every row through the backend on interpreter name
// and returns the names of the rows it fails.
func runInterpTable(t *testing.T, name string, rows []irow, each func(r irow, got result)) map[string]bool {
	b := shell.New(shell.Options{Interpreter: name})
	failed := map[string]bool{}
	// One store; each row runs in a fresh copy of the fixture of its own
	// (a new store a row is most of the cost).
	f := newStore(t)
	for i, r := range rows {
		dir := fmt.Sprintf("/r%d", i)
		shelltest.WriteStoreFixture(t, f, dir, fixture)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		got := runRecovered(ctx, b, f, dir, r.Script, r.Stdin)
		cancel()
		if !r.agrees(got) {
			failed[r.Name] = true
		}
		if each != nil {
			each(r, got)
		}
	}
	return failed
}

func TestInterpTable_desk(t *testing.T) {
	rows := loadInterpTable(t)
	passed := 0
	runInterpTable(t, shell.InterpDesk, rows, func(r irow, got result) {
		ok := r.agrees(got)
		if ok {
			passed++
		}
		gap, isGap := deskGaps[r.Name]
		switch {
		case isGap && ok:
			t.Errorf("%s: listed in deskGaps (%s) but passes: unlist it", r.Name, gap)
		case !isGap && !ok:
			t.Errorf("%s: %s\nscript: %s", r.Name, r.diff(got), r.Script)
		}
	})
	for n := range deskGaps {
		found := false
		for _, r := range rows {
			found = found || r.Name == n
		}
		if !found {
			t.Errorf("deskGaps lists %q, not a row", n)
		}
	}
	t.Logf("desk interpreter: %d of %d rows", passed, len(rows))
}

func TestInterpTable_mvdan(t *testing.T) {
	rows := loadInterpTable(t)
	failed := runInterpTable(t, shell.InterpMvdan, rows, nil)
	t.Logf("mvdan interpreter: %d of %d rows", len(rows)-len(failed), len(rows))
}

// testTimeout is a hang guard for one row, not a speed expectation.
const testTimeout = 60 * time.Second

// deskGaps are rows desk's interpreter does not pass yet, each with what is
// missing; TestInterpTable_desk fails when one starts passing.
var deskGaps = map[string]string{
	// interpreter:
}

// runRecovered is runScript with a panic of the interpreter turned into a
// failed result (mvdan.cc/sh's panics on some scripts, e.g. ((c[$k]++))).
func runRecovered(ctx context.Context, b *shell.Backend, f *vfs.FS, dir, script, stdin string) (got result) {
	defer func() {
		if p := recover(); p != nil {
			got = result{err: fmt.Errorf("panic: %v", p), exit: -1}
		}
	}()
	return runScriptIn(ctx, b, f, dir, script, stdin)
}

// runScriptIn runs script through b on f in dir with stdin.
func runScriptIn(ctx context.Context, b *shell.Backend, f *vfs.FS, dir, script, stdin string) result {
	var out, errb testenv.SyncBuffer
	job := &run.Job{
		ID: "test", Backend: "shell", Source: script, Cwd: dir,
		Env:   map[string]string{"LANG": "C.UTF-8", "DESK_EXEC_ID": "test"},
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb, FS: f,
	}
	o, err := b.Run(vfs.WithActor(ctx, "test"), job)
	return result{out.String(), errb.String(), o.ExitCode, err}
}

// fixture is the shell package's table fixture.
var fixture = shelltest.Fixture

// result is what a script did.
type result struct {
	stdout, stderr string
	exit           int
	err            error
}

// newStore makes an empty store.
func newStore(t testing.TB) *vfs.FS {
	t.Helper()
	f, err := vfs.Open(context.Background(), filepath.Join(t.TempDir(), "ws.db"), vfs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

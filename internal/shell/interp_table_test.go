package shell

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/shell/shelltest"
	"github.com/desk-dev/desk/internal/testenv"
	"github.com/desk-dev/desk/internal/vfs"
)

// The interpreter table, testdata/interp_table.jsonl, is tested by package
// interptest (confirmed against bash, run on both interpreters); the
// canary test runs it here too.
const interpTableFile = "testdata/interp_table.jsonl"

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
		shelltest.WriteStoreFixture(t, f, dm, rowFixture(r))
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
	shelltest.WriteHostFixture(t, dir, files)
	var got result
	got.stdout, got.stderr, got.exit = shelltest.Bash(t, bash, dir, script, stdin)
	return got
}

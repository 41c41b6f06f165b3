package shell

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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
// go test ./internal/shell -run TestInterpTable_confirm -update-interp-table
// rewrites the expectations from bash (for new rows; review the diff).

var updateInterpTable = flag.Bool("update-interp-table", false, "rewrite testdata/interp_table.jsonl's expectations from bash")

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

// runBash runs a script with the real bash -c in a fresh copy of the fixture.
func runBash(t testing.TB, bash, script, stdin string) result {
	dir := t.TempDir()
	writeHostFixture(t, dir, fixture)
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
			t.Fatal(err)
		}
		got.exit = ee.ExitCode()
	}
	got.stdout, got.stderr = out.String(), errb.String()
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
	b := New(Options{Interpreter: name})
	failed := map[string]bool{}
	for _, r := range rows {
		f := newStore(t, fixture)
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		got := runRecovered(ctx, b, f, r.Script, r.Stdin)
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
	runInterpTable(t, InterpDesk, rows, func(r irow, got result) {
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
	failed := runInterpTable(t, InterpMvdan, rows, nil)
	t.Logf("mvdan interpreter: %d of %d rows", len(rows)-len(failed), len(rows))
}

// testTimeout is a hang guard for one row, not a speed expectation.
const testTimeout = 60 * time.Second

// deskGaps are rows desk's interpreter does not pass yet, each with what is
// missing; TestInterpTable_desk fails when one starts passing.
var deskGaps = map[string]string{}

// runRecovered is runScript with a panic of the interpreter turned into a
// failed result (mvdan.cc/sh's panics on some scripts, e.g. ((c[$k]++))).
func runRecovered(ctx context.Context, b *Backend, f *vfs.FS, script, stdin string) (got result) {
	defer func() {
		if p := recover(); p != nil {
			got = result{err: fmt.Errorf("panic: %v", p), exit: -1}
		}
	}()
	return runScript(ctx, b, f, script, stdin)
}

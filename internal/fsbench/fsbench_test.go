package fsbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/desk-dev/desk/internal/sandbox/sandboxtest"
	"github.com/desk-dev/desk/internal/testenv"
)

// TestMain lets the test binary be the sandboxes' init.
func TestMain(m *testing.M) {
	sandboxtest.RunInit()
	os.Exit(m.Run())
}

// TestRun_Small runs every scenario at a small scale on the three
// filesystems and checks the report's shape.
func TestRun_Small(t *testing.T) {
	sandboxtest.Require(t)
	for _, tool := range []string{"git", "npm", "node"} {
		if _, err := os.Stat("/usr/bin/" + tool); err != nil {
			testenv.Need(t, testenv.Sandbox, fmt.Errorf("the host has no /usr/bin/%s for the sandbox (make test-setup installs it): %w", tool, err))
		}
	}
	exe := sandboxtest.InitPath(t)
	// The sandbox's root (an unprivileged host uid) must reach the scratch
	// directory.
	dir := testenv.TraversableDir(t)
	var progress strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Dir: dir, InitPath: exe, Runs: 1, Files: 50, BigSize: 1 << 20, Packages: 5, PkgFiles: 4,
		WarmExecs: 3, NoDropCaches: true, Trace: true, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	if len(rep.Rows) != 15 {
		t.Errorf("%d rows", len(rep.Rows))
	}
	for _, row := range rep.Rows {
		for i, d := range row.Times {
			if i == Bindfs && !rep.HasBindfs {
				if d != 0 {
					t.Errorf("%s: a bindfs time without bindfs: %v", row.Name, d)
				}
				continue
			}
			if d <= 0 {
				t.Errorf("%s on %s: %v", row.Name, FSNames[i], d)
			}
		}
	}
	// The create row's trace holds its 50 CREATEs (one run), and no row
	// that works on /workspace sent nothing.
	if len(rep.Traces) != len(rep.Rows)-2 {
		t.Fatalf("%d traces for %d rows", len(rep.Traces), len(rep.Rows))
	}
	for i, tr := range rep.Traces {
		if n, _ := tr.Requests(); n == 0 && !strings.HasPrefix(rep.Rows[i].Name, "stat ") && !strings.Contains(rep.Rows[i].Name, "warm") {
			t.Errorf("%s: no FUSE request traced", rep.Rows[i].Name)
		}
	}
	creates := int64(0)
	for _, o := range rep.Traces[0].Ops() {
		if o.Op == "CREATE" {
			creates = o.Count
		}
	}
	if creates != 50 {
		t.Errorf("create 50 files: %d CREATE requests traced", creates)
	}
	var out strings.Builder
	rep.Format(&out)
	for _, want := range []string{"| create 50 files |", "| npm install (5 pkgs, 20 files) |", "| sandbox cold start (first `true`) |", "×tmpfs",
		"### create 50 files: FUSE requests per run", "| CREATE | 50 | 0 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := exec.LookPath("bindfs"); err == nil && (!rep.HasBindfs || !strings.Contains(out.String(), "| ×bindfs |")) {
		t.Errorf("bindfs is installed but the report has no bindfs column:\n%s", out.String())
	}
	t.Logf("\n%s", out.String())
	// Nothing is left in the directory.
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func TestParseEpoch(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1700000000.123456": 1700000000*time.Second + 123456*time.Microsecond,
		"5.5":               5*time.Second + 500*time.Millisecond,
		"7":                 7 * time.Second,
	} {
		if got, err := parseEpoch(in); err != nil || got != want {
			t.Errorf("parseEpoch(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if d, err := elapsed("noise\n10.000100 10.250100\n"); err != nil || d != 250*time.Millisecond {
		t.Errorf("elapsed = %v, %v", d, err)
	}
}

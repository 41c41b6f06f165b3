package cmds

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fuFileCase is one row of a file command's table. real, when set, says why
// the row is not checked against the real GNU tool (a known divergence, or an
// output that depends on the host: times, absolute paths, inode numbers).
type fuFileCase struct {
	name       string
	files      map[string]string
	stdin      string
	args       []string
	wantOut    string
	wantErr    string
	wantStatus int
	real       string
}

// fuRunCases runs a table through the shared harness in the C locale, the
// locale fuConfirmCases runs the real tools in.
func fuRunCases(t *testing.T, cases []fuFileCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errs, st := runEnv(t, cLocale, c.files, c.stdin, c.args...)
			if out != c.wantOut || errs != c.wantErr || st != c.wantStatus {
				t.Errorf("%q:\n got out=%q err=%q status=%d\nwant out=%q err=%q status=%d",
					c.args, out, errs, st, c.wantOut, c.wantErr, c.wantStatus)
			}
		})
	}
}

// fuConfirmCases runs the same rows against the real tools on a temporary
// directory (fixtures under dir/work, run in dir/work, LC_ALL=C) and checks
// the expectations are the real behaviour. The temporary prefix is removed
// from the real output so "/work/x" compares. unordered compares sorted lines
// (find and du list directories in on-disk order).
func fuConfirmCases(t *testing.T, cases []fuFileCase, unordered bool) {
	t.Helper()
	if testing.Short() {
		t.Skip("short")
	}
	for _, c := range cases {
		if c.real != "" {
			continue
		}
		if _, err := exec.LookPath(c.args[0]); err != nil {
			requireTool(t, c.args[0])
		}
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			root, _ = filepath.EvalSymlinks(root)
			work := filepath.Join(root, "work")
			if err := os.MkdirAll(work, 0o755); err != nil {
				t.Fatal(err)
			}
			fuHostFixture(t, root, c.files)
			cmd := exec.Command(c.args[0], c.args[1:]...)
			cmd.Dir = work
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + work, "TZ=UTC", "TMPDIR=" + root + "/tmp"}
			cmd.Stdin = strings.NewReader(c.stdin)
			o, e, st := runGNU(t, cmd)
			gotOut := strings.ReplaceAll(o, root, "")
			gotErr := strings.ReplaceAll(e, root, "")
			wantOut := c.wantOut
			if unordered {
				gotOut, wantOut = fuSortLines(gotOut), fuSortLines(wantOut)
			}
			if gotOut != wantOut || gotErr != c.wantErr || st != c.wantStatus {
				t.Errorf("real %q:\n got out=%q err=%q status=%d\nwant out=%q err=%q status=%d",
					c.args, gotOut, gotErr, st, wantOut, c.wantErr, c.wantStatus)
			}
		})
	}
}

// fuHostFixture makes files on the host as newStore makes them in a
// store: names relative to root/work unless absolute (then under root),
// keys ending in "/" directories, values starting with "->" symlinks.
func fuHostFixture(t *testing.T, root string, files map[string]string) {
	t.Helper()
	work := filepath.Join(root, "work")
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := n
		if strings.HasPrefix(p, "/") {
			p = root + p
		} else {
			p = filepath.Join(work, p)
		}
		v := files[n]
		var err error
		switch {
		case strings.HasSuffix(n, "/"):
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(v, "->"):
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.Symlink(strings.TrimPrefix(v, "->"), p)
			}
		default:
			if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
				err = os.WriteFile(p, []byte(v), 0o644)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func fuSortLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	sort.Strings(l)
	return strings.Join(l, "")
}

// runGNU runs the real tool's cmd and returns its stdout, stderr and exit
// status (a failure to start it fails t).
func runGNU(t testing.TB, cmd *exec.Cmd) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("run %s: %v", cmd.Path, err)
		}
		status = ee.ExitCode()
	}
	return out.String(), errb.String(), status
}

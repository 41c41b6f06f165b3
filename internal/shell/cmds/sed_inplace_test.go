package cmds

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestSedInPlace_gnu runs sed -i over the same files with desk's sed and
// with GNU sed and compares what each file holds after, stdout, stderr and
// the status. The files cover the buffer sizes the in-place path picks
// (empty, one byte, no final newline, a line longer than 64 KiB, many
// lines) and the scripts per-file addressing ($, line numbers: -i implies
// -s), output to stdout and stderr (w /dev/stdout: a line without its
// newline gets it back before the next line written there, from the next
// file too), and q.
func TestSedInPlace_gnu(t *testing.T) {
	if _, err := exec.LookPath("sed"); err != nil {
		requireTool(t, "sed")
	}
	var many strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&many, "alpha line %d beta\n", i)
	}
	files := map[string]string{
		"empty":   "",
		"one":     "a",
		"nonl":    "alpha\nalpha beta",
		"long":    strings.Repeat("alpha ", 20000) + "\nshort alpha\n",
		"many":    many.String(),
		"sub/two": "alpha\nbeta\nalpha\n",
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := [][]string{
		{"sed", "-i", "s/alpha/omega/"},
		{"sed", "-i", "s/alpha/omega/g;$s/$/ END/"},
		{"sed", "-i", "-n", "1p;$p"},
		{"sed", "-i", "2d;1i top"},
		{"sed", "-i", "-e", "s/a/A/w /dev/stdout"},
		{"sed", "-i", "-e", "/beta/w /dev/stderr"},
		{"sed", "-i", "3q"},
		{"sed", "-i.bak", "s/beta/gamma/"},
		{"sed", "-i", "$!N;s/\\n/+/"},
		{"sed", "-i", "-z", "s/alpha/Z/g"},
	}
	for _, args := range rows {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			argv := append(append([]string{}, args...), names...)
			f := newStore(t, files)
			out, errs, st := runInEnv(t, f, "/work", cLocale, "", argv...)

			host := t.TempDir()
			for n, v := range files {
				p := filepath.Join(host, n)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = host
			cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin"}
			hout, herrs, hst := runGNU(t, cmd)
			if out != hout || errs != herrs || st != hst {
				t.Errorf("%q:\n desk out=%s err=%q status=%d\n  GNU out=%s err=%q status=%d", argv, sedAbout(out), errs, st, sedAbout(hout), herrs, hst)
			}
			for _, n := range append(names, "one.bak", "many.bak") {
				want, herr := os.ReadFile(filepath.Join(host, n))
				got, gerr := f.ReadFile(t.Context(), "/work/"+n)
				if (herr == nil) != (gerr == nil) || string(got) != string(want) {
					t.Errorf("%q: %s: desk %d bytes (%v), GNU %d bytes (%v)", argv, n, len(got), gerr, len(want), herr)
				}
			}
		})
	}
}

// sedAbout shortens an output for a message: its length and its end.
func sedAbout(s string) string {
	if len(s) <= 80 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%d bytes ending %q", len(s), s[len(s)-80:])
}

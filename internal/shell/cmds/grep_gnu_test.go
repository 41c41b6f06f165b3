package cmds

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// grepInputs are texts that cross what the block path handles specially:
// block boundaries (256 KiB), a line longer than a block, NUL bytes in the
// first 32 KiB and after it, invalid UTF-8 in a matching line, no final
// newline, CRLF, an empty input, the Kelvin sign that -i folds to k.
func grepInputs() map[string]string {
	r := rand.New(rand.NewPCG(20, 26))
	words := []string{"foo", "Foo", "FOO", "bar", "foobar", "xfoo", "foo_x", "baz", "qux", "fo", "oo", "\u212aelvin", "kelvin", "é"}
	text := func(lines int) string {
		var b strings.Builder
		for range lines {
			for j := range r.IntN(8) {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		return b.String()
	}
	big := text(60_000) // about 1 MB: several blocks
	return map[string]string{
		"small":      text(50),
		"nonl":       strings.TrimSuffix(text(20), "\n") + " foo",
		"crlf":       strings.ReplaceAll(text(30), "\n", "\r\n"),
		"empty":      "",
		"big":        big,
		"longline":   text(10) + strings.Repeat("ab ", 200_000) + "foo end\n" + text(10),
		"nul-early":  text(5) + "foo\x00bar\n" + text(5),
		"nul-late":   big[:40_000] + "\nfoo \x00 bar\n" + text(100),
		"nul-far":    big + "foo\x00\n" + text(100),
		"badutf8":    text(10) + "foo \xff\xfe here\n" + text(10),
		"badutf8far": big[:300_000] + "\nfoo \xff here\n" + text(10),
	}
}

// TestGrep_gnu runs grep over grepInputs with the options of the block
// path and of the line path: the block path's output, standard error and
// status are the line path's, and both are the installed GNU grep's, from a
// file, from standard input and over a tree (-r). Where a NUL byte comes
// after the first 32 KiB (far/), GNU grep stops printing from the 96 KiB
// read buffer that holds it, desk's grep from its line: those inputs are
// compared between desk's two paths only.
func TestGrep_gnu(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		requireTool(t, "grep")
		return
	}
	inputs := grepInputs()
	files := map[string]string{}
	dir := t.TempDir()
	sub := func(n string) string {
		if n == "nul-late" || n == "nul-far" {
			return "far/" + n
		}
		return "in/" + n
	}
	for n, c := range inputs {
		files[sub(n)] = c
		os.MkdirAll(filepath.Join(dir, filepath.Dir(sub(n))), 0o755)
		if err := os.WriteFile(filepath.Join(dir, sub(n)), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f := newStore(t, files)
	optsets := [][]string{
		{"foo"}, {"-n", "foo"}, {"-b", "foo"}, {"-c", "foo"}, {"-o", "foo"}, {"-no", "fo*"}, {"-l", "foo"},
		{"-L", "foo"}, {"-q", "foo"}, {"-m", "3", "-n", "foo"}, {"-c", "-m", "2", "foo"}, {"-i", "foo"},
		{"-in", "KELVIN"}, {"-w", "foo"}, {"-x", "foo"}, {"-F", "o b"}, {"-E", "fo+ba?r"}, {"-nE", "^foo|bar$"},
		{"-n", ""}, {"-c", "."}, {"-a", "-n", "foo"}, {"-I", "-c", "foo"}, {"-nb", "-e", "foo", "-e", "baz"},
		{"-v", "-c", "foo"}, {"-n", "-A1", "bar"}, {"-ci", "é"}, {"-n", "foo end"},
	}
	gnu := func(stdin string, args ...string) (string, string, int) {
		cmd := exec.Command("grep", args...)
		cmd.Dir = dir
		cmd.Env = []string{"LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if stdin != "" {
			cmd.Stdin = strings.NewReader(stdin)
		}
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	check := func(what string, withGNU bool, stdin string, args ...string) {
		t.Helper()
		go_, ge, gc := runIn(t, f, "/work", stdin, append([]string{"grep"}, args...)...)
		noBlocks = true
		lo, le, lc := runIn(t, f, "/work", stdin, append([]string{"grep"}, args...)...)
		noBlocks = false
		if go_ != lo || ge != le || gc != lc {
			t.Errorf("%s: grep %q: block path: status %d, line path %d\nstderr %q\nline   %q\nstdout (%d bytes) %s\nline   (%d bytes) %s",
				what, args, gc, lc, ge, le, len(go_), clip(go_), len(lo), clip(lo))
		}
		if !withGNU {
			return
		}
		wo, we, wc := gnu(stdin, args...)
		if what == "tree" {
			wo, we, go_, ge = sortedLines(wo), sortedLines(we), sortedLines(go_), sortedLines(ge)
		}
		if go_ != wo || ge != we || gc != wc {
			t.Errorf("%s: grep %q: status %d, want %d\nstderr %q\nwant   %q\nstdout (%d bytes) %s\nwant   (%d bytes) %s",
				what, args, gc, wc, ge, we, len(go_), clip(go_), len(wo), clip(wo))
		}
	}
	for _, opts := range optsets {
		// Go's case folding takes the Kelvin sign for a K, GNU grep's in
		// C.UTF-8 does not: that row is compared between desk's paths.
		gnuToo := !slices.Contains(opts, "KELVIN")
		for _, n := range sortedNames(inputs) {
			check("file", gnuToo && strings.HasPrefix(sub(n), "in/"), "", append(append([]string{}, opts...), sub(n))...)
		}
		check("tree", gnuToo, "", append(append([]string{"-r"}, opts...), "in")...)
		check("tree", false, "", append(append([]string{"-r"}, opts...), "far")...)
		for _, n := range []string{"small", "big", "nul-late", "longline", "nonl"} {
			check("stdin "+n, gnuToo && n != "nul-late", inputs[n], opts...)
		}
	}
}

func sortedNames(m map[string]string) []string {
	out := slices.Collect(maps.Keys(m))
	slices.Sort(out)
	return out
}

// sortedLines is s's lines sorted: GNU grep -r visits a directory in the
// order it reads it, desk's grep in name order.
func sortedLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	slices.Sort(l)
	return strings.Join(l, "")
}

// clip shows the start of a long output and where it ends.
func clip(s string) string {
	if len(s) <= 300 {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q ... %q", s[:150], s[len(s)-150:])
}

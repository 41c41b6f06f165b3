package cmds

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// shufSource is a --random-source of n bytes from a seeded generator.
func shufSource(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func TestShuf(t *testing.T) {
	th := "Try 'shuf --help' for more information.\n"
	rs := map[string]string{"rs": shufSource(1, 4096), "f": "a\nb\nc\nd\ne\n", "one": "x\n"}
	runTextRows(t, []textRow{
		{args: []string{"shuf", "--random-source=rs", "-i", "1-10"}, files: rs, out: "7\n3\n1\n4\n9\n8\n5\n10\n6\n2\n"},
		{args: []string{"shuf", "--random-source=rs", "-i", "1-10", "-n", "3"}, files: rs, out: "7\n3\n1\n"},
		{args: []string{"shuf", "--random-source=rs", "-n", "2", "-n", "1", "-i", "1-9"}, files: rs, out: "8\n"},
		{args: []string{"shuf", "--random-source=rs", "-e", "a", "b", "c"}, files: rs, out: "b\nc\na\n"},
		{args: []string{"shuf", "--random-source=rs", "f"}, files: rs, out: "b\nc\ne\na\nd\n"},
		{args: []string{"shuf", "--random-source=rs", "-n", "2", "f"}, files: rs, out: "b\nc\n"},
		{args: []string{"shuf", "--random-source=rs", "-n", "2"}, files: rs, stdin: "a\nb\nc\nd\ne\n", out: "c\na\n"},
		{args: []string{"shuf", "--random-source=rs", "-r", "-n", "5", "-i", "0-1"}, files: rs, out: "0\n1\n0\n1\n0\n"},
		{args: []string{"shuf", "--random-source=rs", "-r", "-n", "3", "-e", "x", "y"}, files: rs, out: "x\ny\nx\n"},
		{args: []string{"shuf", "--random-source=rs", "-z", "-e", "a", "b"}, files: rs, out: "a\x00b\x00"},
		{args: []string{"shuf", "--random-source=rs", "-i", "18446744073709551610-18446744073709551615", "-n", "2"}, files: rs, out: "18446744073709551614\n18446744073709551613\n"},
		{args: []string{"shuf", "--random-source=rs", "-i", "5-5"}, files: rs, out: "5\n"},
		{args: []string{"shuf", "--random-source=rs", "-i", "5-4"}, files: rs},
		{args: []string{"shuf", "--random-source=rs", "-o", "out", "f"}, files: rs},
		{args: []string{"shuf", "--random-source=rs", "-n", "99999999999999999999999", "-i", "1-3"}, files: rs, out: "2\n3\n1\n"},
		{args: []string{"shuf", "--random-source=one", "-e", "a"}, files: rs, out: "a\n"},
		{args: []string{"shuf", "--random-source=/dev/null", "-e", "a", "b"}, errOut: "shuf: ‘/dev/null’: end of file\n", code: 1},
		{args: []string{"shuf", "--random-source=/dev/null", "-n", "1"}, stdin: "a\nb\n", errOut: "shuf: ‘/dev/null’: end of file\n", code: 1},
		{args: []string{"shuf", "--random-source=nosuch", "-e", "a"}, errOut: "shuf: nosuch: No such file or directory\n", code: 1},
		{args: []string{"shuf", "--random-source=nosuch", "-n", "0", "-e", "a"}},
		{args: []string{"shuf", "--random-source=rs", "--random-source=rs", "-e", "a"}, files: rs, out: "a\n"},
		{args: []string{"shuf", "--random-source=rs", "--random-source=f", "-e", "a"}, files: rs, errOut: "shuf: multiple random sources specified\n", code: 1},
		{args: []string{"shuf", "-e"}},
		{args: []string{"shuf", "-r", "-e"}, errOut: "shuf: no lines to repeat\n", code: 1},
		{args: []string{"shuf", "-r", "-n", "0", "-e"}},
		{args: []string{"shuf", "-n", "0", "nosuch"}},
		{args: []string{"shuf", "nosuch"}, errOut: "shuf: nosuch: No such file or directory\n", code: 1},
		{args: []string{"shuf", "-i", "x"}, errOut: "shuf: invalid input range: ‘x’\n", code: 1},
		{args: []string{"shuf", "-i", "5-3"}, errOut: "shuf: invalid input range: ‘5-3’\n", code: 1},
		{args: []string{"shuf", "-i", "3-5-7"}, errOut: "shuf: invalid input range: ‘5-7’\n", code: 1},
		{args: []string{"shuf", "-i", "1-"}, errOut: "shuf: invalid input range: ‘’\n", code: 1},
		{args: []string{"shuf", "-i", "-3"}, errOut: "shuf: invalid input range: ‘’\n", code: 1},
		{args: []string{"shuf", "-i", "1-99999999999999999999"}, errOut: "shuf: invalid input range: ‘99999999999999999999’: Value too large for defined data type\n", code: 1},
		{args: []string{"shuf", "-i", "0-18446744073709551615"}, errOut: "shuf: invalid input range: ‘0-18446744073709551615’\n", code: 1},
		{args: []string{"shuf", "-i", "1-3", "-i", "1-3"}, errOut: "shuf: multiple -i options specified\n", code: 1},
		{args: []string{"shuf", "-n", "x"}, errOut: "shuf: invalid line count: ‘x’\n", code: 1},
		{args: []string{"shuf", "-n", "-1"}, errOut: "shuf: invalid line count: ‘-1’\n", code: 1},
		{args: []string{"shuf", "-e", "a", "-i", "1-2"}, errOut: "shuf: cannot combine -e and -i options\n" + th, code: 1},
		{args: []string{"shuf", "a", "b"}, errOut: "shuf: extra operand ‘b’\n" + th, code: 1},
		{args: []string{"shuf", "-i", "1-2", "x"}, errOut: "shuf: extra operand ‘x’\n" + th, code: 1},
		{args: []string{"shuf", "-o", "x", "-o", "y", "-e", "a"}, errOut: "shuf: multiple output files specified\n", code: 1},
		{args: []string{"shuf", "-o", "/nonexist/x", "-e", "a"}, errOut: "shuf: /nonexist/x: No such file or directory\n", code: 1},
		{args: []string{"shuf", "d"}, files: map[string]string{"d/": ""}, errOut: "shuf: read error: Is a directory\n", code: 1},
		{args: []string{"shuf", "--random-source=d", "-e", "a", "b"}, files: map[string]string{"d/": ""}, errOut: "shuf: ‘d’: read error: Is a directory\n", code: 1},
		{args: []string{"shuf", "-x"}, errOut: "shuf: invalid option -- 'x'\n" + th, code: 1},
	})
}

// TestShuf_output: -o writes the file after reading the input, so shuf -o
// f f shuffles f in place.
func TestShuf_output(t *testing.T) {
	f := newStore(t, map[string]string{"rs": shufSource(1, 64), "f": "a\nb\nc\nd\ne\n"})
	if _, e, c := runIn(t, f, "/work", "", "shuf", "--random-source=rs", "-o", "f", "f"); c != 0 || e != "" {
		t.Fatalf("status %d, %q", c, e)
	}
	if got := readFile(t, f, "/work/f"); got != "b\nc\ne\na\nd\n" {
		t.Fatalf("f = %q", got)
	}
}

// TestShuf_gnu runs generated shuf invocations with the same random
// source through GNU shuf and desk's: the permutations, samples and
// reservoirs drawn must be GNU's, byte for byte.
func TestShuf_gnu(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 5))
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		files := map[string]string{"rs": shufSource(uint64(i), 16+r.IntN(3000))}
		args := []string{"shuf", "--random-source=rs"}
		stdin := ""
		if r.IntN(3) == 0 {
			args = append(args, "-n", fmt.Sprint(r.IntN(12)))
		}
		if r.IntN(5) == 0 {
			args = append(args, "-r")
			if !strings.Contains(strings.Join(args, " "), "-n") {
				args = append(args, "-n", fmt.Sprint(r.IntN(40)))
			}
		}
		switch r.IntN(4) {
		case 0:
			lo := r.Uint64N(1000)
			if r.IntN(4) == 0 {
				lo = ^uint64(0) - r.Uint64N(1<<40)
			}
			span := r.Uint64N(300)
			if r.IntN(5) == 0 {
				span = r.Uint64N(1 << 62)
			}
			if lo+span < lo {
				span = ^uint64(0) - lo
			}
			if !strings.Contains(strings.Join(args, " "), "-n") && span > 5000 {
				args = append(args, "-n", fmt.Sprint(r.IntN(50)))
			}
			args = append(args, "-i", fmt.Sprintf("%d-%d", lo, lo+span))
		case 1:
			args = append(args, "-e")
			for k := r.IntN(30); k > 0; k-- {
				args = append(args, fmt.Sprint("w", r.IntN(100)))
			}
		default:
			var b strings.Builder
			for k := r.IntN(400); k > 0; k-- {
				fmt.Fprintf(&b, "line %d\n", r.IntN(1000))
			}
			if r.IntN(2) == 0 {
				files["in"] = b.String()
				args = append(args, "in")
			} else {
				stdin = b.String()
			}
		}
		h, _ := runHost(t, args, files, nil, stdin)
		out, errOut, code := runEnv(t, nil, files, stdin, args...)
		if out != h.out || errOut != h.errOut || code != h.code {
			t.Errorf("%q:\n got %q %q %d\nGNU %q %q %d", args, trunc(out), errOut, code, trunc(h.out), h.errOut, h.code)
		}
	}
}

func trunc(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// TestShuf_bounds: a huge range is sampled without building it; a full
// permutation of one is refused before any output, within the limit.
func TestShuf_bounds(t *testing.T) {
	out, errOut, code := run(t, nil, "", "shuf", "-n", "3", "-i", "1-18446744073709551615")
	if code != 0 || errOut != "" || strings.Count(out, "\n") != 3 {
		t.Fatalf("-n 3 of 2^64-1: %q %q %d", out, errOut, code)
	}
	out, errOut, code = runLimited(t, 1<<20, "shuf", "", "-i", "1-1000000000000")
	if code != 1 || out != "" || errOut != "shuf: "+ErrTooLarge.Error()+"\n" {
		t.Fatalf("full permutation of 10^12: %q %q %d", out, errOut, code)
	}
	out, errOut, code = runLimited(t, 1<<20, "shuf", "", "-n", "1000000", "-i", "1-1000000000000")
	if code != 1 || out != "" || errOut != "shuf: "+ErrTooLarge.Error()+"\n" {
		t.Fatalf("-n 10^6 of 10^12 under 1 MiB: %q %q %d", trunc(out), errOut, code)
	}
}

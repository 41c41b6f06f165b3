package cmds

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

func init() { Register("cmp", Cmp) }

// Cmp compares two files byte by byte as GNU cmp 3.8: the first difference
// ("a b differ: byte N, line M"), -l (every differing byte, octal), -b (the
// bytes shown too), -s (status only), -n N (at most N bytes), -i SKIP[:SKIP2]
// and the optional SKIP operands, "-" for stdin, "EOF on x after byte N,
// line M" when one input is a prefix of the other. Exit 0 same, 1
// different, 2 trouble. Inputs are streamed.
func Cmp(env *Env, args []string) int {
	opts, ops, ok := diffParseOpts(env, "cmp", args[1:], optSpec{
		shorts: "bln:si:",
		longs:  []string{"print-bytes", "verbose", "bytes=", "quiet", "silent", "ignore-initial="},
	})
	if !ok {
		return 2
	}
	var printBytes, verbose, quiet bool
	limit := int64(-1)
	var skip [2]int64
	for _, o := range opts {
		switch o.name {
		case "b", "print-bytes":
			printBytes = true
		case "l", "verbose":
			verbose = true
		case "s", "quiet", "silent":
			quiet = true
		case "n", "bytes":
			n, ok := parseSize(o.val)
			if !ok {
				diffUsageErr(env, "cmp", fmt.Sprintf("invalid --bytes value '%s'", o.val))
				return 2
			}
			limit = n
		case "i", "ignore-initial":
			s1, s2, two := strings.Cut(o.val, ":")
			a, ok1 := parseSize(s1)
			b := a
			ok2 := true
			if two {
				b, ok2 = parseSize(s2)
			}
			if !ok1 || !ok2 {
				diffUsageErr(env, "cmp", fmt.Sprintf("invalid --ignore-initial value '%s'", o.val))
				return 2
			}
			skip = [2]int64{a, b}
		}
	}
	if quiet && verbose {
		diffUsageErr(env, "cmp", "options -l and -s are incompatible")
		return 2
	}
	if len(ops) == 0 {
		diffUsageErr(env, "cmp", "missing operand after 'cmp'")
		return 2
	}
	for i := 2; i < len(ops) && i < 4; i++ {
		n, ok := parseSize(ops[i])
		if !ok {
			diffUsageErr(env, "cmp", fmt.Sprintf("invalid --ignore-initial value '%s'", ops[i]))
			return 2
		}
		skip[i-2] = n
	}
	if len(ops) > 4 {
		diffUsageErr(env, "cmp", fmt.Sprintf("extra operand '%s'", ops[4]))
		return 2
	}
	names := [2]string{ops[0], "-"}
	if len(ops) > 1 {
		names[1] = ops[1]
	}
	var rs [2]*bufio.Reader
	var sizes [2]int64
	for i, n := range names {
		r, err := openArg(env, n)
		if err != nil {
			if !quiet {
				env.PathError("cmp", n, err)
			}
			return 2
		}
		defer r.Close()
		if n != "-" {
			if fi, err := env.FS.Stat(env.Ctx, env.Abs(n)); err == nil {
				sizes[i] = fi.Size() - skip[i]
			}
		} else {
			sizes[i] = -1
		}
		rs[i] = bufio.NewReaderSize(r, 64<<10)
		if skip[i] > 0 {
			if _, err := io.CopyN(io.Discard, rs[i], skip[i]); err != nil && err != io.EOF {
				env.PathError("cmp", n, err)
				return 2
			}
		}
	}
	if names[0] == names[1] && names[0] != "-" && skip[0] == skip[1] {
		return 0
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	width := 1
	if verbose {
		max := sizes[0]
		if sizes[1] > max {
			max = sizes[1]
		}
		if limit >= 0 && (max < 0 || limit < max) {
			max = limit
		}
		if max < 0 {
			max = 1 << 62
		}
		for v := max; v >= 10; v /= 10 {
			width++
		}
	}
	var pos, line int64 = 0, 1
	status := 0
	var last byte
	for limit < 0 || pos < limit {
		if pos&0xffff == 0 && env.Canceled() {
			return 2
		}
		c0, e0 := rs[0].ReadByte()
		c1, e1 := rs[1].ReadByte()
		if e0 != nil || e1 != nil {
			for i, e := range []error{e0, e1} {
				if e != nil && e != io.EOF {
					w.Flush()
					env.PathError("cmp", names[i], e)
					return 2
				}
			}
			if e0 != nil && e1 != nil {
				return status
			}
			short := 0
			if e1 != nil {
				short = 1
			}
			if !quiet {
				w.Flush()
				switch {
				case pos == 0:
					fmt.Fprintf(env.Stderr, "cmp: EOF on %s which is empty\n", names[short])
				case verbose:
					fmt.Fprintf(env.Stderr, "cmp: EOF on %s after byte %d\n", names[short], pos)
				case last == '\n':
					fmt.Fprintf(env.Stderr, "cmp: EOF on %s after byte %d, line %d\n", names[short], pos, line-1)
				default:
					fmt.Fprintf(env.Stderr, "cmp: EOF on %s after byte %d, in line %d\n", names[short], pos, line)
				}
			}
			return 1
		}
		pos++
		if c0 != c1 {
			status = 1
			switch {
			case quiet:
				return 1
			case verbose && printBytes:
				fmt.Fprintf(w, "%*d %3o %-4s %3o %s\n", width, pos, c0, cmpChar(c0), c1, cmpChar(c1))
			case verbose:
				fmt.Fprintf(w, "%*d %3o %3o\n", width, pos, c0, c1)
			case printBytes:
				fmt.Fprintf(w, "%s %s differ: byte %d, line %d is %3o %s %3o %s\n",
					names[0], names[1], pos, line, c0, cmpChar(c0), c1, cmpChar(c1))
				return 1
			default:
				fmt.Fprintf(w, "%s %s differ: byte %d, line %d\n", names[0], names[1], pos, line)
				return 1
			}
		}
		if c0 == '\n' {
			line++
		}
		last = c0
	}
	return status
}

// cmpChar shows a byte as cmp -b does: ^A for controls, M- for the high
// half.
func cmpChar(c byte) string {
	s := ""
	if c >= 128 {
		s = "M-"
		c -= 128
	}
	switch {
	case c < 32:
		return s + "^" + string(rune(c+64))
	case c == 127:
		return s + "^?"
	}
	return s + string(rune(c))
}

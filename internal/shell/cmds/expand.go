package cmds

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"strings"
)

func init() { Register("expand", Expand) }

var tabObsolete = regexp.MustCompile(`^-[0-9][0-9,]*$`)

// tabStops are the -t settings of expand and unexpand.
type tabStops struct {
	list   []int // explicit stops (one value: every that many columns)
	extend int   // "/N": after the list, every multiple of N
	incr   int   // "+N": after the list, every N past the last stop
}

// parseTabStops parses a -t list (numbers separated by commas or blanks, the
// last optionally "/N" or "+N"), printing GNU's diagnostic on error.
func parseTabStops(env *Env, cmd string, specs []string) (tabStops, bool) {
	var ts tabStops
	for _, spec := range specs {
		fields := strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
		for i, f := range fields {
			pre := byte(0)
			if f[0] == '/' || f[0] == '+' {
				pre, f = f[0], f[1:]
				if i != len(fields)-1 {
					env.Errorf(cmd, "'%c' specifier only allowed with the last value", pre)
					return ts, false
				}
			}
			n, err := strconv.Atoi(f)
			if err != nil || f == "" || f[0] == '+' || f[0] == '-' {
				bad := f
				if j := strings.IndexFunc(f, func(r rune) bool { return r < '0' || r > '9' }); j >= 0 {
					bad = f[j:]
				}
				env.Errorf(cmd, "tab size contains invalid character(s): %s", quote(env, bad))
				return ts, false
			}
			if n == 0 {
				env.Errorf(cmd, "tab size cannot be 0")
				return ts, false
			}
			switch pre {
			case '/':
				ts.extend = n
			case '+':
				ts.incr = n
			default:
				if len(ts.list) > 0 && n <= ts.list[len(ts.list)-1] {
					env.Errorf(cmd, "tab sizes must be ascending")
					return ts, false
				}
				ts.list = append(ts.list, n)
			}
		}
	}
	if len(ts.list) == 0 && ts.extend == 0 && ts.incr == 0 {
		ts.list = []int{8}
	}
	return ts, true
}

// next returns the next tab stop after col, or -1 past the last one.
func (ts tabStops) next(col int) int {
	if len(ts.list) == 1 && ts.extend == 0 && ts.incr == 0 {
		return col + ts.list[0] - col%ts.list[0]
	}
	last := 0
	for _, s := range ts.list {
		if s > col {
			return s
		}
		last = s
	}
	if ts.extend > 0 {
		return col + ts.extend - col%ts.extend
	}
	if ts.incr > 0 {
		return col + ts.incr - (col-last)%ts.incr
	}
	return -1
}

// tabArgs rewrites the obsolete "-4,8" form to "-t4,8".
func tabArgs(args []string) []string {
	rest := append([]string(nil), args...)
	for i, a := range rest {
		if a == "--" {
			break
		}
		if tabObsolete.MatchString(a) {
			rest[i] = "-t" + a[1:]
		}
	}
	return rest
}

// Expand converts tabs to spaces, as GNU expand: -t N stops every N
// columns, -t LIST at explicit columns (past the last, a tab is one space;
// "/N" or "+N" as the last value continues every N); -i converts only the
// tabs before the first non-blank of each line. Columns count bytes, as
// upstream coreutils does; backspace steps back one. Streams.
func Expand(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "expand", tabArgs(args[1:]), optSpec{shorts: "it:",
		longs: []string{"initial", "tabs="}})
	if !ok {
		return 1
	}
	var specs []string
	initial := false
	for _, o := range opts {
		switch o.name {
		case "i", "initial":
			initial = true
		case "t", "tabs":
			specs = append(specs, o.val)
		}
	}
	ts, ok := parseTabStops(env, "expand", specs)
	if !ok {
		return 1
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	return eachInput(env, "expand", w, files, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 32<<10)
		col, leading := 0, true
		for {
			c, err := br.ReadByte()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			switch {
			case c == '\t' && (leading || !initial):
				n := ts.next(col)
				if n < 0 {
					n = col + 1
				}
				for ; col < n; col++ {
					w.WriteByte(' ')
				}
				continue
			case c == '\b':
				if col > 0 {
					col--
				}
			case c == '\n':
				col, leading = 0, true
			default:
				col++
			}
			if c != ' ' && c != '\t' && c != '\n' {
				leading = false
			}
			w.WriteByte(c)
		}
	})
}

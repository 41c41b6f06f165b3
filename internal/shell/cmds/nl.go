package cmds

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

func init() { Register("nl", Nl) }

// nlStyle is a numbering style: 'a' all lines, 't' non-empty, 'n' none, 'p'
// lines matching re.
type nlStyle struct {
	kind byte
	re   *regexp.Regexp
}

// Nl numbers the lines of the files (or stdin), as GNU nl: -b/-h/-f STYLE
// (a, t, n, pRE) for body, header and footer sections; -n ln|rn|rz the
// number format; -w N its width; -s SEP after it; -v N the first number; -i N
// the increment; -l N groups of blank lines counted as one; -p keeps
// numbering across sections; -d CC the section delimiter (lines "\:\:\:",
// "\:\:", "\:" start header, body and footer). pRE is a Go regular
// expression. Streams line by line.
func Nl(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "nl", args[1:], optSpec{shorts: "b:d:f:h:i:l:n:ps:v:w:",
		longs: []string{"body-numbering=", "section-delimiter=", "footer-numbering=", "header-numbering=",
			"line-increment=", "join-blank-lines=", "number-format=", "no-renumber", "number-separator=",
			"starting-line-number=", "number-width="}})
	if !ok {
		return 1
	}
	styles := [3]nlStyle{{kind: 'n'}, {kind: 't'}, {kind: 'n'}} // header, body, footer
	format, width, sepStr := "rn", 6, "\t"
	start, incr, blanks := int64(1), int64(1), int64(1)
	renumber := true
	delim := `\:`
	for _, o := range opts {
		switch o.name {
		case "b", "body-numbering", "h", "header-numbering", "f", "footer-numbering":
			idx, what := 1, "body"
			if o.name[0] == 'h' {
				idx, what = 0, "header"
			} else if o.name[0] == 'f' {
				idx, what = 2, "footer"
			}
			st := nlStyle{}
			switch {
			case o.val == "a" || o.val == "t" || o.val == "n":
				st.kind = o.val[0]
			case strings.HasPrefix(o.val, "p"):
				re, err := compileRegexp(o.val[1:])
				if err != nil {
					env.Errorf("nl", "%s", err)
					return 1
				}
				st = nlStyle{kind: 'p', re: re}
			default:
				tryHelp(env, "nl", "invalid %s numbering style: %s", what, quote(env, o.val))
				return 1
			}
			styles[idx] = st
		case "d", "section-delimiter":
			delim = o.val
			if len(delim) == 1 {
				delim += ":"
			}
		case "i", "line-increment":
			n, ok := nlArg(env, "line number increment", o.val, math.MinInt64, math.MaxInt64)
			if !ok {
				return 1
			}
			incr = n
		case "l", "join-blank-lines":
			n, ok := nlArg(env, "line number of blank lines", o.val, 1, math.MaxInt64)
			if !ok {
				return 1
			}
			blanks = n
		case "n", "number-format":
			if o.val != "ln" && o.val != "rn" && o.val != "rz" {
				tryHelp(env, "nl", "invalid line numbering format: %s", quote(env, o.val))
				return 1
			}
			format = o.val
		case "p", "no-renumber":
			renumber = false
		case "s", "number-separator":
			sepStr = o.val
		case "v", "starting-line-number":
			n, ok := nlArg(env, "starting line number", o.val, math.MinInt64, math.MaxInt64)
			if !ok {
				return 1
			}
			start = n
		case "w", "number-width":
			n, ok := nlArg(env, "line number field width", o.val, 1, 1<<20)
			if !ok {
				return 1
			}
			width = int(n)
		}
	}
	numFmt := map[string]string{"ln": "%-*d", "rn": "%*d", "rz": "%0*d"}[format]
	noNum := strings.Repeat(" ", width+len(sepStr))
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	lineNo := start
	cur := 1
	blankRun := int64(0)
	return eachInput(env, "nl", w, files, func(r io.Reader) error {
		lr := newLineReader(env, r, '\n')
		for line := range lr.lines() {
			text := strings.TrimSuffix(string(line), "\n")
			if delim != "" {
				sec := -1
				switch text {
				case delim + delim + delim:
					sec = 0
				case delim + delim:
					sec = 1
				case delim:
					sec = 2
				}
				if sec >= 0 {
					cur = sec
					if renumber {
						lineNo = start
					}
					w.WriteByte('\n')
					continue
				}
			}
			st := styles[cur]
			number := false
			switch st.kind {
			case 'a':
				if text == "" {
					blankRun++
					if blankRun >= blanks {
						number, blankRun = true, 0
					}
				} else {
					number, blankRun = true, 0
				}
			case 't':
				number = text != ""
			case 'p':
				number = st.re.MatchString(text)
			}
			if number {
				fmt.Fprintf(w, numFmt, width, lineNo)
				w.WriteString(sepStr)
				lineNo += incr
			} else {
				w.WriteString(noNum)
			}
			w.WriteString(text)
			w.WriteByte('\n')
		}
		return lr.err
	})
}

// nlArg parses the number of an nl option (what names it in GNU's
// message), refusing one below lo or above hi as out of range.
func nlArg(env *Env, what, val string, lo, hi int64) (int64, bool) {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil {
		env.Errorf("nl", "invalid %s: %s", what, quote(env, val))
		return 0, false
	}
	if n < lo || n > hi {
		env.Errorf("nl", "invalid %s: %s: Numerical result out of range", what, quote(env, val))
		return 0, false
	}
	return n, true
}

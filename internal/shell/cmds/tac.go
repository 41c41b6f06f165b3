package cmds

import (
	"bufio"
	"bytes"
	"regexp"
)

func init() { Register("tac", Tac) }

// Tac prints the files (or stdin) with their records in reverse order, as
// GNU tac: records end with a newline, or -s SEP; -b attaches the separator
// to the start of each record instead; -r takes SEP as a regular expression
// (Go RE2 syntax, matched forward, leftmost-longest). Each input is held in
// memory, bounded by Limits.MaxReadBytes.
func Tac(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "tac", args[1:], optSpec{shorts: "brs:",
		longs: []string{"before", "regex", "separator="}})
	if !ok {
		return 1
	}
	sep := "\n"
	var before, isRegex bool
	for _, o := range opts {
		switch o.name {
		case "b", "before":
			before = true
		case "r", "regex":
			isRegex = true
		case "s", "separator":
			sep = o.val
		}
	}
	var re *regexp.Regexp
	if isRegex {
		var err error
		re, err = regexp.Compile(sep)
		if err != nil {
			env.Errorf("tac", "%s", err)
			return 1
		}
		re.Longest()
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	status := 0
	for _, name := range files {
		r, err := openArg(env, name)
		if err != nil {
			w.Flush()
			env.Errorf("tac", "failed to open %s for reading: %s", quoteaf(env, name), Strerror(err))
			status = 1
			continue
		}
		data, err := readAllLimited(env, r)
		r.Close()
		if err != nil {
			w.Flush()
			if !isCanceled(env, err) {
				env.Errorf("tac", "%s: read error: %s", quotef(env, name), Strerror(err))
			}
			status = 1
			continue
		}
		// Separator positions [start, end).
		var seps [][]int
		if re != nil {
			seps = re.FindAllIndex(data, -1)
		} else if sep != "" {
			for off := 0; ; {
				i := bytes.Index(data[off:], []byte(sep))
				if i < 0 {
					break
				}
				seps = append(seps, []int{off + i, off + i + len(sep)})
				off += i + len(sep)
			}
		}
		// Cut records.
		var recs [][]byte
		prev := 0
		for _, s := range seps {
			if s[1] == s[0] {
				continue
			}
			if before {
				if s[0] > prev || prev == 0 && s[0] > 0 {
					recs = append(recs, data[prev:s[0]])
				}
				prev = s[0]
			} else {
				recs = append(recs, data[prev:s[1]])
				prev = s[1]
			}
		}
		if prev < len(data) {
			recs = append(recs, data[prev:])
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if i&1023 == 0 && env.Canceled() {
				return 1
			}
			w.Write(recs[i])
		}
	}
	return status
}

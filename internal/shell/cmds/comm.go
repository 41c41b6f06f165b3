package cmds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

func init() { Register("comm", Comm) }

// Comm compares two sorted files line by line, as GNU comm: column 1 lines
// only in FILE1, column 2 only in FILE2, column 3 in both; -1 -2 -3
// suppress columns; --output-delimiter=STR separates them (default tab);
// --total adds a count line; -z uses NUL line ends. Order is checked as GNU
// does: by default a warning once unpairable lines were seen, and
// "input is not in sorted order" with status 1 at the end; --check-order
// stops at the first disorder; --nocheck-order never checks. Lines compare
// as bytes (the C.UTF-8 collation). Streams.
func Comm(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "comm", args[1:], optSpec{shorts: "123z",
		longs: []string{"check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated"}})
	if !ok {
		return 1
	}
	show := [4]bool{false, true, true, true}
	check := 0 // 0 default, 1 enabled, 2 disabled
	delim, hasDelim, total := "", false, false
	eol := byte('\n')
	for _, o := range opts {
		switch o.name {
		case "1", "2", "3":
			show[o.name[0]-'0'] = false
		case "check-order":
			check = 1
		case "nocheck-order":
			check = 2
		case "output-delimiter":
			if hasDelim && delim != o.val {
				env.Errorf("comm", "multiple output delimiters specified")
				return 1
			}
			delim, hasDelim = o.val, true
		case "total":
			total = true
		case "z", "zero-terminated":
			eol = 0
		}
	}
	if len(ops) < 2 {
		if len(ops) == 0 {
			missingOperand(env, "comm")
		} else {
			tryHelp(env, "comm", "missing operand after %s", quote(env, ops[len(ops)-1]))
		}
		return 1
	}
	if len(ops) > 2 {
		tryHelp(env, "comm", "extra operand %s", quote(env, ops[2]))
		return 1
	}
	if !hasDelim {
		delim = "\t"
	} else if delim == "" {
		delim = "\x00"
	}
	var lrs [2]*lineReader
	for i := 0; i < 2; i++ {
		r, err := openArg(env, ops[i])
		if err != nil {
			env.PathError("comm", quotef(env, ops[i]), err)
			return 1
		}
		defer r.Close()
		lrs[i] = newLineReader(env, r, eol)
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	var counts [4]int64
	write := func(line []byte, col int) {
		counts[col]++
		if !show[col] {
			return
		}
		if col >= 2 && show[1] {
			w.WriteString(delim)
		}
		if col == 3 && show[2] {
			w.WriteString(delim)
		}
		w.Write(line)
		w.WriteByte(eol)
	}
	// hist[i] holds the current, previous and the one before of file i.
	var cur [2][]byte
	var have [2]bool
	var prev, prev2 [2][]byte
	var havePrev, havePrev2 [2]bool
	var warned [2]bool
	unpairable := false
	var readErr error
	var errName string
	read := func(i int) {
		line, err := lrs[i].next()
		if err != nil {
			if err != io.EOF && readErr == nil {
				readErr, errName = err, ops[i]
			}
			have[i] = false
			return
		}
		if len(line) > 0 && line[len(line)-1] == eol {
			line = line[:len(line)-1]
		}
		cur[i], have[i] = line, true
	}
	// checkOrder reports whether processing may go on.
	checkOrder := func(a, b []byte, i int) bool {
		if check == 2 || check == 0 && !unpairable || warned[i] {
			return true
		}
		if bytes.Compare(a, b) > 0 {
			w.Flush()
			env.Errorf("comm", "file %d is not in sorted order", i+1)
			warned[i] = true
			if check == 1 {
				return false
			}
		}
		return true
	}
	read(0)
	read(1)
	for n := 0; (have[0] || have[1]) && readErr == nil; n++ {
		if n&1023 == 0 && env.Canceled() {
			return 1
		}
		var order int
		switch {
		case !have[0]:
			order = 1
		case !have[1]:
			order = -1
		default:
			order = bytes.Compare(cur[0], cur[1])
		}
		if order == 0 {
			write(cur[1], 3)
		} else {
			unpairable = true
			if order < 0 {
				write(cur[0], 1)
			} else {
				write(cur[1], 2)
			}
		}
		for i := 0; i < 2; i++ {
			if i == 1 && order < 0 || i == 0 && order > 0 {
				continue
			}
			prev2[i], havePrev2[i] = prev[i], havePrev[i]
			prev[i], havePrev[i] = cur[i], true
			read(i)
			if have[i] {
				if !checkOrder(prev[i], cur[i], i) {
					return 1
				}
			} else if havePrev2[i] {
				if !checkOrder(prev2[i], prev[i], i) {
					return 1
				}
			}
		}
	}
	if readErr != nil {
		w.Flush()
		if !isCanceled(env, readErr) {
			env.PathError("comm", quotef(env, errName), readErr)
		}
		return 1
	}
	if total {
		fmt.Fprintf(w, "%d%s%d%s%d%s%s%c", counts[1], delim, counts[2], delim, counts[3], delim, "total", eol)
	}
	if warned[0] || warned[1] {
		w.Flush()
		env.Errorf("comm", "input is not in sorted order")
		return 1
	}
	return 0
}

package cmds

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

func init() { Register("uniq", Uniq) }

// Uniq filters adjacent matching lines of INPUT (or stdin) to OUTPUT (or
// stdout), as GNU uniq: -c counts, -d only repeated lines, -D all repeated
// lines, -u only unique lines, -i ignores case, -f N skips fields, -s N skips
// characters, -w N compares at most N characters, -z NUL-terminated lines.
// It streams, holding two lines.
func Uniq(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "uniq", args[1:], optSpec{shorts: "cdDuif:s:w:z",
		longs: []string{"count", "repeated", "all-repeated=?", "unique", "ignore-case", "skip-fields=",
			"skip-chars=", "check-chars=", "zero-terminated", "group=?"}})
	if !ok {
		return 1
	}
	var count, repeated, all, uniqOnly, icase bool
	var skipF, skipC int
	checkC := -1
	delim := byte('\n')
	num := func(v, what string) (int, bool) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			env.Errorf("uniq", "%s: %s", v, what)
			return 0, false
		}
		return n, true
	}
	for _, o := range opts {
		switch o.name {
		case "c", "count":
			count = true
		case "d", "repeated":
			repeated = true
		case "D", "all-repeated":
			all = true
		case "u", "unique":
			uniqOnly = true
		case "i", "ignore-case":
			icase = true
		case "f", "skip-fields":
			if skipF, ok = num(o.val, "invalid number of fields to skip"); !ok {
				return 1
			}
		case "s", "skip-chars":
			if skipC, ok = num(o.val, "invalid number of bytes to skip"); !ok {
				return 1
			}
		case "w", "check-chars":
			if checkC, ok = num(o.val, "invalid number of bytes to compare"); !ok {
				return 1
			}
		case "z", "zero-terminated":
			delim = 0
		case "group":
			env.Errorf("uniq", "--group is not supported in the shell backend")
			return 1
		}
	}
	if all && count {
		env.Errorf("uniq", "printing all duplicated lines and repeat counts is meaningless")
		tryHelp(env, "uniq", "")
		return 1
	}
	if len(ops) > 2 {
		tryHelp(env, "uniq", "extra operand %s", quote(env, ops[2]))
		return 1
	}
	in := "-"
	if len(ops) > 0 {
		in = ops[0]
	}
	r, err := openArg(env, in)
	if err != nil {
		env.PathError("uniq", quotef(env, in), err)
		return 1
	}
	defer r.Close()
	outBuf := heldBuffer{env: env}
	var out io.Writer = env.Stdout
	toFile := len(ops) == 2 && ops[1] != "-"
	if toFile {
		out = &outBuf
	}
	w := bufio.NewWriter(out)
	key := func(l []byte) []byte {
		l = bytes.TrimSuffix(l, []byte{delim})
		for f := 0; f < skipF; f++ {
			i := 0
			for i < len(l) && isBlank(l[i]) {
				i++
			}
			for i < len(l) && !isBlank(l[i]) {
				i++
			}
			l = l[i:]
		}
		if skipC > len(l) {
			l = nil
		} else {
			l = l[skipC:]
		}
		if checkC >= 0 && checkC < len(l) {
			l = l[:checkC]
		}
		return l
	}
	equal := func(a, b []byte) bool {
		if icase {
			return bytes.EqualFold(a, b)
		}
		return bytes.Equal(a, b)
	}
	var prev []byte
	var n int64
	emit := func() {
		if prev == nil {
			return
		}
		if repeated && n < 2 || uniqOnly && n > 1 || all {
			return
		}
		if count {
			fmt.Fprintf(w, "%7d ", n)
		}
		w.Write(bytes.TrimSuffix(prev, []byte{delim}))
		w.WriteByte(delim)
	}
	lr := newLineReader(env, r, delim)
	lr.view = true // lines are slices of the reader's buffer: prev is a copy
	var held int64 // charged for prev's buffer
	defer func() { env.Release(held) }()
	status := 0
	for line := range lr.lines() {
		if prev != nil && equal(key(prev), key(line)) {
			n++
			if all {
				if n == 2 {
					w.Write(bytes.TrimSuffix(prev, []byte{delim}))
					w.WriteByte(delim)
				}
				w.Write(bytes.TrimSuffix(line, []byte{delim}))
				w.WriteByte(delim)
			}
			continue
		}
		emit()
		// The line kept, copied into prev's buffer (grown and charged as
		// needed; the reader's charge for a long line ends at the next).
		if len(line) > cap(prev) {
			c := max(int64(len(line)), 2*int64(cap(prev)))
			if env.Hold(c) != nil {
				return 1
			}
			env.Release(held)
			held = c
			prev = make([]byte, 0, c)
		}
		prev, n = append(prev[:0], line...), 1
	}
	if err := lr.err; err != nil {
		w.Flush()
		if !isCanceled(env, err) {
			env.Errorf("uniq", "error reading %s", quoteaf(env, in))
		}
		status = 1
	}
	if status == 0 {
		emit()
	}
	w.Flush()
	if toFile {
		if err := env.FS.WriteFile(env.Ctx, env.Abs(ops[1]), outBuf.Bytes(), 0o644); err != nil {
			env.PathError("uniq", quotef(env, ops[1]), err)
			return 1
		}
	}
	return status
}

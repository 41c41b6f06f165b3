package cmds

import (
	"bufio"
	"encoding/base64"
	"io"
	"strconv"
)

func init() { Register("base64", Base64) }

// Base64 encodes FILE (or stdin) to base64 on stdout, as GNU base64: lines
// wrapped at 76 columns, -w N to change (0: no wrapping); -d decodes,
// ignoring newlines (and with -i every character outside the alphabet),
// accepting padding between blocks as GNU does, and stopping with "invalid
// input" (status 1) after writing what decoded. Streams both ways.
func Base64(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "base64", args[1:], optSpec{shorts: "diw:",
		longs: []string{"decode", "ignore-garbage", "wrap="}})
	if !ok {
		return 1
	}
	var decode, garbage bool
	wrap := 76
	for _, o := range opts {
		switch o.name {
		case "d", "decode":
			decode = true
		case "i", "ignore-garbage":
			garbage = true
		case "w", "wrap":
			n, err := strconv.ParseUint(o.val, 10, 63)
			if err != nil {
				env.Errorf("base64", "invalid wrap size: %s", quote(env, o.val))
				return 1
			}
			wrap = int(min(n, 1<<40))
		}
	}
	if len(ops) > 1 {
		tryHelp(env, "base64", "extra operand %s", quote(env, ops[1]))
		return 1
	}
	name := "-"
	if len(ops) == 1 {
		name = ops[0]
	}
	r, err := openArg(env, name)
	if err != nil {
		env.PathError("base64", quotef(env, name), err)
		return 1
	}
	defer r.Close()
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	var rerr error
	if decode {
		var bad bool
		bad, rerr = base64Decode(r, w, garbage)
		if bad {
			w.Flush()
			env.Errorf("base64", "invalid input")
			return 1
		}
	} else {
		rerr = base64Encode(r, w, wrap)
	}
	if rerr != nil {
		w.Flush()
		if !isCanceled(env, rerr) {
			env.Errorf("base64", "read error: %s", Strerror(rerr))
		}
		return 1
	}
	return 0
}

func base64Encode(r io.Reader, w *bufio.Writer, wrap int) error {
	buf := make([]byte, 3*8192)
	enc := make([]byte, 4*8192)
	col := 0
	put := func(s []byte) {
		if wrap == 0 {
			w.Write(s)
			return
		}
		for len(s) > 0 {
			n := min(wrap-col, len(s))
			w.Write(s[:n])
			s = s[n:]
			col += n
			if col == wrap {
				w.WriteByte('\n')
				col = 0
			}
		}
	}
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			m := base64.StdEncoding.EncodedLen(n)
			base64.StdEncoding.Encode(enc, buf[:n])
			put(enc[:m])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if col > 0 {
				w.WriteByte('\n')
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// base64Decode decodes r to w; bad reports invalid input.
func base64Decode(r io.Reader, w *bufio.Writer, garbage bool) (bad bool, err error) {
	br := bufio.NewReaderSize(r, 32<<10)
	var q [4]byte
	n := 0
	out := make([]byte, 3)
	flush := func() bool { // decode a partial or padded quantum; false if invalid
		if n == 0 {
			return true
		}
		s := string(q[:n])
		for len(s) < 4 {
			s += "="
		}
		k, derr := base64.StdEncoding.Decode(out, []byte(s))
		w.Write(out[:k])
		n = 0
		return derr == nil && len(s) == 4
	}
	for {
		c, rerr := br.ReadByte()
		if rerr == io.EOF {
			if n == 0 {
				return false, nil
			}
			full := n == 4
			ok := flush()
			return !(ok && full), nil
		}
		if rerr != nil {
			return false, rerr
		}
		if c == '\n' {
			continue
		}
		valid := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
		if !valid {
			if garbage {
				continue
			}
			flush()
			return true, nil
		}
		if c == '=' && n < 2 {
			if garbage {
				continue
			}
			flush()
			return true, nil
		}
		if n >= 2 && q[n-1] == '=' && c != '=' {
			flush()
			return true, nil
		}
		q[n] = c
		n++
		if n == 4 {
			if !flush() {
				return true, nil
			}
		}
	}
}

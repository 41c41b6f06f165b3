package cmds

import (
	"bufio"
	"encoding/base32"
	"encoding/base64"
	"io"
	"strconv"
)

func init() {
	Register("base64", Base64)
	Register("base32", Base32)
}

// baseCodec is one alphabet of the base64 engine: the encoding, how many
// bytes make a block and how many characters encode it, and which
// characters belong to the alphabet (padding included).
type baseCodec struct {
	enc interface {
		EncodedLen(int) int
		Encode(dst, src []byte)
		Decode(dst, src []byte) (int, error)
	}
	block, quantum int
	valid          func(c byte) bool
	// partial: on invalid input the quantum read so far is decoded and
	// written before the error (GNU base64); without it nothing of it is
	// (GNU base32).
	partial bool
}

var (
	codecBase64 = baseCodec{enc: base64.StdEncoding, block: 3, quantum: 4, partial: true, valid: func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
	}}
	codecBase32 = baseCodec{enc: base32.StdEncoding, block: 5, quantum: 8, valid: func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= '2' && c <= '7' || c == '='
	}}
)

// Base32 is Base64 with RFC 4648's base32 alphabet, as GNU base32.
func Base32(env *Env, args []string) int { return baseRun(env, "base32", codecBase32, args) }

// Base64 encodes FILE (or stdin) to base64 on stdout, as GNU base64: lines
// wrapped at 76 columns, -w N to change (0: no wrapping); -d decodes,
// ignoring newlines (and with -i every character outside the alphabet),
// accepting padding between blocks as GNU does, and stopping with "invalid
// input" (status 1) after writing what decoded. Streams both ways.
func Base64(env *Env, args []string) int { return baseRun(env, "base64", codecBase64, args) }

// baseRun is base64 and base32: name is the command, codec its alphabet.
func baseRun(env *Env, name string, codec baseCodec, args []string) int {
	opts, ops, ok := parseOpts(env, name, args[1:], optSpec{shorts: "diw:",
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
				env.Errorf(name, "invalid wrap size: %s", quote(env, o.val))
				return 1
			}
			wrap = int(min(n, 1<<40))
		}
	}
	if len(ops) > 1 {
		tryHelp(env, name, "extra operand %s", quote(env, ops[1]))
		return 1
	}
	file := "-"
	if len(ops) == 1 {
		file = ops[0]
	}
	r, err := openArg(env, file)
	if err != nil {
		env.PathError(name, quotef(env, file), err)
		return 1
	}
	defer r.Close()
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	var rerr error
	if decode {
		var bad bool
		bad, rerr = baseDecode(codec, r, w, garbage)
		if bad {
			w.Flush()
			env.Errorf(name, "invalid input")
			return 1
		}
	} else {
		rerr = baseEncode(codec, r, w, wrap)
	}
	if rerr != nil {
		w.Flush()
		if !isCanceled(env, rerr) {
			env.Errorf(name, "read error: %s", Strerror(rerr))
		}
		return 1
	}
	return 0
}

func baseEncode(codec baseCodec, r io.Reader, w *bufio.Writer, wrap int) error {
	buf := make([]byte, codec.block*8192)
	enc := make([]byte, codec.quantum*8192)
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
			m := codec.enc.EncodedLen(n)
			codec.enc.Encode(enc, buf[:n])
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

// baseDecode decodes r to w; bad reports invalid input.
func baseDecode(codec baseCodec, r io.Reader, w *bufio.Writer, garbage bool) (bad bool, err error) {
	br := bufio.NewReaderSize(r, 32<<10)
	var q [8]byte
	n := 0
	out := make([]byte, codec.block)
	flush := func() bool { // decode a partial or padded quantum; false if invalid
		if n == 0 {
			return true
		}
		s := string(q[:n])
		for len(s) < codec.quantum {
			s += "="
		}
		k, derr := codec.enc.Decode(out, []byte(s))
		w.Write(out[:k])
		full := len(s) == codec.quantum
		n = 0
		return derr == nil && full
	}
	for {
		c, rerr := br.ReadByte()
		if rerr == io.EOF {
			if n == 0 {
				return false, nil
			}
			full := n == codec.quantum
			if !full && !codec.partial {
				return true, nil // nothing of a short last quantum
			}
			ok := flush()
			return !(ok && full), nil
		}
		if rerr != nil {
			return false, rerr
		}
		if c == '\n' {
			continue
		}
		if !codec.valid(c) {
			if garbage {
				continue
			}
			if codec.partial {
				flush()
			}
			return true, nil
		}
		if c == '=' && n < 2 { // -i ignores no '=', as GNU
			if codec.partial {
				flush()
			}
			return true, nil
		}
		if n >= 2 && q[n-1] == '=' && c != '=' {
			flush()
			return true, nil
		}
		q[n] = c
		n++
		if n == codec.quantum {
			if !flush() {
				return true, nil
			}
		}
	}
}

package cmds

import (
	"bufio"
	"io"
	"unicode/utf8"
)

func init() { Register("rev", Rev) }

// Rev reverses the characters of each line of the files (or stdin), as
// util-linux rev in a UTF-8 locale; bytes that are not UTF-8 are kept as
// single characters. As in util-linux, "-" is a file name, not stdin.
// Streams line by line.
func Rev(env *Env, args []string) int {
	_, files, ok := parseOpts(env, "rev", args[1:], optSpec{})
	if !ok {
		return 1
	}
	stdin := len(files) == 0
	if stdin {
		files = []string{""}
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	status := 0
	for _, name := range files {
		var r io.ReadCloser
		var err error
		if stdin {
			r, name = nopCloser{ctxReader{env, env.Stdin}}, "stdin"
		} else if name == "-" {
			// util-linux rev takes "-" as a file name.
			r, err = openArg(env, "./-")
		} else {
			r, err = openArg(env, name)
		}
		if err != nil {
			w.Flush()
			env.Errorf("rev", "cannot open %s: %s", name, Strerror(err))
			status = 1
			continue
		}
		lr := newLineReader(env, r, '\n')
		for line := range lr.lines() {
			nl := len(line) > 0 && line[len(line)-1] == '\n'
			if nl {
				line = line[:len(line)-1]
			}
			w.Write(reverseRunes(line))
			if nl {
				w.WriteByte('\n')
			}
		}
		if err := lr.err; err != nil {
			w.Flush()
			if !isCanceled(env, err) {
				env.Errorf("rev", "%s: %s", name, Strerror(err))
			}
			status = 1
		}
		r.Close()
	}
	return status
}

// reverseRunes reverses b by UTF-8 characters.
func reverseRunes(b []byte) []byte {
	out := make([]byte, len(b))
	j := len(b)
	for len(b) > 0 {
		_, size := utf8.DecodeRune(b)
		j -= size
		copy(out[j:], b[:size])
		b = b[size:]
	}
	return out
}

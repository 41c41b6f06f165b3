package cmds

import (
	"bufio"
	"io"
)

func init() { Register("paste", Paste) }

// Paste joins corresponding lines of the files (or stdin) with tabs, as GNU
// paste: -d LIST cycles through the delimiters in LIST (escapes \n \t \\
// and \0 for none), -s joins all lines of each file in turn instead, -z
// uses NUL as the line delimiter. "-" is stdin, and several "-" share it
// line by line. Streams.
func Paste(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "paste", args[1:], optSpec{shorts: "d:sz",
		longs: []string{"delimiters=", "serial", "zero-terminated"}})
	if !ok {
		return 1
	}
	delims := []string{"\t"}
	var serial bool
	eol := byte('\n')
	for _, o := range opts {
		switch o.name {
		case "d", "delimiters":
			d, ok := pasteDelims(o.val)
			if !ok {
				env.Errorf("paste", "delimiter list ends with an unescaped backslash: %s", o.val)
				return 1
			}
			delims = d
		case "s", "serial":
			serial = true
		case "z", "zero-terminated":
			eol = 0
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	var stdinReader *lineReader
	readers := make([]*lineReader, len(files))
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	open := func(i int) bool {
		if files[i] == "-" {
			if stdinReader == nil {
				stdinReader = newLineReader(env, ctxReader{env, env.Stdin}, eol)
			}
			readers[i] = stdinReader
			return true
		}
		r, err := openArg(env, files[i])
		if err != nil {
			env.PathError("paste", quotef(env, files[i]), err)
			return false
		}
		closers = append(closers, r)
		readers[i] = newLineReader(env, r, eol)
		return true
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	fail := func(name string, err error) int {
		w.Flush()
		if !isCanceled(env, err) {
			env.PathError("paste", quotef(env, name), err)
		}
		return 1
	}
	trim := func(line []byte) []byte {
		if len(line) > 0 && line[len(line)-1] == eol {
			return line[:len(line)-1]
		}
		return line
	}
	if serial {
		status := 0
		for i := range files {
			if !open(i) {
				status = 1
				continue
			}
			n := 0
			for {
				line, err := readers[i].next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return fail(files[i], err)
				}
				if n > 0 {
					w.WriteString(delims[(n-1)%len(delims)])
				}
				w.Write(trim(line))
				n++
			}
			w.WriteByte(eol)
		}
		return status
	}
	for i := range files {
		if !open(i) {
			return 1
		}
	}
	done := make([]bool, len(files))
	for {
		if env.Canceled() {
			return 1
		}
		any := false
		var row []byte
		for i := range files {
			if !done[i] {
				line, err := readers[i].next()
				if err == io.EOF {
					done[i] = true
				} else if err != nil {
					return fail(files[i], err)
				} else {
					any = true
					row = append(row, trim(line)...)
				}
			}
			if i < len(files)-1 {
				row = append(row, delims[i%len(delims)]...)
			}
		}
		if !any {
			return 0
		}
		w.Write(row)
		w.WriteByte(eol)
	}
}

// pasteDelims parses a -d list: each character (or escape) is one
// delimiter; \0 is the empty delimiter.
func pasteDelims(s string) ([]string, bool) {
	var out []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			// Keep UTF-8 sequences whole.
			j := i + 1
			for j < len(s) && s[j]&0xC0 == 0x80 {
				j++
			}
			out = append(out, s[i:j])
			i = j - 1
			continue
		}
		if i+1 >= len(s) {
			return nil, false
		}
		i++
		switch s[i] {
		case 'n':
			out = append(out, "\n")
		case 't':
			out = append(out, "\t")
		case '0':
			out = append(out, "")
		case 'b':
			out = append(out, "\b")
		case 'f':
			out = append(out, "\f")
		case 'r':
			out = append(out, "\r")
		case 'v':
			out = append(out, "\v")
		default:
			out = append(out, s[i:i+1])
		}
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out, true
}

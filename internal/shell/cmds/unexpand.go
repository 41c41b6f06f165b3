package cmds

import (
	"bufio"
	"io"
)

func init() { Register("unexpand", Unexpand) }

// Unexpand converts blanks to tabs, as GNU unexpand (whose algorithm this
// follows): by default only leading blanks, -a all runs of two or more
// blanks that end on a tab stop, -t N or -t LIST tab stops (implying -a),
// --first-only to convert leading blanks only even with -t. Past the last
// explicit stop nothing more is converted on the line. Files are read as
// one stream, as GNU does. Streams.
func Unexpand(env *Env, args []string) int {
	opts, files, ok := parseOpts(env, "unexpand", tabArgs(args[1:]), optSpec{shorts: "at:",
		longs: []string{"all", "tabs=", "first-only"}})
	if !ok {
		return 1
	}
	var specs []string
	all, firstOnly := false, false
	for _, o := range opts {
		switch o.name {
		case "a", "all":
			all = true
		case "t", "tabs":
			all = true
			specs = append(specs, o.val)
		case "first-only":
			firstOnly = true
		}
	}
	if firstOnly {
		all = false
	}
	ts, ok := parseTabStops(env, "unexpand", specs)
	if !ok {
		return 1
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	status := 0
	in := &multiFileReader{env: env, cmd: "unexpand", files: files, status: &status}
	br := bufio.NewReaderSize(in, 32<<10)
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	var pendingBlank []byte
	for {
		convert := true
		column, nextTab := 0, 0
		oneBlankBeforeStop := false
		prevBlank := true
		pending := 0
		for {
			c, err := br.ReadByte()
			eof := err != nil
			if convert {
				blank := !eof && (c == ' ' || c == '\t')
				if blank {
					if nextTab <= column {
						nextTab = ts.next(column)
						if nextTab < 0 {
							convert = false
						}
					}
					if convert {
						if c == '\t' {
							column = nextTab
							if pending > 0 {
								pendingBlank[0] = '\t'
							}
						} else {
							column++
							if !(prevBlank && column == nextTab) {
								if column == nextTab {
									oneBlankBeforeStop = true
								}
								if pending < len(pendingBlank) {
									pendingBlank[pending] = c
								} else {
									pendingBlank = append(pendingBlank, c)
								}
								pending++
								prevBlank = true
								continue
							}
							c = '\t'
							if pending > 0 {
								pendingBlank[0] = '\t'
							}
						}
						pending = 0
						if oneBlankBeforeStop {
							pending = 1
						}
					}
				} else if !eof && c == '\b' {
					if column > 0 {
						column--
					}
					nextTab = column
				} else {
					column++
				}
				if pending > 0 {
					if pending > 1 && oneBlankBeforeStop {
						pendingBlank[0] = '\t'
					}
					w.Write(pendingBlank[:pending])
					pending = 0
					oneBlankBeforeStop = false
				}
				prevBlank = blank
				convert = convert && (all || blank)
			}
			if eof {
				if err != io.EOF && !isCanceled(env, err) {
					w.Flush()
					env.Errorf("unexpand", "read error: %s", Strerror(err))
					status = 1
				} else if isCanceled(env, err) {
					status = 1
				}
				return status
			}
			w.WriteByte(c)
			if c == '\n' {
				break
			}
		}
	}
}

// multiFileReader reads the files one after another as one stream ("-" is
// stdin), reporting a file that cannot be opened ("cmd: name: error") and
// going on, as GNU expand and unexpand do.
type multiFileReader struct {
	env    *Env
	cmd    string
	files  []string
	cur    io.ReadCloser
	name   string
	status *int
}

func (m *multiFileReader) Read(p []byte) (int, error) {
	for {
		if m.cur == nil {
			if len(m.files) == 0 {
				return 0, io.EOF
			}
			m.name, m.files = m.files[0], m.files[1:]
			r, err := openArg(m.env, m.name)
			if err != nil {
				m.env.PathError(m.cmd, quotef(m.env, m.name), err)
				*m.status = 1
				continue
			}
			m.cur = r
		}
		n, err := m.cur.Read(p)
		if err == io.EOF {
			m.cur.Close()
			m.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil && !isCanceled(m.env, err) {
			m.env.PathError(m.cmd, quotef(m.env, m.name), err)
			*m.status = 1
			m.cur.Close()
			m.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

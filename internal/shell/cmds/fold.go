package cmds

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
)

func init() { Register("fold", Fold) }

var foldObsolete = regexp.MustCompile(`^-[0-9]+$`)

// Fold wraps input lines at 80 columns (-w N), as GNU fold: columns are
// counted per byte as upstream coreutils does (no multibyte support), a tab
// advances to the next multiple of 8, backspace steps back and carriage
// return goes to column 0; -b counts every byte as one column; -s breaks
// after the last blank that fits. Streams.
func Fold(env *Env, args []string) int {
	rest := append([]string(nil), args[1:]...)
	for i, a := range rest {
		if a == "--" {
			break
		}
		if foldObsolete.MatchString(a) {
			rest[i] = "-w" + a[1:]
		}
	}
	opts, files, ok := parseOpts(env, "fold", rest, optSpec{shorts: "bsw:",
		longs: []string{"bytes", "spaces", "width="}})
	if !ok {
		return 1
	}
	width := 80
	var countBytes, breakSpaces bool
	for _, o := range opts {
		switch o.name {
		case "b", "bytes":
			countBytes = true
		case "s", "spaces":
			breakSpaces = true
		case "w", "width":
			n, err := strconv.ParseUint(o.val, 10, 63)
			if err != nil {
				env.Errorf("fold", "invalid number of columns: %s", quote(env, o.val))
				return 1
			}
			if n == 0 {
				env.Errorf("fold", "invalid number of columns: %s: Numerical result out of range", quote(env, o.val))
				return 1
			}
			width = int(min(n, 1<<40))
		}
	}
	adjust := func(col int, c byte) int {
		if countBytes {
			return col + 1
		}
		switch c {
		case '\b':
			if col > 0 {
				return col - 1
			}
			return 0
		case '\r':
			return 0
		case '\t':
			return col + 8 - col%8
		}
		return col + 1
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	return eachInput(env, "fold", w, files, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 32<<10)
		var line []byte
		col := 0
		var rerr error
		for n := 0; ; n++ {
			c, err := br.ReadByte()
			if err != nil {
				if err != io.EOF {
					rerr = err
				}
				break
			}
			if c == '\n' {
				w.Write(line)
				w.WriteByte('\n')
				line, col = line[:0], 0
				continue
			}
		rescan:
			col = adjust(col, c)
			if col > width {
				if breakSpaces {
					end := -1
					for i := len(line) - 1; i >= 0; i-- {
						if line[i] == ' ' || line[i] == '\t' {
							end = i + 1
							break
						}
					}
					if end > 0 {
						w.Write(line[:end])
						w.WriteByte('\n')
						line = append(line[:0], line[end:]...)
						col = 0
						for _, b := range line {
							col = adjust(col, b)
						}
						goto rescan
					}
				}
				if len(line) == 0 {
					line = append(line, c)
					continue
				}
				w.Write(line)
				w.WriteByte('\n')
				line, col = line[:0], 0
				goto rescan
			}
			line = append(line, c)
		}
		w.Write(line)
		return rerr
	})
}

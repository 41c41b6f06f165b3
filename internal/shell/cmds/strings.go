package cmds

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
)

func init() { Register("strings", Strings) }

// Strings is GNU binutils' strings: it prints the runs of at least 4 (-n N,
// --bytes=N, -N) printable characters (ASCII graphic, space and tab) found
// in each file or stdin, scanning the whole file (-a, the default; -d is
// taken as -a). -t d|o|x (--radix, -o for octal) prefixes each string with
// its offset, -f with the file name, -w counts all whitespace as printable,
// -s SEP separates strings instead of a newline, -e s (7-bit, the default)
// or S (8-bit: bytes above 127 count as printable). 16- and 32-bit
// encodings (-e b l B L) and --unicode are not supported.
func Strings(env *Env, args []string) int {
	rest := args[1:]
	var pre []opt
	if len(rest) > 0 && len(rest[0]) > 1 && rest[0][0] == '-' && strings.Trim(rest[0][1:], "0123456789") == "" {
		pre = append(pre, opt{"n", rest[0][1:]})
		rest = rest[1:]
	}
	opts, files, ok := parseOpts(env, "strings", rest, optSpec{
		shorts: "adfn:t:owe:s:T:",
		longs:  []string{"all", "data", "print-file-name", "bytes=", "radix=", "include-all-whitespace", "encoding=", "output-separator=", "target="},
	})
	if !ok {
		return 1
	}
	min, radix, sep := 4, byte(0), "\n"
	names, allWS, eight := false, false, false
	for _, o := range append(pre, opts...) {
		switch o.name {
		case "n", "bytes":
			n, err := strconv.Atoi(o.val)
			if err != nil || n < 1 {
				env.Errorf("strings", "invalid minimum string length %s", o.val)
				return 1
			}
			min = n
		case "t", "radix":
			if o.val != "d" && o.val != "o" && o.val != "x" {
				env.Errorf("strings", "invalid radix")
				return 1
			}
			radix = o.val[0]
		case "o":
			radix = 'o'
		case "f", "print-file-name":
			names = true
		case "w", "include-all-whitespace":
			allWS = true
		case "s", "output-separator":
			sep = o.val
		case "e", "encoding":
			switch o.val {
			case "s":
				eight = false
			case "S":
				eight = true
			default:
				env.Errorf("strings", "encoding %s is not supported in the shell backend", o.val)
				return 1
			}
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	status := 0
	for _, name := range files {
		if env.Canceled() {
			return 1
		}
		if name != "-" {
			fi, err := env.FS.Stat(env.Ctx, env.Abs(name))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					env.Errorf("strings", "'%s': No such file", name)
				} else {
					env.Errorf("strings", "%s: %s", name, Strerror(err))
				}
				status = 1
				continue
			}
			if fi.IsDir() {
				env.Errorf("strings", "Warning: '%s' is a directory", name)
				status = 1
				continue
			}
		}
		r, err := openArg(env, name)
		if err != nil {
			env.Errorf("strings", "%s: %s", name, Strerror(err))
			status = 1
			continue
		}
		prefix := ""
		if names {
			prefix = name + ": "
			if name == "-" {
				prefix = "{standard input}: "
			}
		}
		err = stringsScan(bufio.NewReaderSize(r, 64<<10), w, min, radix, sep, prefix, allWS, eight)
		r.Close()
		if err != nil && !isCanceled(env, err) {
			env.Errorf("strings", "%s: %s", name, Strerror(err))
			status = 1
		} else if err != nil {
			return 1
		}
	}
	return status
}

// stringsScan copies the printable runs of r to w.
func stringsScan(r *bufio.Reader, w *bufio.Writer, min int, radix byte, sep, prefix string, allWS, eight bool) error {
	var run []byte
	var start, off int64
	flush := func() {
		if len(run) >= min {
			w.WriteString(prefix)
			switch radix {
			case 'd':
				fmt.Fprintf(w, "%7d ", start)
			case 'o':
				fmt.Fprintf(w, "%7o ", start)
			case 'x':
				fmt.Fprintf(w, "%7x ", start)
			}
			w.Write(run)
			w.WriteString(sep)
		}
		run = run[:0]
	}
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			flush()
			return nil
		}
		if err != nil {
			return err
		}
		printable := c >= 0x20 && c < 0x7f || c == '\t' || eight && c >= 0x80 ||
			allWS && (c == '\n' || c == '\r' || c == '\v' || c == '\f')
		if printable {
			if len(run) == 0 {
				start = off
			}
			run = append(run, c)
		} else {
			flush()
		}
		off++
	}
}

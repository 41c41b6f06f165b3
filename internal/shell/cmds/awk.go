package cmds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/benhoyt/goawk/interp"
	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

func init() { Register("awk", Awk) }

const awkUsage = "usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]"

// awkArgVar is how awk (and goawk) recognise a "var=value" operand.
var awkArgVar = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*=`)

// awkFilenameFunc is the Go function the injected action calls to learn the
// name of the workspace file being read (see Awk).
const awkFilenameFunc = "__desk_awk_filename"

// Awk runs an awk program with GoAWK (github.com/benhoyt/goawk): awk
// [-F fs] [-v var=value] [-f progfile | 'prog'] [file | var=value ...].
//
// Nothing touches the host. GoAWK runs with NoExec, NoFileReads and
// NoFileWrites, so system(), "cmd" | getline, print | "cmd", getline < file
// and print > file fail with a clear message (exit 2); "-" still means
// standard output / input. GoAWK would open file operands itself, on the host,
// so instead every file operand is passed to it as "-" and its standard input
// is a reader that serves the workspace files one after another, each ending
// with its own EOF (so NR, FNR and var=value operands between files behave as
// in awk). An action prepended to the program sets FILENAME from that reader
// at the first record of each file; only a program whose text names FILENAME
// gets it, since its test of FNR runs at every record (a fifth of the CPU of
// `awk '{n+=length($0)}'` over 100,000 lines). -f files are read through the workspace.
// ENVIRON is the shell's exported environment. length, substr, index,
// match and printf's %c count characters in a UTF-8 locale and bytes in
// the C locale, as gawk does. Execution stops when Env.Ctx is cancelled.
func Awk(env *Env, args []string) int {
	var (
		fs       string
		haveFS   bool
		vars     []string
		progs    []string
		havePath bool
	)
	rest := args[1:]
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if a == "--version" || a == "-version" {
			fmt.Fprintln(env.Stdout, "awk (GoAWK v1.31.0, desk shell backend)")
			return 0
		}
		c := a[1]
		val := a[2:]
		switch c {
		case 'F', 'v', 'f':
			if val == "" {
				if i+1 >= len(rest) {
					fmt.Fprintf(env.Stderr, "awk: option requires an argument -- '%c'\n%s\n", c, awkUsage)
					return 2
				}
				i++
				val = rest[i]
			}
		default:
			fmt.Fprintf(env.Stderr, "awk: invalid option -- '%c'\n%s\n", c, awkUsage)
			return 2
		}
		switch c {
		case 'F':
			fs, haveFS = val, true
		case 'v':
			name, v, ok := strings.Cut(val, "=")
			if !ok || !awkArgVar.MatchString(val) {
				fmt.Fprintf(env.Stderr, "awk: improper assignment: -v %s\n", val)
				return 2
			}
			if u, err := lexer.Unescape(v); err == nil {
				v = u
			}
			vars = append(vars, name, v)
		case 'f':
			havePath = true
			var b []byte
			var err error
			if val == "-" {
				b, err = readAllLimited(env, ctxReader{env, env.Stdin})
			} else {
				b, err = readArgLimited(env, val)
			}
			if err != nil {
				fmt.Fprintf(env.Stderr, "awk: couldn't open file %s: %s\n", val, Strerror(err))
				return 2
			}
			progs = append(progs, string(b))
		}
	}
	operands := rest[i:]
	if !havePath {
		if len(operands) == 0 {
			fmt.Fprintln(env.Stderr, awkUsage)
			return 2
		}
		progs = append(progs, operands[0])
		operands = operands[1:]
	}
	src := strings.Join(progs, "\n")
	if haveFS {
		if fs == "t" {
			fs = "\t"
		} else if u, err := lexer.Unescape(fs); err == nil {
			fs = u
		}
		vars = append([]string{"FS", fs}, vars...)
	}

	// Parse the program as written first, so errors point at the user's text.
	funcs := map[string]any{}
	prog, err := parser.ParseProgram([]byte(src), &parser.ParserConfig{Funcs: funcs})
	if err != nil {
		awkParseError(env, src, err)
		return 2
	}

	// Input: file operands become "-" reading from the workspace multiplexer.
	in := &awkInputs{env: env}
	argv := make([]string, len(operands))
	for k, op := range operands {
		switch {
		case awkArgVar.MatchString(op), op == "":
			argv[k] = op
		default:
			argv[k] = "-"
			in.names = append(in.names, op)
		}
	}
	var stdin io.Reader = ctxReader{env, env.Stdin}
	if len(in.names) > 0 {
		stdin = in
		named := false
		for _, n := range in.names {
			named = named || n != "-"
		}
		// Only a program that names FILENAME can see it: the others are
		// spared the injected action's test of every record.
		if named && (len(prog.Actions) > 0 || len(prog.End) > 0) && strings.Contains(src, "FILENAME") {
			funcs[awkFilenameFunc] = func() string { return in.current }
			inj := "FNR==1{FILENAME=" + awkFilenameFunc + "()}\n" + src
			if p2, err := parser.ParseProgram([]byte(inj), &parser.ParserConfig{Funcs: funcs}); err == nil {
				prog = p2
			} else {
				delete(funcs, awkFilenameFunc)
			}
		}
	}

	var environ []string
	if env.Environ != nil {
		for _, kv := range env.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok {
				environ = append(environ, k, v)
			}
		}
	}
	if environ == nil {
		environ = []string{}
	}

	out := bufio.NewWriterSize(env.Stdout, 32<<10)
	cfg := &interp.Config{
		Stdin:        stdin,
		Output:       out,
		Error:        env.Stderr,
		Argv0:        "awk",
		Args:         argv,
		Vars:         vars,
		Funcs:        funcs,
		NoExec:       true,
		NoFileWrites: true,
		NoFileReads:  true,
		ShellCommand: []string{"/nonexistent/desk-awk-no-exec"},
		Environ:      environ,
		// Characters in a UTF-8 locale, bytes in the C locale, as gawk
		// counts them in length, substr, index, match and %c (in the C
		// locale GoAWK's byte mode also costs half the CPU).
		Chars: utf8Locale(env),
	}
	it, err := interp.New(prog)
	if err != nil {
		out.Flush()
		fmt.Fprintf(env.Stderr, "awk: %s\n", err)
		return 2
	}
	status, err := it.ExecuteContext(env.Ctx, cfg)
	out.Flush()
	if env.Canceled() {
		return 1
	}
	if in.err != nil {
		fmt.Fprintf(env.Stderr, "awk: cannot open %s (%s)\n", in.errName, Strerror(in.err))
		return 2
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "awk: %s\n", awkRuntimeMessage(err))
		return 2
	}
	return status
}

// awkRuntimeMessage rewords GoAWK's sandbox refusals for the shell backend.
func awkRuntimeMessage(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "due to NoFileReads"):
		return "reading files with getline is not supported in the shell backend (pass files as operands)"
	case strings.Contains(msg, "due to NoFileWrites"):
		return "output redirection to files (> and >>) is not supported in the shell backend (redirect the shell command's output instead)"
	case strings.Contains(msg, "due to NoExec"):
		return "running commands (system(), \"cmd\" | getline, print | \"cmd\") is not supported in the shell backend"
	}
	if errors.Is(err, ErrTooLarge) {
		return ErrTooLarge.Error()
	}
	return msg
}

// awkParseError prints a syntax error as GoAWK's command does, prefixed
// "awk: ", with the offending line and a caret.
func awkParseError(env *Env, src string, err error) {
	var pe *parser.ParseError
	if !errors.As(err, &pe) {
		fmt.Fprintf(env.Stderr, "awk: %s\n", err)
		return
	}
	fmt.Fprintf(env.Stderr, "awk: syntax error at %d:%d: %s\n", pe.Position.Line, pe.Position.Column, pe.Message)
	lines := bytes.Split([]byte(src), []byte{'\n'})
	if pe.Position.Line < 1 || pe.Position.Line > len(lines) {
		return
	}
	line := string(lines[pe.Position.Line-1])
	col := pe.Position.Column - 1
	if col < 0 {
		col = 0
	}
	if col > len(line) {
		col = len(line)
	}
	tabs := strings.Count(line[:col], "\t")
	fmt.Fprintln(env.Stderr, strings.ReplaceAll(line, "\t", "    "))
	fmt.Fprintln(env.Stderr, strings.Repeat(" ", utf8.RuneCountInString(line[:col]))+strings.Repeat("   ", tabs)+"^")
}

// awkInputs serves the file operands (workspace files, or "-" for stdin) one
// after another; each ends with io.EOF, and the next read opens the next one.
type awkInputs struct {
	env     *Env
	names   []string
	next    int
	cur     io.ReadCloser
	current string // name of the operand being read (FILENAME)
	err     error  // an operand that could not be opened
	errName string
}

func (a *awkInputs) Read(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	if a.cur == nil {
		if a.next >= len(a.names) {
			return 0, io.EOF
		}
		name := a.names[a.next]
		a.next++
		r, err := openArg(a.env, name)
		if err != nil {
			a.err, a.errName = err, name
			return 0, err
		}
		a.cur, a.current = r, name
	}
	n, err := a.cur.Read(p)
	if err == io.EOF {
		a.cur.Close()
		a.cur = nil
	}
	return n, err
}

package shell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// The builtins the call handler runs or rewrites because the interpreter's
// would hold memory no handler sees: read (a line of any length), mapfile
// (its whole input), trap (text parsed when the trap runs), alias (words
// spliced into commands), set (positional parameters) and printf -v.

// pathMaxBytes is the longest path an entry of the directory stack holds.
const pathMaxBytes = 4096

// flagParser parses flags as the interpreter's builtins do ("-ab" is -a
// and -b, "--" ends them).
type flagParser struct {
	current   string
	remaining []string
}

func (p *flagParser) more() bool {
	if p.current != "" {
		return true
	}
	if len(p.remaining) == 0 {
		p.remaining = nil
		return false
	}
	arg := p.remaining[0]
	if arg == "--" {
		p.remaining = p.remaining[1:]
		return false
	}
	if len(arg) == 0 || (arg[0] != '-' && arg[0] != '+') {
		return false
	}
	return true
}

func (p *flagParser) flag() string {
	arg := p.current
	if arg == "" {
		arg = p.remaining[0]
		p.remaining = p.remaining[1:]
	} else {
		p.current = ""
	}
	if len(arg) > 2 {
		p.current = arg[:1] + arg[2:]
		arg = arg[:2]
	}
	return arg
}

func (p *flagParser) value() string {
	if len(p.remaining) == 0 {
		return ""
	}
	arg := p.remaining[0]
	p.remaining = p.remaining[1:]
	return arg
}

func (p *flagParser) args() []string { return p.remaining }

// fail prints a builtin's message and returns the call that exits status.
func fail(hc interp.HandlerContext, status int, format string, args ...any) ([]string, error) {
	fmt.Fprintf(hc.Stderr, format, args...)
	return []string{statusCmd, strconv.Itoa(status)}, nil
}

// ---- read ----

// readBuiltin is the interpreter's read (flags -r, -a, -p and -s, the same
// messages), reading the line itself within MaxStringBytes, charged as it
// grows, and assigning through eval. args[0] is "read".
func (x *execution) readBuiltin(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	var prompt string
	raw, readArray := false, false
	fp := flagParser{remaining: args[1:]}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-s":
		case "-r":
			raw = true
		case "-a":
			readArray = true
		case "-p":
			prompt = fp.value()
			if prompt == "" {
				return fail(hc, 2, "read: -p: option requires an argument\n")
			}
		default:
			return fail(hc, 2, "read: invalid option %q\n", flag)
		}
	}
	names := fp.args()
	for _, name := range names {
		if !syntax.ValidName(name) {
			return fail(hc, 2, "read: invalid identifier %q\n", name)
		}
	}
	if prompt != "" {
		io.WriteString(hc.Stdout, prompt)
	}
	s := x.mem.slotOf(hc.Env)
	line, err := x.readLine(ctx, hc, s, raw)
	if x.limited() {
		return nil, context.Cause(x.ctx)
	}
	// Splitting makes runes, fields and strings; the assignment's text
	// quotes them (at most doubling), is parsed (a word per field) and
	// expanded.
	n := int64(len(line))*16 + 4096
	if readArray {
		n += int64(len(line)/2+1) * readFieldCost
	}
	if err := x.mem.charge(s, n); err != nil {
		return nil, err
	}
	cfg := &expand.Config{Env: hc.Env}
	var b strings.Builder
	switch {
	case readArray:
		name := "REPLY"
		if len(names) > 0 {
			name = names[0]
		}
		b.WriteString(name + "=(")
		for i, v := range expand.ReadFields(cfg, line, -1, raw) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(doubleQuote(v))
		}
		b.WriteString(")")
	case len(names) == 0:
		val := line
		if !raw {
			var sb strings.Builder
			esc := false
			for i := range len(val) {
				if val[i] == '\\' && !esc {
					esc = true
					continue
				}
				sb.WriteByte(val[i])
				esc = false
			}
			val = sb.String()
		}
		b.WriteString("REPLY=" + doubleQuote(val))
	default:
		values := expand.ReadFields(cfg, line, len(names), raw)
		for i, name := range names {
			val := ""
			if i < len(values) {
				val = values[i]
			}
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(name + "=" + doubleQuote(val))
		}
	}
	if err != nil {
		// Failing without tripping ERR or errexit inside the eval: the
		// read itself fails, once.
		b.WriteString("; ! :")
	}
	return []string{"eval", b.String()}, nil
}

// readFieldCost is what an element of read -a takes, from the line to the
// array: its field, its word in the assignment's text, parsed and
// expanded (measured: about 740 bytes).
const readFieldCost = 1024

// readChunk is how much a line grows between two charges.
const readChunk = 64 << 10

// readLine reads one line as the interpreter's read does: a byte at a
// time (what follows the line is left to the next reader), a backslash
// escaping a newline unless raw. A line over MaxStringBytes stops the
// execution with that limit.
func (x *execution) readLine(ctx context.Context, hc interp.HandlerContext, s *slot, raw bool) (string, error) {
	if hc.Stdin == nil {
		return "", errors.New("interp: can't read, there's no stdin")
	}
	if f, ok := hc.Stdin.(*os.File); ok {
		stopc := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			f.SetReadDeadline(time.Now())
			close(stopc)
		})
		defer func() {
			if !stop() {
				<-stopc
				f.SetReadDeadline(time.Time{})
			}
		}()
	}
	max := x.b.opts.MaxStringBytes
	var line []byte
	charged := 0
	esc := false
	var buf [1]byte
	for {
		n, err := hc.Stdin.Read(buf[:])
		if n > 0 {
			b := buf[0]
			switch {
			case !raw && b == '\\':
				line = append(line, b)
				esc = !esc
			case !raw && b == '\n' && esc:
				line = line[:len(line)-1]
				esc = false
			case b == '\n':
				return string(line), nil
			default:
				line = append(line, b)
				esc = false
			}
			if len(line) > max {
				return "", x.limit("MaxStringBytes", int64(max))
			}
			if c := cap(line); c > charged {
				// The buffer and the one it grew from.
				if err := x.mem.charge(s, int64(c-charged)*2+readChunk); err != nil {
					return "", err
				}
				charged = c + readChunk/2
			}
		}
		if err != nil {
			return string(line), err
		}
	}
}

// ---- mapfile ----

// mapfileElemCost is what an element of mapfile takes besides its text (its
// string, its slot in the list as the list grows; measured: about 90 bytes).
const mapfileElemCost = 128

// mapfileFile is the input instrument gives mapfile and readarray called
// by name: a pipe the open handler feeds from the command's stdin,
// charging what mapfile will hold as it reads (each line and a list slot),
// so its input is bounded before it is read. The rest of the path is the
// delimiter (hex), or "any" when it is computed.
const mapfileFile = "/dev/desk-mapfile/"

func (x *execution) openMapfile(ctx context.Context, name string) (io.ReadWriteCloser, error) {
	hc := interp.HandlerCtx(ctx)
	delim := -1 // any byte may end an element
	if d, err := strconv.ParseUint(name[len(mapfileFile):], 16, 8); err == nil {
		delim = int(d)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	m := x.mem
	s := m.slotOf(hc.Env)
	var r *resv
	m.mu.Lock()
	if k := len(s.stack); k > 0 {
		r = s.stack[k-1]
	}
	m.mu.Unlock()
	x.mapfiles.Store(pr, true)
	x.addPipe(pr)
	in := hc.Stdin
	x.wg.Add(1)
	go func() {
		defer x.cpu.Enter()() // its store reads are the execution's CPU
		defer x.wg.Done()
		defer pw.Close()
		if in == nil {
			return
		}
		buf := make([]byte, 32<<10)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				elems := int64(n)
				if delim >= 0 {
					elems = int64(strings.Count(string(buf[:n]), string(rune(delim)))) + 1
				}
				if m.chargeResv(s, r, int64(n)*2+elems*mapfileElemCost) != nil {
					return
				}
				if _, err := pw.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return pr, nil
}

// mapfileRedirect is <mapfileFile/DELIM for a mapfile statement whose
// flags are these words.
func mapfileRedirect(args []*syntax.Word) *syntax.Redirect {
	delim := "a" // '\n'
	for i := 0; i < len(args); i++ {
		lit := args[i].Lit()
		if lit == "" && len(args[i].Parts) > 0 {
			delim = "any"
			break
		}
		if lit == "--" || !strings.HasPrefix(lit, "-") {
			break
		}
		if strings.Contains(lit, "d") {
			if i+1 >= len(args) {
				break
			}
			v := args[i+1]
			if l := v.Lit(); l != "" || len(v.Parts) == 0 {
				if l == "" {
					delim = "0"
				} else {
					delim = strconv.FormatUint(uint64(l[0]), 16)
				}
			} else if len(v.Parts) == 1 {
				if q, ok := v.Parts[0].(*syntax.SglQuoted); ok && !q.Dollar {
					if q.Value == "" {
						delim = "0"
					} else {
						delim = strconv.FormatUint(uint64(q.Value[0]), 16)
					}
				} else {
					delim = "any"
				}
			} else {
				delim = "any"
			}
			i++
		}
	}
	return &syntax.Redirect{Op: syntax.RdrIn, Word: litWord(mapfileFile + delim)}
}

// mapfileCall reports whether st calls mapfile or readarray by name, and
// returns its arguments after the name.
func mapfileCall(st *syntax.Stmt) ([]*syntax.Word, bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return nil, false
	}
	args := c.Args
	if l := args[0].Lit(); (l == "command" || l == "builtin") && len(args) > 1 {
		args = args[1:]
	}
	switch args[0].Lit() {
	case "mapfile", "readarray":
		return args[1:], true
	}
	return nil, false
}

// ---- trap ----

// trapBuiltin instruments a trap's text (the interpreter parses it each
// time the trap runs) and charges what parsing it takes, held while the
// trap is set. Listing the traps (trap with no operand) prints the texts
// as they were given.
func (x *execution) trapBuiltin(hc interp.HandlerContext, args []string) ([]string, error) {
	fp := flagParser{remaining: args[1:]}
	for fp.more() {
		switch fp.flag() {
		case "-":
		default:
			return args, nil // the interpreter reports it
		}
	}
	rest := fp.args()
	s := x.mem.slotOf(hc.Env)
	if len(rest) == 0 {
		x.mem.mu.Lock()
		for _, sig := range []string{"EXIT", "ERR"} {
			if t, ok := s.traps[sig]; ok && t.text != "" {
				fmt.Fprintf(hc.Stdout, "trap -- %q %s\n", t.text, sig)
			}
		}
		x.mem.mu.Unlock()
		return []string{":"}, nil
	}
	if len(rest) == 1 {
		return args, nil
	}
	text := rest[0]
	if text == "-" {
		text = ""
	}
	for _, sig := range rest[1:] {
		if sig != "EXIT" && sig != "ERR" {
			return args, nil // the interpreter reports it
		}
	}
	for _, sig := range rest[1:] {
		if err := x.mem.setTrap(s, sig, text, int64(len(text))*costParse); err != nil {
			return nil, err
		}
	}
	if text == "" {
		return args, nil
	}
	src, _, err := prepareText(text, "", x.braceLimits())
	if err != nil {
		return args, nil
	}
	out := append([]string{}, args[:len(args)-len(rest)]...)
	out = append(out, src)
	return append(out, rest[1:]...), nil
}

// ---- alias ----

// aliasTable keeps the words of every alias defined (an upper bound of
// what a name may expand to: redefinitions add, unalias does not remove).
type aliasTable struct {
	mu    sync.Mutex
	words map[string][][]*syntax.Word
	seen  map[string]bool
}

func (t *aliasTable) lookup(name string) [][]*syntax.Word {
	if t == nil || name == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.words[name]
}

// aliasBuiltin records the words of alias NAME=VALUE; a value with a
// command substitution is refused (the interpreter would run it unseen).
func (x *execution) aliasBuiltin(hc interp.HandlerContext, args []string) ([]string, error) {
	out := []string{args[0]}
	status := 0
	for _, a := range args[1:] {
		name, src, ok := strings.Cut(a, "=")
		if !ok {
			out = append(out, a)
			continue
		}
		if strings.Contains(src, "$(") || strings.Contains(src, "`") || strings.Contains(src, "<(") || strings.Contains(src, ">(") {
			fmt.Fprintf(hc.Stderr, "bash: alias: %s: the shell backend does not run command substitutions in aliases\n", name)
			status = 1
			continue
		}
		var words []*syntax.Word
		bad := false
		for w, err := range syntax.NewParser().WordsSeq(strings.NewReader(src)) {
			if err != nil {
				bad = true
				break
			}
			words = append(words, newBuilder().word(w))
		}
		if !bad {
			x.fnmu.Lock()
			if x.aliases == nil {
				x.aliases = &aliasTable{words: map[string][][]*syntax.Word{}, seen: map[string]bool{}}
			}
			x.fnmu.Unlock()
			t := x.aliases
			t.mu.Lock()
			if !t.seen[a] {
				t.seen[a] = true
				t.words[name] = append(t.words[name], words)
			}
			t.mu.Unlock()
		}
		out = append(out, a)
	}
	if status != 0 && len(out) == 1 {
		return []string{statusCmd, strconv.Itoa(status)}, nil
	}
	return out, nil
}

// ---- set ----

// setBuiltin charges the positional parameters set sets (as the
// interpreter's Params parses its arguments) to the innermost scope.
func (x *execution) setBuiltin(hc interp.HandlerContext, args []string) error {
	fp := flagParser{remaining: args}
	var params []string
	set := false
	for fp.more() {
		flag := fp.flag()
		if flag == "-" || flag == "+" {
			if rest := fp.args(); len(rest) > 0 {
				params, set = rest, true
			}
			break
		}
		if len(flag) > 1 && flag[1] == 'o' {
			fp.value()
		}
	}
	if !set {
		if rest := fp.args(); rest != nil {
			params, set = rest, true
		}
	}
	if !set {
		return nil
	}
	n := int64(0)
	for _, p := range params {
		n += int64(len(p)) + sizeElem
	}
	return x.mem.setParams(x.mem.slotOf(hc.Env), n)
}

// ---- printf -v ----

// valueBuf is where printf -v writes the value: bounded by MaxStringBytes
// (and the memory budget) as it grows.
type valueBuf struct {
	b   strings.Builder
	x   *execution
	s   *slot
	max int
}

func (v *valueBuf) Write(p []byte) (int, error) {
	if err := v.Reserve(int64(len(p))); err != nil {
		return 0, err
	}
	return v.b.Write(p)
}

func (v *valueBuf) WriteString(p string) (int, error) {
	if err := v.Reserve(int64(len(p))); err != nil {
		return 0, err
	}
	return v.b.WriteString(p)
}

func (v *valueBuf) String() string { return v.b.String() }

// Reserve is called before a field that long is built.
func (v *valueBuf) Reserve(n int64) error {
	if int64(v.b.Len())+n > int64(v.max) {
		return v.x.limit("MaxStringBytes", int64(v.max))
	}
	// The builder's growth, the field built (padding), then the quoted
	// copy the assignment takes and its parse (see ownBuiltin).
	return v.x.mem.charge(v.s, n*(costJoin+printfAssignCost))
}

// printfAssignCost is, per byte of printf -v's value, what assigning it
// through eval takes: the quoted text (doubling at most), parsed and
// expanded.
const printfAssignCost = 6

package cmds

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
)

func init() { Register("jq", Jq) }

// Jq runs a jq filter with gojq (github.com/itchyny/gojq) over JSON read
// from the files (through the workspace) or stdin: jq [options] FILTER
// [FILE...], with -r -j -c -n -s -e -S -R -a, --tab, --indent N, --arg,
// --argjson, --slurpfile, --rawfile, --args, --jsonargs. Output follows jq
// 1.6: 2-space indent, numbers as jq prints doubles, "jq: error (at
// FILE:LINE): ..." with exit 5 for runtime errors, exit 3 for compile errors,
// 2 for unreadable input, 4 for input that is not JSON (as Debian's jq 1.6,
// "parse error: Unfinished JSON term at EOF at line 2, column 0" for input
// that ends inside a value), and -e's 1 (last output false or null) and 4
// (no output).
//
// Known differences (gojq's): error texts of runtime errors are gojq's;
// numbers keep integer precision in arithmetic; object keys are Go maps in
// gojq, so key order is reconstructed: an object with exactly the keys of an
// input object prints in that input's order, other objects print keys seen in
// the input first (in first-seen order), then keys in the order the filter
// text names them, then the rest sorted. .[], keys_unsorted, to_entries,
// with_entries, map, add, .., paths and tostream go through an object's keys
// in that same order, as jq's do (see jqOrderIterations); gojq's other
// builtins that iterate an object inside gojq (any, all, min_by over an
// object's values, walk's map_values) go in sorted key order, which changes
// no result but the order of side effects such as debug. Nothing reads the host: modules
// (import/include) cannot be loaded, $ENV and env are the shell's exported
// environment, input_filename is the workspace operand.
func Jq(env *Env, args []string) int {
	o := jqOpts{indent: 2}
	var filter string
	haveFilter := false
	var files []string
	var named = map[string]any{}
	var positional []any
	var varNames []string
	var varValues []any
	restMode := "" // "args" or "jsonargs" after --args / --jsonargs
	addVar := func(name string, v any) {
		named[name] = v
		varNames = append(varNames, "$"+name)
		varValues = append(varValues, v)
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "jq: "+format+"\n", a...)
		fmt.Fprintf(env.Stderr, "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n")
		return 2
	}
	rest := args[1:]
	onlyOperands := false
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if onlyOperands || len(a) < 2 || a[0] != '-' {
			switch {
			case !haveFilter:
				filter, haveFilter = a, true
			case restMode == "args":
				positional = append(positional, a)
			case restMode == "jsonargs":
				v, err := jqParseArg(a)
				if err != nil {
					return bad("Invalid JSON text passed to --jsonargs")
				}
				positional = append(positional, v)
			default:
				files = append(files, a)
			}
			continue
		}
		if a == "--" {
			onlyOperands = true
			continue
		}
		need := func(n int) ([]string, bool) {
			if i+n >= len(rest) {
				return nil, false
			}
			v := rest[i+1 : i+1+n]
			i += n
			return v, true
		}
		if strings.HasPrefix(a, "--") {
			switch a[2:] {
			case "raw-output":
				o.raw = true
			case "join-output":
				o.raw, o.join = true, true
			case "compact-output":
				o.indent = -1
			case "null-input":
				o.null = true
			case "slurp":
				o.slurp = true
			case "exit-status":
				o.exit = true
			case "sort-keys":
				o.sort = true
			case "raw-input":
				o.rawIn = true
			case "ascii-output":
				o.ascii = true
			case "tab":
				o.tab, o.indent = true, 1
			case "color-output", "monochrome-output", "unbuffered", "seq", "stream":
				if a == "--seq" || a == "--stream" {
					return bad("%s is not supported in the shell backend", a)
				}
			case "indent":
				v, ok := need(1)
				if !ok {
					return bad("--indent takes one parameter")
				}
				n, err := strconv.Atoi(v[0])
				if err != nil || n < 0 {
					return bad("--indent takes a number")
				}
				if n > 7 {
					return bad("Cannot indent more than 7 characters")
				}
				o.tab = false
				o.indent = n
				if n == 0 {
					o.indent = -1
				}
			case "arg":
				v, ok := need(2)
				if !ok {
					return bad("--arg takes two parameters (e.g. --arg varname value)")
				}
				addVar(v[0], v[1])
			case "argjson":
				v, ok := need(2)
				if !ok {
					return bad("--argjson takes two parameters (e.g. --argjson varname text)")
				}
				j, err := jqParseArg(v[1])
				if err != nil {
					return bad("Invalid JSON text passed to --argjson")
				}
				addVar(v[0], j)
			case "slurpfile", "rawfile":
				v, ok := need(2)
				if !ok {
					return bad("--%s takes two parameters (e.g. --%s varname filename)", a[2:], a[2:])
				}
				data, err := readArgLimited(env, v[1])
				if err != nil {
					return bad("Bad JSON in --%s %s %s: Could not open %s: %s", a[2:], v[0], v[1], v[1], Strerror(err))
				}
				if a == "--rawfile" {
					addVar(v[0], string(data))
					break
				}
				if err := env.Hold(int64(len(data)) * jsonCost); err != nil {
					return 5
				}
				var all []any
				in := &jqInputs{env: env}
				dec := in.newDecoder(data)
				for {
					val, err := dec.value()
					if err == io.EOF {
						break
					}
					if err != nil {
						return bad("Bad JSON in --slurpfile %s %s: %s", v[0], v[1], err)
					}
					all = append(all, val)
				}
				if all == nil {
					all = []any{}
				}
				addVar(v[0], all)
			case "args":
				restMode = "args"
			case "jsonargs":
				restMode = "jsonargs"
			default:
				return bad("Unknown option: %s", a)
			}
			continue
		}
		for _, c := range a[1:] {
			switch c {
			case 'r':
				o.raw = true
			case 'j':
				o.raw, o.join = true, true
			case 'c':
				o.indent = -1
			case 'n':
				o.null = true
			case 's':
				o.slurp = true
			case 'e':
				o.exit = true
			case 'S':
				o.sort = true
			case 'R':
				o.rawIn = true
			case 'a':
				o.ascii = true
			case 'C', 'M':
			default:
				return bad("Unknown option: %s", a)
			}
		}
	}
	if !haveFilter {
		fmt.Fprintf(env.Stderr, "Usage:\tjq [OPTIONS] FILTER [FILES...]\n")
		return 2
	}
	if positional == nil {
		positional = []any{}
	}
	varNames = append(varNames, "$ARGS")
	varValues = append(varValues, map[string]any{"positional": positional, "named": named})

	if d := jqFilterDepth(filter); d > MaxJqDepth {
		fmt.Fprintf(env.Stderr, "jq: error: filter nested deeper than %d\njq: 1 compile error\n", MaxJqDepth)
		return 3
	}
	query, err := gojq.Parse(filter)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %s\njq: 1 compile error\n", err)
		return 3
	}
	in := &jqInputs{env: env, files: files, raw: o.rawIn, slurp: o.slurp}
	in.order = newJqKeyOrder(filter)
	in.order.record([]string{"positional", "named"})
	// Objects iterate in their keys' input order, as in jq: the filter's
	// own iterations call _desk_iter, and jq's definitions built on
	// iteration are redefined over it, before the filter's own definitions
	// (which may redefine them again).
	jqOrderIterations(query)
	query.FuncDefs = append(slices.Clip(jqOrderedDefs()), query.FuncDefs...)
	code, err := gojq.Compile(query,
		gojq.WithVariables(varNames),
		gojq.WithEnvironLoader(func() []string {
			if env.Environ == nil {
				return nil
			}
			return env.Environ()
		}),
		gojq.WithFunction("input_filename", 0, 0, func(any, []any) any {
			if in.name == "" {
				return nil
			}
			return in.name
		}),
		gojq.WithFunction("keys_unsorted", 0, 0, func(v any, _ []any) any {
			return jqKeysUnsorted(v, in.order)
		}),
		// tostring and tojson (and so string interpolation, @text and
		// @json) print objects with their keys in order, as the output
		// does: jqOrderedSource defines them over these (gojq's own
		// functions of those names come before custom ones).
		gojq.WithFunction("_desk_tostring", 0, 0, func(v any, _ []any) any {
			if s, ok := v.(string); ok {
				return s
			}
			return jqCompact(v, in.order)
		}),
		gojq.WithFunction("_desk_tojson", 0, 0, func(v any, _ []any) any {
			return jqCompact(v, in.order)
		}),
		gojq.WithInputIter(in),
	)
	if err != nil {
		fmt.Fprintf(env.Stderr, "jq: error: %s\njq: 1 compile error\n", err)
		return 3
	}

	w := bufio.NewWriterSize(env.Stdout, 32<<10)
	defer w.Flush()
	in.flush = func() { w.Flush() } // before a message about the input
	enc := &jqEncoder{w: w, indent: o.indent, tab: o.tab, sort: o.sort, ascii: o.ascii, order: in.order}
	status := 0
	outputs := 0
	var last any
	runOne := func(v any) bool {
		iter := code.RunWithContext(env.Ctx, v, varValues...)
		for {
			out, ok := iter.Next()
			if !ok {
				return true
			}
			if err, ok := out.(error); ok {
				if env.Canceled() {
					return false
				}
				var halt *gojq.HaltError
				if errors.As(err, &halt) {
					w.Flush()
					if hv := halt.Value(); hv != nil {
						if s, ok := hv.(string); ok {
							io.WriteString(env.Stderr, s)
						} else {
							fmt.Fprintf(env.Stderr, "%s\n", jqCompact(hv, in.order))
						}
					}
					status = halt.ExitCode()
					in.halted = true
					return false
				}
				w.Flush()
				msg := jqErrorText(err, in.order)
				sep := ": "
				if strings.HasPrefix(msg, "(not a string)") {
					sep = " "
				}
				fmt.Fprintf(env.Stderr, "jq: error (at %s)%s%s\n", in.position(o.null), sep, msg)
				status = 5
				return true // as jq, an error ends this input's outputs; the next input runs
			}
			if !jqDepthWithin(out, MaxJqDepth) {
				w.Flush()
				fmt.Fprintf(env.Stderr, "jq: error (at %s): value nested deeper than %d\n", in.position(o.null), MaxJqDepth)
				status = 5
				continue
			}
			outputs++
			last = out
			if s, ok := out.(string); ok && o.raw {
				w.WriteString(s)
			} else {
				enc.encode(out)
			}
			if !o.join {
				w.WriteByte('\n')
			}
		}
	}
	if o.null {
		runOne(nil)
	} else {
		for !in.halted {
			v, ok := in.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				if _, ok := err.(jqOpenError); ok {
					continue
				}
				break
			}
			if !runOne(v) {
				break
			}
		}
	}
	w.Flush()
	if env.Canceled() {
		return 1
	}
	if in.halted {
		return status
	}
	if in.parseFailed {
		return 4
	}
	if in.failed {
		return 2
	}
	if status != 0 {
		return status
	}
	if o.exit {
		switch {
		case outputs == 0:
			return 4
		case last == nil || last == false:
			return 1
		}
	}
	return 0
}

type jqOpts struct {
	raw, join, null, slurp, exit, sort, rawIn, ascii, tab bool
	indent                                                int
}

// jqErrorText renders a runtime error as jq does: the message of error(s),
// or "(not a string): JSON" for error(non-string).
func jqErrorText(err error, order *jqKeyOrder) string {
	var ve gojq.ValueError
	if errors.As(err, &ve) {
		switch v := ve.Value().(type) {
		case string:
			return v
		case nil:
			return "null (null)"
		default:
			return "(not a string): " + jqCompact(v, order)
		}
	}
	return err.Error()
}

// jqParseArg parses one JSON text (--argjson, --jsonargs).
func jqParseArg(s string) (any, error) {
	in := &jqInputs{}
	dec := in.newDecoder([]byte(s))
	v, err := dec.value()
	if err != nil {
		return nil, err
	}
	if _, err := dec.value(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// jqOpenError is an operand that could not be read (reported, then skipped).
type jqOpenError struct{ error }

// jqInputs yields the input values, from the files in order (or stdin),
// as JSON values, raw lines (-R), or one slurped value (-s). It is also the
// input iterator of input and inputs.
type jqInputs struct {
	env    *Env
	files  []string
	raw    bool
	slurp  bool
	held   int64 // charged for the inputs loaded and their values
	order  *jqKeyOrder
	next   int  // next file index
	opened bool // stdin used / first file opened
	done   bool
	halted bool
	failed bool // an input could not be read or parsed (exit 2)

	parseFailed bool // an input is not JSON (exit 4, as jq 1.6)

	// flush writes out the outputs so far, before a message on stderr.
	flush func()

	name    string // current input name for messages
	data    []byte
	dec     *jqDecoder
	lines   [][]byte
	line    int // line of the last value read (1-based)
	slurped bool
}

// position is "name:line" for error messages, "<unknown>" under -n before
// any input.
func (in *jqInputs) position(null bool) string {
	if in.name == "" {
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d", in.name, in.line)
}

// load reads the next operand; false when there is none left.
func (in *jqInputs) load() (bool, error) {
	var name, label string
	if len(in.files) == 0 {
		if in.opened {
			return false, nil
		}
		name, label = "-", "<stdin>"
	} else {
		if in.next >= len(in.files) {
			return false, nil
		}
		name = in.files[in.next]
		label = name
		in.next++
	}
	in.opened = true
	if !in.slurp && in.held > 0 {
		// The previous input (and its values) are done with.
		in.env.Release(in.held)
		in.held = 0
	}
	var data []byte
	var err error
	if name == "-" {
		data, err = readAllLimited(in.env, ctxReader{in.env, in.env.Stdin})
	} else {
		data, err = readArgLimited(in.env, name)
	}
	if err != nil {
		in.failed = true
		if isCanceled(in.env, err) {
			return false, err
		}
		in.flushOut()
		fmt.Fprintf(in.env.Stderr, "jq: error: Could not open file %s: %s\n", name, Strerror(err))
		return true, jqOpenError{err}
	}
	// The values decoded from the input: gojq's are about 60 times the
	// text at most (measured), all live at once with -s.
	if err := in.env.Hold(int64(len(data)) * jsonCost); err != nil {
		in.env.Release(held(data))
		in.failed = true
		return false, err
	}
	in.held += held(data) + int64(len(data))*jsonCost
	in.name, in.data, in.line = label, data, 0
	if in.raw {
		in.lines = bytes.SplitAfter(data, []byte{'\n'})
		if n := len(in.lines); n > 0 && len(in.lines[n-1]) == 0 {
			in.lines = in.lines[:n-1]
		}
		in.dec = nil
	} else {
		in.dec = in.newDecoder(data)
	}
	return true, nil
}

// Next implements gojq.Iter.
func (in *jqInputs) Next() (any, bool) {
	if in.done || in.halted {
		return nil, false
	}
	if in.slurp {
		if in.slurped {
			return nil, false
		}
		in.slurped = true
		return in.slurpAll()
	}
	for {
		if in.env.Canceled() {
			return nil, false
		}
		if in.raw && len(in.lines) > 0 {
			l := in.lines[0]
			in.lines = in.lines[1:]
			if bytes.HasSuffix(l, []byte{'\n'}) {
				in.line++ // jq counts the newlines read: a last line without one adds none
			}
			return string(bytes.TrimSuffix(l, []byte{'\n'})), true
		}
		if !in.raw && in.dec != nil {
			v, err := in.dec.value()
			if err == nil {
				in.line = in.dec.line()
				return v, true
			}
			if err != io.EOF {
				in.parseError(err)
				return err, true
			}
			in.dec = nil
		}
		ok, err := in.load()
		if !ok {
			in.done = true
			return nil, false
		}
		if err != nil {
			return err, true
		}
	}
}

func (in *jqInputs) flushOut() {
	if in.flush != nil {
		in.flush()
	}
}

// parseError reports input that is not JSON. Input that ends inside a value
// is worded as jq 1.6 words it ("parse error: Unfinished JSON term at EOF at
// line 2, column 0"); other errors are encoding/json's.
func (in *jqInputs) parseError(err error) {
	in.failed, in.parseFailed, in.done = true, true, true
	in.flushOut()
	if errors.Is(err, io.ErrUnexpectedEOF) {
		what := "JSON term"
		if jqEndsInString(in.data) {
			what = "string"
		}
		fmt.Fprintf(in.env.Stderr, "parse error: Unfinished %s at EOF at line %d, column %d\n", what,
			1+bytes.Count(in.data, []byte{'\n'}), len(in.data)-bytes.LastIndexByte(in.data, '\n')-1)
		return
	}
	fmt.Fprintf(in.env.Stderr, "jq: error (at %s:%d): Cannot parse input: %s\n", in.name,
		in.dec.line(), err)
}

// jqEndsInString reports whether JSON text data ends inside a string.
func jqEndsInString(data []byte) bool {
	in, esc := false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		}
	}
	return in
}

// slurpAll gathers every input into one array (or one string with -R).
func (in *jqInputs) slurpAll() (any, bool) {
	var all []any
	var text strings.Builder
	for {
		ok, err := in.load()
		if !ok {
			break
		}
		if err != nil {
			continue
		}
		if in.raw {
			text.Write(in.data)
			in.lines = nil
			in.line = bytes.Count(in.data, []byte{'\n'})
			continue
		}
		for {
			v, err := in.dec.value()
			if err == io.EOF {
				break
			}
			if err != nil {
				in.parseError(err)
				return err, true
			}
			all = append(all, v)
		}
		in.line = bytes.Count(in.data, []byte{'\n'})
	}
	if in.raw {
		return text.String(), true
	}
	if all == nil {
		all = []any{}
	}
	return all, true
}

// jqNumber converts a JSON number literal to gojq's int or float64.
func jqNumber(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	f, _ := strconv.ParseFloat(s, 64) // out of range: ±Inf, printed as jq does
	return f
}

// jqKeysUnsorted is jq's keys_unsorted: an object's keys in their input
// order (as reconstructed by order), an array's indexes.
func jqKeysUnsorted(v any, order *jqKeyOrder) any {
	switch v := v.(type) {
	case map[string]any:
		keys := order.keys(v, false)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = k
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = i
		}
		return out
	}
	return fmt.Errorf("%s (%s) has no keys", jqTypeName(v), jqCompact(v, order))
}

// jqCompact is v as jq -c prints it, keys in order.
func jqCompact(v any, order *jqKeyOrder) string {
	var b strings.Builder
	(&jqEncoder{w: bufio.NewWriter(&b), indent: -1, order: order}).print(v)
	return b.String()
}

// jqTypeName is jq's name of v's type.
func jqTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return "number"
}

// jqKeyOrder reconstructs the order of object keys (gojq's objects are Go
// maps): exact key sets seen in the input keep their input order; otherwise
// keys rank by first appearance in the input, then in the filter text.
type jqKeyOrder struct {
	sets      map[string][]string
	rank      map[string]int
	queryRank map[string]int
}

var jqQueryKey = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*|"(?:[^"\\]|\\.)*"`)

func newJqKeyOrder(filter string) *jqKeyOrder {
	o := &jqKeyOrder{sets: map[string][]string{}, rank: map[string]int{}, queryRank: map[string]int{}}
	for _, m := range jqQueryKey.FindAllString(filter, -1) {
		if strings.HasPrefix(m, `"`) {
			var s string
			if json.Unmarshal([]byte(m), &s) != nil {
				continue
			}
			m = s
		}
		if _, ok := o.queryRank[m]; !ok {
			o.queryRank[m] = len(o.queryRank)
		}
	}
	return o
}

const jqMaxKeySets = 10000

func (o *jqKeyOrder) record(keys []string) {
	for _, k := range keys {
		if _, ok := o.rank[k]; !ok && len(o.rank) < 1<<20 {
			o.rank[k] = len(o.rank)
		}
	}
	if len(o.sets) >= jqMaxKeySets || len(keys) < 2 {
		return
	}
	sig := jqKeySig(keys)
	if _, ok := o.sets[sig]; !ok {
		o.sets[sig] = keys
	}
}

func jqKeySig(keys []string) string {
	s := append([]string(nil), keys...)
	sort.Strings(s)
	return strings.Join(s, "\x00")
}

// keys returns the keys of m in output order.
func (o *jqKeyOrder) keys(m map[string]any, sorted bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if sorted || o == nil || len(keys) < 2 {
		return keys
	}
	if ks, ok := o.sets[strings.Join(keys, "\x00")]; ok {
		return ks
	}
	class := func(k string) (int, int) {
		if r, ok := o.rank[k]; ok {
			return 0, r
		}
		if r, ok := o.queryRank[k]; ok {
			return 1, r
		}
		return 2, 0
	}
	sort.SliceStable(keys, func(i, j int) bool {
		ci, ri := class(keys[i])
		cj, rj := class(keys[j])
		if ci != cj {
			return ci < cj
		}
		return ri < rj
	})
	return keys
}

// jqEncoder prints values as jq 1.6 does.
type jqEncoder struct {
	w      *bufio.Writer
	indent int // -1 compact
	tab    bool
	sort   bool
	ascii  bool
	order  *jqKeyOrder
	depth  int
}

func (e *jqEncoder) print(v any) {
	e.encode(v)
	e.w.Flush()
}

func (e *jqEncoder) newline() {
	e.w.WriteByte('\n')
	if e.tab {
		e.w.WriteString(strings.Repeat("\t", e.depth))
	} else {
		e.w.WriteString(strings.Repeat(" ", e.depth*e.indent))
	}
}

func (e *jqEncoder) encode(v any) {
	switch v := v.(type) {
	case nil:
		e.w.WriteString("null")
	case bool:
		if v {
			e.w.WriteString("true")
		} else {
			e.w.WriteString("false")
		}
	case int:
		e.w.WriteString(jqFormatNumber(float64(v)))
	case float64:
		e.w.WriteString(jqFormatNumber(v))
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		e.w.WriteString(jqFormatNumber(f))
	case json.Number:
		e.w.WriteString(jqFormatNumber(jqToFloat(jqNumber(string(v)))))
	case string:
		e.str(v)
	case []any:
		if len(v) == 0 {
			e.w.WriteString("[]")
			return
		}
		e.w.WriteByte('[')
		e.depth++
		for i, x := range v {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent >= 0 {
				e.newline()
			}
			e.encode(x)
		}
		e.depth--
		if e.indent >= 0 {
			e.newline()
		}
		e.w.WriteByte(']')
	case map[string]any:
		if len(v) == 0 {
			e.w.WriteString("{}")
			return
		}
		e.w.WriteByte('{')
		e.depth++
		for i, k := range e.order.keys(v, e.sort) {
			if i > 0 {
				e.w.WriteByte(',')
			}
			if e.indent >= 0 {
				e.newline()
			}
			e.str(k)
			e.w.WriteByte(':')
			if e.indent >= 0 {
				e.w.WriteByte(' ')
			}
			e.encode(v[k])
		}
		e.depth--
		if e.indent >= 0 {
			e.newline()
		}
		e.w.WriteByte('}')
	default:
		fmt.Fprintf(e.w, "%q", fmt.Sprint(v))
	}
}

func jqToFloat(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// str writes a JSON string as jq does (\u007f and controls as \u00XX, -a
// escapes non-ASCII).
func (e *jqEncoder) str(s string) {
	w := e.w
	w.WriteByte('"')
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"':
				w.WriteString(`\"`)
			case b == '\\':
				w.WriteString(`\\`)
			case b == '\n':
				w.WriteString(`\n`)
			case b == '\t':
				w.WriteString(`\t`)
			case b == '\r':
				w.WriteString(`\r`)
			case b == '\b':
				w.WriteString(`\b`)
			case b == '\f':
				w.WriteString(`\f`)
			case b < 0x20 || b == 0x7f:
				w.WriteString(`\u00`)
				w.WriteByte(hex[b>>4])
				w.WriteByte(hex[b&0xf])
			default:
				w.WriteByte(b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			r = utf8.RuneError
		}
		if e.ascii {
			if r > 0xffff {
				r1, r2 := jqSurrogates(r)
				fmt.Fprintf(w, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(w, `\u%04x`, r)
			}
		} else {
			w.WriteRune(r)
		}
		i += size
	}
	w.WriteByte('"')
}

func jqSurrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// jqFormatNumber prints a double as jq 1.6 does (its dtoa-based g format):
// shortest round-trip digits, exponent form when the decimal point is 4 or
// more places left of the digits or more than 15 places right of them;
// NaN is null and infinities the largest doubles.
func jqFormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "null"
	case math.IsInf(f, 1):
		f = math.MaxFloat64
	case math.IsInf(f, -1):
		f = -math.MaxFloat64
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0"
		}
		return "0"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exps, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(exps)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := exp + 1
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if decpt <= -4 || decpt > len(digits)+15 {
		b.WriteByte(digits[0])
		if len(digits) > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		e := decpt - 1
		if e < 0 {
			b.WriteByte('-')
			e = -e
		} else {
			b.WriteByte('+')
		}
		if e < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(e))
		return b.String()
	}
	switch {
	case decpt <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	case decpt >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", decpt-len(digits)))
	default:
		b.WriteString(digits[:decpt])
		b.WriteByte('.')
		b.WriteString(digits[decpt:])
	}
	return b.String()
}

// MaxJqDepth bounds the nesting of a jq filter (brackets, braces and
// parentheses: gojq parses it recursively) and of a value jq prints (its
// encoder recurses): past it the filter fails to compile (exit 3) or the
// value is an error (exit 5), where a deeper one could exhaust the Go stack
// of the server. A JSON input is bounded by MaxReadBytes, and as deep an
// input value fails the same way when printed.
const MaxJqDepth = 10_000

// jqFilterDepth is the deepest nesting of (, [ and { in filter, outside
// string literals.
func jqFilterDepth(filter string) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(filter); i++ {
		c := filter[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '(' || c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ')' || c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// jqDepthWithin reports whether v nests at most limit arrays and objects,
// walking it without recursion.
func jqDepthWithin(v any, limit int) bool {
	type item struct {
		v     any
		depth int
	}
	stack := []item{{v, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := it.v.(type) {
		case []any:
			if it.depth >= limit {
				return false
			}
			for _, e := range x {
				stack = append(stack, item{e, it.depth + 1})
			}
		case map[string]any:
			if it.depth >= limit {
				return false
			}
			for _, e := range x {
				stack = append(stack, item{e, it.depth + 1})
			}
		}
	}
	return true
}

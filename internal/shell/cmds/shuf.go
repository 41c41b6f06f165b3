package cmds

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

func init() { Register("shuf", Shuf) }

// shufReservoirMin is GNU's RESERVOIR_MIN_INPUT: shuf -n K reads a
// regular file smaller than this whole, a larger one or a pipe through a
// reservoir of K lines.
const shufReservoirMin = 8192 * 1024

// shufEntryCost is what a permutation charges per position it keeps: 8
// bytes a position in the dense table, about 48 a map entry (Go's map
// overhead included) in the sparse one.
const (
	shufDenseCost  = 8
	shufSparseCost = 48
)

// Shuf is GNU shuf: a random permutation of the input lines (the file
// operand or stdin), of the operands with -e, or of the numbers LO..HI
// with -i; -n COUNT outputs at most COUNT, -r repeats (draws with
// replacement: endless without -n, until Kill or the execution's timeout),
// -z uses NUL as the line end, -o FILE writes FILE after the input is
// read, --random-source=FILE takes the random bytes from FILE.
//
// The draws are GNU's: gnulib's randint (bytes taken big-endian, as few
// as each choice needs, rejection keeping the unused randomness) and
// randperm (a partial Fisher-Yates shuffle, kept in a map when the range
// is large), and shuf -n's reservoir over a pipe, so that with the same
// --random-source the output is GNU's. As GNU, stdin is treated as a pipe
// (it takes the reservoir for -n) and a file operand as a regular file
// (read whole below 8 MiB). /dev/urandom and /dev/random as the random
// source are the host's random bytes, /dev/zero zero bytes, /dev/null
// none; without --random-source the bytes are crypto/rand's.
//
// Limits: input read whole within Limits.MaxReadBytes; the permutation
// holds 8 bytes per position of the range (dense) or 48 per draw
// (sparse, for a range of 128Ki and more at least 64 times the count),
// whichever is less, charged to Env.Mem and refused past MaxReadBytes
// before any output (shuf -i 1-1000000000000 without -n); -i ranges are
// uint64, as GNU's uintmax_t.
func Shuf(env *Env, args []string) int {
	opts, ops, ok := parseOpts(env, "shuf", args[1:], optSpec{shorts: "ei:n:o:rz",
		longs: []string{"echo", "input-range=", "head-count=", "output=", "random-source=", "repeat",
			"zero-terminated", "help", "version"}})
	if !ok {
		return 1
	}
	var echo, inputRange, repeat bool
	var lo, hi uint64
	head := uint64(math.MaxUint64)
	outfile, source := "", ""
	eol := byte('\n')
	for _, o := range opts {
		switch o.name {
		case "e", "echo":
			echo = true
		case "i", "input-range":
			if inputRange {
				env.Errorf("shuf", "multiple -i options specified")
				return 1
			}
			inputRange = true
			var ok bool
			if lo, hi, ok = shufRange(env, o.val); !ok {
				return 1
			}
		case "n", "head-count":
			v, e := spStrtoumax(o.val, 10, "")
			switch e {
			case spOK:
				head = min(head, v)
			case spOverflow:
			default:
				env.Errorf("shuf", "invalid line count: %s", quote(env, o.val))
				return 1
			}
		case "o", "output":
			if outfile != "" && outfile != o.val {
				env.Errorf("shuf", "multiple output files specified")
				return 1
			}
			outfile = o.val
		case "random-source":
			if source != "" && source != o.val {
				env.Errorf("shuf", "multiple random sources specified")
				return 1
			}
			source = o.val
		case "r", "repeat":
			repeat = true
		case "z", "zero-terminated":
			eol = 0
		case "help":
			return coreutilsHelp(env, "shuf")
		case "version":
			fmt.Fprintln(env.Stdout, versionLines["shuf"])
			return 0
		}
	}
	if echo && inputRange {
		tryHelp(env, "shuf", "cannot combine -e and -i options")
		return 1
	}
	if inputRange && len(ops) > 0 {
		tryHelp(env, "shuf", "extra operand %s", quote(env, ops[0]))
		return 1
	}
	if !inputRange && !echo && len(ops) > 1 {
		tryHelp(env, "shuf", "extra operand %s", quote(env, ops[1]))
		return 1
	}

	rs := &randint{env: env, name: source}
	defer rs.close()
	var lines [][]byte
	var n uint64
	switch {
	case head == 0:
	case echo:
		for _, o := range ops {
			lines = append(lines, []byte(o))
		}
		n = uint64(len(lines))
	case inputRange:
		n = hi - lo + 1
	default:
		name := "-"
		if len(ops) == 1 {
			name = ops[0]
		}
		r, err := openArg(env, name)
		if err != nil {
			env.Errorf("shuf", "%s: %s", quotef(env, name), Strerror(err))
			return 1
		}
		defer r.Close()
		if !rs.start() {
			return 1
		}
		size := int64(math.MaxInt64)
		if name != "-" {
			if fi, err := env.FS.Stat(env.Ctx, env.Abs(name)); err == nil && fi.Mode().IsRegular() {
				size = fi.Size()
			}
		}
		if repeat || head == math.MaxUint64 || size <= shufReservoirMin {
			data, err := readAllLimited(env, r)
			if err != nil {
				return shufReadError(env, err)
			}
			defer env.Release(held(data))
			lines = splitLines(data, eol)
			if err := env.Hold(int64(len(lines)) * lineCost); err != nil {
				return 1
			}
			defer env.Release(int64(len(lines)) * lineCost)
		} else {
			var held int64
			lines, held, err = shufReservoir(env, r, eol, head, rs)
			defer env.Release(held)
			if re, ok := err.(randError); ok {
				return rs.fail(re.err)
			}
			if err != nil {
				return shufReadError(env, err)
			}
		}
		n = uint64(len(lines))
	}
	if head > 0 && !rs.start() {
		return 1
	}

	var buf heldBuffer
	buf.env = env
	var w *bufio.Writer
	if outfile != "" {
		w = bufio.NewWriter(&buf)
	} else {
		w = bufio.NewWriter(env.Stdout)
	}
	// emit writes one line; its error is the first write error (a closed
	// pipe, the budget of -o's buffer), which ends an endless -r.
	emit := func(i uint64) error {
		if inputRange {
			var num [20]byte
			w.Write(strconv.AppendUint(num[:0], lo+i, 10))
		} else {
			w.Write(lines[i])
		}
		return w.WriteByte(eol)
	}
	if repeat {
		if head > 0 {
			if n == 0 {
				env.Errorf("shuf", "no lines to repeat")
				return 1
			}
			for i := uint64(0); i < head; i++ {
				j, err := rs.choose(n)
				if err != nil {
					w.Flush()
					return rs.fail(err)
				}
				if emit(j) != nil || i%1024 == 0 && env.Canceled() {
					break
				}
			}
		}
	} else {
		h := min(head, n)
		perm, cost, err := randperm(env, rs, h, n)
		defer env.Release(cost)
		if err != nil {
			return rs.fail(err)
		}
		for _, j := range perm {
			if emit(j) != nil {
				break
			}
		}
	}
	if err := w.Flush(); err != nil || buf.err != nil || env.Canceled() {
		return 1
	}
	if outfile != "" {
		if err := env.FS.WriteFile(env.Ctx, env.Abs(outfile), buf.Bytes(), 0o644); err != nil {
			env.Errorf("shuf", "%s: %s", quotef(env, outfile), Strerror(err))
			return 1
		}
	}
	return 0
}

// shufReadError reports a failed read of the input as GNU's "read error".
func shufReadError(env *Env, err error) int {
	if !isCanceled(env, err) {
		env.Errorf("shuf", "read error: %s", Strerror(err))
	}
	return 1
}

// shufRange parses -i LO-HI as GNU's shuf: each bound a decimal uint64
// (xdectoumax: "invalid input range: ‘BOUND’", with EOVERFLOW's text past
// uint64), and LO at most HI+1 (LO = HI+1 is an empty range) without the
// count overflowing, else "invalid input range: ‘LO-HI’".
func shufRange(env *Env, s string) (lo, hi uint64, ok bool) {
	bad := func(part string, e spErr) (uint64, uint64, bool) {
		suffix := ""
		if e == spOverflow {
			suffix = ": Value too large for defined data type"
		}
		env.Errorf("shuf", "invalid input range: %s%s", quote(env, part), suffix)
		return 0, 0, false
	}
	hiPart := s
	dash := strings.IndexByte(s, '-')
	if dash >= 0 {
		v, e := spStrtoumax(s[:dash], 10, "")
		if e != spOK {
			return bad(s[:dash], e)
		}
		lo, hiPart = v, s[dash+1:]
	}
	v, e := spStrtoumax(hiPart, 10, "")
	if e != spOK {
		return bad(hiPart, e)
	}
	hi = v
	count := hi - lo + 1
	if dash < 0 || (lo <= hi) == (count == 0) {
		return bad(s, spOK)
	}
	return lo, hi, true
}

// shufReservoir reads lines into a reservoir of at most k, as GNU's
// read_input_reservoir_sampling: the first k fill it, each later line i
// (counting from 0) replaces the one at randint_choose(i+1) when that is
// below k, and one draw more is made at the end of the input. It returns
// the lines and what they are charged.
func shufReservoir(env *Env, r io.Reader, eol byte, k uint64, rs *randint) ([][]byte, int64, error) {
	lr := newLineReader(env, r, eol)
	var rsrv [][]byte
	var charged int64
	keep := func(i int, line []byte) error {
		c := int64(len(line)) + lineCost
		if err := env.Hold(c); err != nil {
			return err
		}
		charged += c
		if max := env.Limits.MaxReadBytes; max > 0 && charged > max {
			return ErrTooLarge
		}
		l := append([]byte(nil), line...)
		if i == cap(rsrv) {
			// Grown by doubling, charged before it is allocated (append's
			// growth by a quarter would copy the slots five times over).
			nc := uint64(max(64, 2*cap(rsrv)))
			nc = min(nc, k)
			if err := env.Hold(int64(nc) * 24); err != nil {
				return err
			}
			charged += int64(nc) * 24
			grown := make([][]byte, len(rsrv), nc)
			copy(grown, rsrv)
			env.Release(int64(cap(rsrv)) * 24)
			charged -= int64(cap(rsrv)) * 24
			rsrv = grown
		}
		if i < len(rsrv) {
			charged -= int64(len(rsrv[i])) + lineCost
			env.Release(int64(len(rsrv[i])) + lineCost)
			rsrv[i] = l
		} else {
			rsrv = append(rsrv, l)
		}
		return nil
	}
	var n uint64
	for {
		if n >= k {
			j, err := rs.choose(n + 1)
			if err != nil {
				return rsrv, charged, randError{err}
			}
			line, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return rsrv, charged, err
			}
			if j < k {
				if err := keep(int(j), trimEOL(line, eol)); err != nil {
					return rsrv, charged, err
				}
			}
			n++
			continue
		}
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return rsrv, charged, err
		}
		if err := keep(int(n), trimEOL(line, eol)); err != nil {
			return rsrv, charged, err
		}
		n++
	}
	return rsrv, charged, nil
}

// trimEOL drops a line's delimiter.
func trimEOL(line []byte, eol byte) []byte {
	if len(line) > 0 && line[len(line)-1] == eol {
		return line[:len(line)-1]
	}
	return line
}

// randperm returns the first h positions of a random permutation of
// 0..n-1, as gnulib's randperm_new draws it: for i < h, swap position i
// with i + randint_choose(n-i). The table is dense (a slice of n) or
// sparse (a map of the positions swapped) as it costs less; both give the
// same permutation. It returns what it charged to Env.Mem.
func randperm(env *Env, rs *randint, h, n uint64) ([]uint64, int64, error) {
	switch h {
	case 0:
		return nil, 0, nil
	case 1:
		j, err := rs.choose(n)
		return []uint64{j}, 0, err
	}
	dense := n <= math.MaxInt64/shufDenseCost && n*shufDenseCost <= h*shufSparseCost*2
	cost := uint64(math.MaxInt64)
	if dense {
		cost = n * shufDenseCost
	} else if h <= math.MaxInt64/(3*shufSparseCost) {
		cost = h * 3 * shufSparseCost // the map of at most 2h, and the result
	}
	if max := env.Limits.MaxReadBytes; max > 0 && cost > uint64(max) {
		env.Errorf("shuf", "%s", ErrTooLarge)
		return nil, 0, errShufReported
	}
	if err := env.Hold(int64(cost)); err != nil {
		return nil, 0, errShufReported
	}
	if dense {
		v := make([]uint64, n)
		for i := range v {
			v[i] = uint64(i)
		}
		for i := uint64(0); i < h; i++ {
			r, err := rs.choose(n - i)
			if err != nil {
				return nil, int64(cost), err
			}
			j := i + r
			v[i], v[j] = v[j], v[i]
			if i%4096 == 0 && env.Canceled() {
				return nil, int64(cost), errShufReported
			}
		}
		return v[:h], int64(cost), nil
	}
	sv := map[uint64]uint64{}
	at := func(i uint64) uint64 {
		if v, ok := sv[i]; ok {
			return v
		}
		return i
	}
	out := make([]uint64, h)
	for i := uint64(0); i < h; i++ {
		r, err := rs.choose(n - i)
		if err != nil {
			return nil, int64(cost), err
		}
		j := i + r
		vi, vj := at(i), at(j)
		sv[j] = vi
		out[i] = vj
		delete(sv, i) // position i is never read again
		if i%4096 == 0 && env.Canceled() {
			return nil, int64(cost), errShufReported
		}
	}
	return out, int64(cost), nil
}

// randError is a failed draw from the random source while the input is
// read.
type randError struct{ err error }

func (e randError) Error() string { return e.err.Error() }

// errShufReported is a failure already reported (or a cancellation).
var errShufReported = errors.New("reported")

// errRandomEOF is the end of the random source.
var errRandomEOF = errors.New("end of file")

// randint draws uniform numbers from a byte source as gnulib's randint
// does, so that the same bytes give GNU's numbers: randnum holds the
// randomness not used yet, in 0..randmax.
type randint struct {
	env             *Env
	name            string // --random-source ("": crypto/rand)
	r               io.Reader
	c               io.Closer
	randnum, randmx uint64
	opened          bool
	buf             [8]byte
}

// start opens the random source, once; a failure is reported as GNU's
// ("shuf: NAME: No such file or directory").
func (s *randint) start() bool {
	if s.opened {
		return true
	}
	s.opened = true
	if err := s.open(); err != nil {
		s.env.Errorf("shuf", "%s: %s", quotef(s.env, s.name), Strerror(err))
		return false
	}
	return true
}

// open opens the random source.
func (s *randint) open() error {
	switch s.name {
	case "", "/dev/urandom", "/dev/random":
		s.r = bufio.NewReaderSize(rand.Reader, 512)
	case "/dev/zero":
		s.r = zeroBytes{}
	case "/dev/null":
		s.r = strings.NewReader("")
	default:
		f, err := openArg(s.env, s.name)
		if err != nil {
			return err
		}
		s.r, s.c = bufio.NewReader(f), f
	}
	return nil
}

func (s *randint) close() {
	if s.c != nil {
		s.c.Close()
	}
}

// fail reports a failed draw as GNU does and returns shuf's status.
func (s *randint) fail(err error) int {
	switch {
	case err == errShufReported:
	case err == errRandomEOF:
		s.env.Errorf("shuf", "%s: end of file", quote(s.env, s.name))
	case isCanceled(s.env, err):
	default:
		s.env.Errorf("shuf", "%s: read error: %s", quote(s.env, s.name), Strerror(err))
	}
	return 1
}

// choose returns a uniform number in 0..n-1 (randint_choose).
func (s *randint) choose(n uint64) (uint64, error) { return s.genmax(n - 1) }

// genmax returns a uniform number in 0..genmax (randint_genmax).
func (s *randint) genmax(genmax uint64) (uint64, error) {
	randnum, randmax := s.randnum, s.randmx
	choices := genmax + 1
	for {
		if randmax < genmax {
			k := 0
			for rmax := randmax; rmax < genmax; k++ {
				rmax = rmax<<8 | 0xff
			}
			if s.r == nil {
				return 0, errShufReported // not started
			}
			buf := s.buf[:k]
			if _, err := io.ReadFull(s.r, buf); err != nil {
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					return 0, errRandomEOF
				}
				return 0, err
			}
			for i := 0; randmax < genmax; i++ {
				randnum = randnum<<8 | uint64(buf[i])
				randmax = randmax<<8 | 0xff
			}
		}
		if randmax == genmax {
			s.randnum, s.randmx = 0, 0
			return randnum, nil
		}
		excess := randmax - genmax
		unusable := excess % choices
		lastUsable := randmax - unusable
		reduced := randnum % choices
		if randnum <= lastUsable {
			s.randnum, s.randmx = randnum/choices, excess/choices
			return reduced, nil
		}
		randnum, randmax = reduced, unusable-1
	}
}

// zeroBytes reads as /dev/zero.
type zeroBytes struct{}

func (zeroBytes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

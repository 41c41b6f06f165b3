package cmds

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("dd", Dd) }

// ddMaxBlock bounds ibs and obs (and so bs): dd holds one input and one
// output block in memory, charged to the execution's budget. GNU allows
// up to SSIZE_MAX; past this bound dd says what GNU says when the
// allocation fails.
const ddMaxBlock = 256 << 20

// ddOpts are dd's operands.
type ddOpts struct {
	in, out               string
	ibs, obs              int64
	bs                    bool // bs= given: blocks are written as read
	count                 int64
	skip, seek            int64
	conv, iflag, oflag    map[string]bool
	status                string
	countSet              bool
	countBytes, skipBytes bool
	seekBytes             bool
}

var (
	ddConvs  = strings.Fields("ascii ebcdic ibm block unblock lcase ucase sparse swab sync excl nocreat notrunc noerror fdatasync fsync")
	ddIFlags = strings.Fields("append direct directory dsync sync fullblock nonblock noatime nocache noctty nofollow count_bytes skip_bytes binary text")
	ddOFlags = strings.Fields("append direct directory dsync sync nonblock noatime nocache noctty nofollow seek_bytes binary text")
)

// Dd is GNU dd: copy if= (stdin) to of= (stdout) in blocks, with bs= ibs=
// obs= count= skip= seek= (sizes with GNU's suffixes c w b kB K MB M ...
// and N×M products written NxM), conv= (lcase ucase swab sync notrunc
// excl nocreat noerror (after a read that returned data; a read that
// fails with none ends the copy) fsync fdatasync; block, unblock and the EBCDIC
// tables are refused as unsupported), iflag= (fullblock count_bytes
// skip_bytes; the others are accepted and change nothing here), oflag=
// (append seek_bytes; likewise) and status= (none noxfer progress, which
// prints the final statistics only). The statistics go to stderr as GNU
// prints them ("N+M records in", "N+M records out", "B bytes (…) copied,
// T s, R/s"). if=/dev/zero and /dev/urandom are streams (the shell gives
// them as standard input); of=/dev/null, /dev/stdout and /dev/stderr are
// themselves. Blocks are bounded by ddMaxBlock.
func Dd(env *Env, args []string) int {
	o, ok := ddParse(env, args[1:])
	if !ok {
		return 1
	}
	if o.ibs > ddMaxBlock || o.obs > ddMaxBlock {
		n := max(o.ibs, o.obs)
		which := "input"
		if o.obs > o.ibs {
			which = "output"
		}
		fmt.Fprintf(env.Stderr, "dd: memory exhausted by %s buffer of size %d bytes (%s)\n", which, n, humanIEC(n))
		return 1
	}
	held := o.ibs
	if !o.bs {
		held += o.obs
	}
	if err := env.Hold(held); err != nil {
		fmt.Fprintf(env.Stderr, "dd: memory exhausted by input buffer of size %d bytes (%s)\n", o.ibs, humanIEC(o.ibs))
		return 1
	}
	defer env.Release(held)

	in, closeIn, err := ddInput(env, o)
	if err != nil {
		env.Errorf("dd", "failed to open %s: %s", quoteaf(env, o.in), Strerror(err))
		return 1
	}
	defer closeIn()
	out, outFile, err := ddOutput(env, o)
	if err != nil {
		env.Errorf("dd", "failed to open %s: %s", quoteaf(env, o.out), Strerror(err))
		return 1
	}
	if outFile != nil {
		defer outFile.Close()
	}
	c := &ddCopy{env: env, o: o, in: in, out: out, start: time.Now()}
	status := c.run()
	if outFile != nil && status == 0 && (o.conv["fsync"] || o.conv["fdatasync"]) {
		if err := outFile.Sync(); err != nil {
			env.Errorf("dd", "fsync failed for %s: %s", quoteaf(env, o.out), Strerror(err))
			status = 1
		}
	}
	c.stats()
	return status
}

// ddParse reads dd's operands, reporting a bad one as GNU does.
func ddParse(env *Env, args []string) (ddOpts, bool) {
	o := ddOpts{ibs: 512, obs: 512, conv: map[string]bool{}, iflag: map[string]bool{}, oflag: map[string]bool{}}
	var bs int64
	try := func() {
		fmt.Fprintf(env.Stderr, "Try 'dd --help' for more information.\n")
	}
	for _, a := range args {
		if a == "--" {
			continue
		}
		key, val, found := strings.Cut(a, "=")
		if !found {
			env.Errorf("dd", "unrecognized operand %s", quote(env, a))
			try()
			return o, false
		}
		number := func(min int64) (int64, bool) {
			n, ok, overflow := ddNumber(val)
			switch {
			case overflow:
				env.Errorf("dd", "invalid number: %s: %s", quote(env, val), Strerror(syscall.EOVERFLOW))
				return 0, false
			case !ok || n < min:
				env.Errorf("dd", "invalid number: %s", quote(env, val))
				return 0, false
			}
			return n, true
		}
		flags := func(set map[string]bool, known []string, what string) bool {
			for _, f := range strings.Split(val, ",") {
				if !slices.Contains(known, f) {
					env.Errorf("dd", "invalid %s: %s", what, quote(env, f))
					try()
					return false
				}
				set[f] = true
			}
			return true
		}
		var ok bool
		switch key {
		case "if":
			o.in, ok = val, true
		case "of":
			o.out, ok = val, true
		case "bs":
			bs, ok = number(1)
		case "ibs":
			o.ibs, ok = number(1)
		case "obs":
			o.obs, ok = number(1)
		case "count":
			o.count, ok = number(0)
			o.countSet = true
		case "skip", "iseek":
			o.skip, ok = number(0)
		case "seek", "oseek":
			o.seek, ok = number(0)
		case "conv":
			ok = flags(o.conv, ddConvs, "conversion")
		case "iflag":
			ok = flags(o.iflag, ddIFlags, "input flag")
		case "oflag":
			ok = flags(o.oflag, ddOFlags, "output flag")
		case "status":
			switch val {
			case "none", "noxfer", "progress", "":
				o.status, ok = val, true
			default:
				env.Errorf("dd", "invalid status level: %s", quote(env, val))
				try()
				return o, false
			}
		default:
			env.Errorf("dd", "unrecognized operand %s", quote(env, a))
			try()
			return o, false
		}
		if !ok {
			return o, false
		}
	}
	for _, c := range []string{"ascii", "ebcdic", "ibm", "block", "unblock", "sparse"} {
		if o.conv[c] {
			env.Errorf("dd", "conv=%s is not supported by the shell backend", c)
			return o, false
		}
	}
	switch {
	case o.conv["lcase"] && o.conv["ucase"]:
		env.Errorf("dd", "cannot combine lcase and ucase")
		return o, false
	case o.conv["excl"] && o.conv["nocreat"]:
		env.Errorf("dd", "cannot combine excl and nocreat")
		return o, false
	}
	if bs > 0 {
		o.ibs, o.obs, o.bs = bs, bs, true
	}
	o.countBytes, o.skipBytes, o.seekBytes = o.iflag["count_bytes"], o.iflag["skip_bytes"], o.oflag["seek_bytes"]
	return o, true
}

// ddNumber parses a dd size: factors joined by 'x', each digits with an
// optional multiplier (c w b, kB=1000 K=KiB=1024, MB M MiB, ... up to Q).
// overflow: a well-formed number past the int64 range.
func ddNumber(s string) (n int64, ok, overflow bool) {
	prod := uint64(1)
	for _, f := range strings.Split(s, "x") {
		n, ok, over := ddFactor(f)
		if !ok {
			return 0, false, false
		}
		hi, lo := bits.Mul64(prod, n)
		overflow = overflow || over || hi != 0 || lo > math.MaxInt64
		prod = lo
	}
	if overflow {
		return 0, false, true
	}
	return int64(prod), true, false
}

// ddFactor parses one factor of ddNumber.
func ddFactor(s string) (n uint64, ok, overflow bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false, false
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		overflow = true
	}
	suf := s[i:]
	mult := uint64(1)
	switch suf {
	case "", "c":
	case "w":
		mult = 2
	case "b":
		mult = 512
	default:
		// k and K are both 1024; then M G T P E Z Y R Q; a B after the
		// letter makes it a power of 1000, iB a power of 1024.
		p := strings.IndexByte("KMGTPEZYRQ", suf[0])
		if suf[0] == 'k' {
			p = 0
		}
		if p < 0 {
			return 0, false, false
		}
		base := uint64(1024)
		switch suf[1:] {
		case "", "iB":
		case "B":
			base = 1000
		default:
			return 0, false, false
		}
		for range p + 1 {
			hi, lo := bits.Mul64(mult, base)
			overflow = overflow || hi != 0
			mult = lo
		}
	}
	hi, lo := bits.Mul64(n, mult)
	return lo, true, overflow || hi != 0
}

// ddInput opens if= (stdin without one) and skips skip= blocks.
func ddInput(env *Env, o ddOpts) (io.Reader, func(), error) {
	var r io.Reader = ctxReader{env, env.Stdin}
	closer := func() {}
	var f *vfs.File
	switch name := o.in; {
	case name == "" || name == "-" || env.Abs(name) == "/dev/stdin" || env.Abs(name) == "/dev/fd/0":
	case env.Abs(name) == "/dev/null":
		r = strings.NewReader("")
	default:
		h, err := env.FS.Open(env.Ctx, env.Abs(name))
		if err != nil {
			return nil, nil, err
		}
		f, r, closer = h, ctxReader{env, h}, func() { h.Close() }
	}
	skip := o.skip
	if !o.skipBytes {
		skip *= o.ibs
	}
	if skip == 0 {
		return r, closer, nil
	}
	if f != nil {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			if skip > st.Size() {
				env.Errorf("dd", "%s: cannot skip to specified offset", quotef(env, o.in))
				skip = st.Size()
			}
			if _, err := f.Seek(skip, io.SeekStart); err != nil {
				closer()
				return nil, nil, err
			}
			return r, closer, nil
		}
	}
	n, err := io.CopyN(io.Discard, r, skip)
	if err != nil && n < skip && !errors.Is(err, io.EOF) {
		closer()
		return nil, nil, err
	}
	if n < skip {
		name := o.in
		if name == "" {
			name = "standard input"
		}
		env.Errorf("dd", "%s: cannot skip to specified offset", quotef(env, name))
	}
	return r, closer, nil
}

// ddOutput opens of= (stdout without one), truncated at seek= unless
// conv=notrunc, positioned at seek=.
func ddOutput(env *Env, o ddOpts) (io.Writer, *vfs.File, error) {
	seek := o.seek
	if !o.seekBytes {
		seek *= o.obs
	}
	var w io.Writer
	switch name := o.out; {
	case name == "" || env.Abs(name) == "/dev/stdout" || env.Abs(name) == "/dev/fd/1":
		w = env.Stdout
	case env.Abs(name) == "/dev/stderr" || env.Abs(name) == "/dev/fd/2":
		w = env.Stderr
	case env.Abs(name) == "/dev/null":
		return io.Discard, nil, nil
	default:
		flag := os.O_WRONLY | os.O_CREATE
		if o.conv["excl"] {
			flag |= os.O_EXCL
		}
		if o.conv["nocreat"] {
			flag &^= os.O_CREATE
		}
		if o.oflag["append"] {
			flag |= os.O_APPEND
		}
		h, err := env.FS.OpenFile(env.Ctx, env.Abs(name), flag, 0o666&^fuUmask)
		if err != nil {
			return nil, nil, err
		}
		if !o.conv["notrunc"] && !o.oflag["append"] {
			if st, err := h.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > seek {
				if err := h.Truncate(seek); err != nil {
					h.Close()
					return nil, nil, err
				}
			}
		}
		if seek > 0 && !o.oflag["append"] {
			if _, err := h.Seek(seek, io.SeekStart); err != nil {
				h.Close()
				return nil, nil, err
			}
		}
		return h, h, nil
	}
	// A stream cannot seek: seek= writes zeros, as GNU does when lseek fails.
	if seek > 0 {
		if _, err := io.CopyN(w, zeroes{}, seek); err != nil {
			return nil, nil, err
		}
	}
	return w, nil, nil
}

// zeroes reads as an endless run of NUL bytes.
type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// ddCopy is one dd run's copy and its counts.
type ddCopy struct {
	env                      *Env
	o                        ddOpts
	in                       io.Reader
	out                      io.Writer
	start                    time.Time
	fullIn, partIn           int64
	fullOut, partOut, copied int64
}

// run copies until the input ends or count= is reached; its exit status.
func (c *ddCopy) run() int {
	o := c.o
	ibuf := make([]byte, o.ibs)
	var obuf []byte
	if !o.bs {
		obuf = make([]byte, 0, o.obs)
	}
	var inBytes int64
	for {
		if c.env.Canceled() {
			return 1
		}
		want := o.ibs
		if o.countSet {
			if o.countBytes {
				want = min(want, o.count-inBytes)
			} else if c.fullIn+c.partIn >= o.count {
				break
			}
			if want <= 0 {
				break
			}
		}
		var n int
		var err error
		if o.iflag["fullblock"] {
			n, err = io.ReadFull(c.in, ibuf[:want])
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
		} else {
			n, err = c.in.Read(ibuf[:want])
		}
		if n > 0 {
			inBytes += int64(n)
			if int64(n) == o.ibs {
				c.fullIn++
			} else {
				c.partIn++
			}
			block := ibuf[:n]
			if o.conv["sync"] && int64(n) < o.ibs {
				clear(ibuf[n:])
				block = ibuf[:o.ibs]
			}
			ddConvert(block, o.conv)
			if werr := c.write(block, &obuf); werr != nil {
				c.env.Errorf("dd", "error writing %s: %s", c.outName(), Strerror(werr))
				return 1
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			if c.env.Canceled() {
				return 1
			}
			c.env.Errorf("dd", "error reading %s: %s", c.inName(), Strerror(err))
			if !o.conv["noerror"] || n == 0 {
				// conv=noerror goes on after a read that returned data;
				// a read that failed with nothing cannot be skipped past
				// here (GNU seeks over the bad block), so it ends the copy.
				c.flush(&obuf)
				return 1
			}
		}
		if n == 0 && err == nil {
			continue
		}
	}
	if err := c.flush(&obuf); err != nil {
		c.env.Errorf("dd", "error writing %s: %s", c.outName(), Strerror(err))
		return 1
	}
	return 0
}

// write sends a block out: as it is with bs=, else through obuf in obs
// blocks.
func (c *ddCopy) write(block []byte, obuf *[]byte) error {
	if c.o.bs {
		return c.emit(block)
	}
	for len(block) > 0 {
		k := min(len(block), int(c.o.obs)-len(*obuf))
		*obuf = append(*obuf, block[:k]...)
		block = block[k:]
		if int64(len(*obuf)) == c.o.obs {
			if err := c.emit(*obuf); err != nil {
				return err
			}
			*obuf = (*obuf)[:0]
		}
	}
	return nil
}

// flush writes what obuf still holds.
func (c *ddCopy) flush(obuf *[]byte) error {
	if len(*obuf) == 0 {
		return nil
	}
	err := c.emit(*obuf)
	*obuf = (*obuf)[:0]
	return err
}

// emit writes one output record.
func (c *ddCopy) emit(b []byte) error {
	n, err := c.out.Write(b)
	c.copied += int64(n)
	if err != nil {
		if n > 0 {
			c.partOut++
		}
		return err
	}
	if int64(n) == c.o.obs {
		c.fullOut++
	} else {
		c.partOut++
	}
	return nil
}

func (c *ddCopy) inName() string {
	if c.o.in == "" {
		return "'standard input'"
	}
	return quoteaf(c.env, c.o.in)
}

func (c *ddCopy) outName() string {
	if c.o.out == "" {
		return "'standard output'"
	}
	return quoteaf(c.env, c.o.out)
}

// ddConvert applies conv=swab, lcase and ucase to b in place.
func ddConvert(b []byte, conv map[string]bool) {
	if conv["swab"] {
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	}
	switch {
	case conv["lcase"]:
		for i, x := range b {
			if 'A' <= x && x <= 'Z' {
				b[i] = x + 'a' - 'A'
			}
		}
	case conv["ucase"]:
		for i, x := range b {
			if 'a' <= x && x <= 'z' {
				b[i] = x - 'a' + 'A'
			}
		}
	}
}

// stats prints GNU dd's statistics to stderr, as status= asks.
func (c *ddCopy) stats() {
	if c.o.status == "none" {
		return
	}
	w := c.env.Stderr
	fmt.Fprintf(w, "%d+%d records in\n%d+%d records out\n", c.fullIn, c.partIn, c.fullOut, c.partOut)
	if c.o.status == "noxfer" {
		return
	}
	secs := time.Since(c.start).Seconds()
	rate := "Infinity B/s"
	if secs > 0 {
		rate = ddRate(float64(c.copied)/secs) + "/s"
	}
	t := strconv.FormatFloat(secs, 'g', 6, 64) + " s"
	fmt.Fprintf(w, "%s copied, %s, %s\n", ddSizeText(c.copied), t, rate)
}

// ddSizeText is how dd's statistics say n bytes: "1 byte", "N bytes", and
// the sizes with units where they have a prefix ("N bytes (3.9 kB, 3.8
// KiB)").
func ddSizeText(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1000: // no prefix in either unit
		return fmt.Sprintf("%d bytes", n)
	case n < 1024: // a prefix in powers of 1000 only
		return fmt.Sprintf("%d bytes (%s)", n, humanSI(n))
	}
	return fmt.Sprintf("%d bytes (%s, %s)", n, humanSI(n), humanIEC(n))
}

// humanSI and humanIEC render n bytes as gnulib's human_readable does
// with human_autoscale, human_round_to_nearest, human_space_before_unit,
// human_SI and human_B, in powers of 1000 ("3.9 kB") and 1024 ("3.8 KiB").
func humanSI(n int64) string  { return humanRound(uint64(n), 1000) }
func humanIEC(n int64) string { return humanRound(uint64(n), 1024) }

// humanRound is gnulib's human_readable's exact (integer) branch with
// autoscale and round-to-nearest (ties to even): one decimal below 10.
func humanRound(amount, base uint64) string {
	const prefixes = "KMGTPEZYRQ"
	tenths, rounding := uint64(0), uint64(0)
	exponent := 0
	point := ""
	if base <= amount {
		for {
			r10 := (amount%base)*10 + tenths
			r2 := (r10%base)*2 + (rounding >> 1)
			amount /= base
			tenths = r10 / base
			switch {
			case r2 < base:
				rounding = 0
				if r2 != 0 {
					rounding = 1
				}
			case r2 == base:
				rounding = 2
			default:
				rounding = 3
			}
			exponent++
			if amount < base || exponent >= len(prefixes) {
				break
			}
		}
		if amount < 10 {
			if 2 < rounding+(tenths&1) {
				tenths++
				rounding = 0
				if tenths == 10 {
					amount++
					tenths = 0
				}
			}
			if amount < 10 {
				point = "." + strconv.FormatUint(tenths, 10)
				tenths, rounding = 0, 0
			}
		}
	}
	// round to nearest, ties to even: 5 < tenths + (0 < rounding + (amount & 1))
	up := uint64(0)
	if rounding+(amount&1) > 0 {
		up = 1
	}
	if 5 < tenths+up {
		amount++
		if amount == base && exponent < len(prefixes) {
			exponent++
			point = ".0"
			amount = 1
		}
	}
	unit := "B"
	if exponent > 0 {
		p := string(prefixes[exponent-1])
		if base == 1000 {
			if p == "K" {
				p = "k"
			}
			unit = p + "B"
		} else {
			unit = p + "iB"
		}
	}
	return strconv.FormatUint(amount, 10) + point + " " + unit
}

// ddRate renders a rate in bytes a second as GNU dd does (gnulib's
// human_readable's floating branch, powers of 1000, at least kB): one
// decimal when that gives at most four characters.
func ddRate(v float64) string {
	const prefixes = "kMGTPEZYRQ"
	e := 1000.0
	exp := 1
	for e*1000 <= v && exp < len(prefixes) {
		e *= 1000
		exp++
	}
	v /= e
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if len(s) > 4 {
		s = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return s + " " + string(prefixes[exp-1]) + "B"
}

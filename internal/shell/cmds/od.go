package cmds

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

func init() { Register("od", Od) }

// Od dumps files (concatenated; stdin when there are none, or for "-") as GNU
// od does, byte for byte: -t TYPE with a, c, d[SIZE], o[SIZE], u[SIZE],
// x[SIZE] (SIZE a byte count or C, S, I, L) and f[SIZE] (4, 8, 16 or F, D,
// L: long double is x87 80-bit, as on amd64), each with an optional z suffix
// (a printable-characters trailer); the traditional -a -b -c -d -f -i -l -o
// -s -x (and the undocumented aliases); -A {d,o,x,n}, -j, -N (with GNU's
// multiplier suffixes and 0x/0 prefixes), -v (otherwise runs of identical
// lines collapse to '*'), -w[N], -S[N] strings, --endian, and the obsolete
// offset operands (od FILE +OFFSET, --traditional with a label). Input is
// streamed: only two output lines' worth of bytes are held.
func Od(env *Env, args []string) int {
	opts, operands, ok := parseOpts(env, "od", args[1:], optSpec{
		shorts: "A:aBbcDdeFfHhIij:LlN:OoS:st:vw::Xx",
		longs: []string{"skip-bytes=", "address-radix=", "read-bytes=", "format=",
			"output-duplicates", "strings=?", "traditional", "width=?", "endian="},
	})
	if !ok {
		return 1
	}
	d := &odDump{env: env, addrBase: 8, addrPad: 7, abbreviate: true}
	addrMode := odAddrStd
	modern, traditional, widthSet := false, false, false
	var width uint64
	okFormats := true
	aliases := map[string]string{
		"a": "a", "b": "o1", "c": "c", "D": "u4", "d": "u2", "F": "fD", "e": "fD",
		"f": "fF", "X": "x4", "H": "x4", "i": "dI", "I": "dL", "L": "dL", "l": "dL",
		"O": "o4", "B": "o2", "o": "o2", "s": "d2", "h": "x2", "x": "x2",
	}
	for _, o := range opts {
		switch o.name {
		case "A", "address-radix":
			modern = true
			var c byte
			if o.val != "" {
				c = o.val[0]
			}
			switch c {
			case 'd':
				addrMode, d.addrBase, d.addrPad = odAddrStd, 10, 7
			case 'o':
				addrMode, d.addrBase, d.addrPad = odAddrStd, 8, 7
			case 'x':
				addrMode, d.addrBase, d.addrPad = odAddrStd, 16, 6
			case 'n':
				addrMode, d.addrPad = odAddrNone, 0
			default:
				env.Errorf("od", "invalid output address radix '%c'; it must be one character from [doxn]", c)
				return 1
			}
		case "j", "skip-bytes", "N", "read-bytes", "S", "strings":
			modern = true
			val := o.val
			if o.name == "strings" && val == "" {
				d.stringMin, d.strings = 3, true
				continue
			}
			n, e := spStrtoumax(val, 0, "bEGKkMmPTYZ0")
			if e != spOK {
				odNumFatal(env, e, o.name, val)
				return 1
			}
			switch o.name {
			case "j", "skip-bytes":
				d.skip = n
			case "N", "read-bytes":
				d.limit, d.maxBytes = true, n
			default:
				if n > math.MaxInt32 {
					env.Errorf("od", "%s is too large", quote(env, val))
					return 1
				}
				d.stringMin, d.strings = int(n), true
			}
		case "t", "format":
			modern = true
			if !d.decodeFormats(o.val) {
				okFormats = false
			}
		case "v", "output-duplicates":
			modern = true
			d.abbreviate = false
		case "traditional":
			traditional = true
		case "endian":
			switch {
			case o.val != "" && strings.HasPrefix("little", o.val):
				d.bigEndian = false
			case o.val != "" && strings.HasPrefix("big", o.val):
				d.bigEndian = true
			default:
				env.Errorf("od", "invalid argument %s for %s", quote(env, o.val), quote(env, "--endian"))
				fmt.Fprintf(env.Stderr, "Valid arguments are:\n  - %s\n  - %s\n", quote(env, "little"), quote(env, "big"))
				tryHelp(env, "od", "")
				return 1
			}
		case "w", "width":
			modern, widthSet = true, true
			if o.val == "" {
				width = 32
				continue
			}
			n, e := spStrtoumax(o.val, 10, "")
			if e != spOK {
				odNumFatal(env, e, o.name, o.val)
				return 1
			}
			if n > math.MaxInt32 {
				env.Errorf("od", "%s is too large", quote(env, o.val))
				return 1
			}
			width = n
		default:
			if !d.decodeFormats(aliases[o.name]) {
				okFormats = false
			}
		}
	}
	if !okFormats {
		return 1
	}
	if d.strings && len(d.specs) > 0 {
		env.Errorf("od", "no type may be specified when dumping strings")
		return 1
	}
	var pseudoStart uint64
	pseudo := false
	if !modern || traditional {
		switch len(operands) {
		case 1:
			if o1, ok := odOldOffset(operands[0]); ok && (traditional || operands[0][0] == '+') {
				d.skip = o1
				operands = nil
			}
		case 2:
			c := operands[1][0]
			if o2, ok := odOldOffset(operands[1]); ok && (traditional || c == '+' || c >= '0' && c <= '9') {
				if o1, ok1 := odOldOffset(operands[0]); traditional && ok1 {
					d.skip, pseudoStart, pseudo = o1, o2, true
					operands = nil
				} else {
					d.skip = o2
					operands = operands[:1]
				}
			}
		case 3:
			o1, ok1 := odOldOffset(operands[1])
			o2, ok2 := odOldOffset(operands[2])
			if traditional && ok1 && ok2 {
				d.skip, pseudoStart, pseudo = o1, o2, true
				operands = operands[:1]
			}
		}
		if traditional && len(operands) > 1 {
			env.Errorf("od", "extra operand %s", quote(env, operands[1]))
			env.Errorf("od", "compatibility mode supports at most one file")
			tryHelp(env, "od", "")
			return 1
		}
	}
	if pseudo {
		if addrMode == odAddrNone {
			d.addrBase, d.addrPad = 8, 7
			addrMode = odAddrParen
		} else {
			addrMode = odAddrLabel
		}
	}
	d.addrMode = addrMode
	if d.limit {
		d.end = d.skip + d.maxBytes
		if d.end < d.skip {
			env.Errorf("od", "skip-bytes + read-bytes is too large")
			return 1
		}
	}
	if len(d.specs) == 0 {
		d.decodeFormats("oS")
	}
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	d.w = bufio.NewWriterSize(env.Stdout, 4096)
	defer d.w.Flush()
	in := &odInput{env: env, names: operands, ok: true}
	d.in = in
	if !in.openNext() {
		return 1
	}
	if !d.skipBytes() {
		return 1
	}
	if pseudo {
		d.pseudoOffset = pseudoStart - d.skip
	}
	lcm := 1
	for _, s := range d.specs {
		lcm = odLCM(lcm, s.size)
	}
	switch {
	case widthSet && width != 0 && width%uint64(lcm) == 0:
		d.perBlock = int(width)
	case widthSet:
		env.Errorf("od", "warning: invalid width %d; using %d instead", width, lcm)
		d.perBlock = lcm
	case lcm < 16:
		d.perBlock = lcm * (16 / lcm)
	default:
		d.perBlock = lcm
	}
	if max := env.Limits.MaxReadBytes; max > 0 && int64(d.perBlock)*2 > max {
		env.Errorf("od", "%s", ErrTooLarge)
		return 1
	}
	widthPerBlock := 0
	for _, s := range d.specs {
		fields := d.perBlock / s.size
		if w := (s.width + 1) * fields; w > widthPerBlock {
			widthPerBlock = w
		}
	}
	for i := range d.specs {
		fields := d.perBlock / d.specs[i].size
		d.specs[i].pad = widthPerBlock - d.specs[i].width*fields
	}
	if d.strings {
		d.dumpStrings()
	} else {
		d.dump()
	}
	if env.Canceled() || !in.ok {
		return 1
	}
	return 0
}

// Address formats of od.
const (
	odAddrStd   = iota // the offset in the radix of -A
	odAddrNone         // -A n
	odAddrParen        // --traditional label with -A n: "(label)"
	odAddrLabel        // --traditional label: "offset (label)"
)

// odSpec is one output format of -t.
type odSpec struct {
	fmt   byte // 'd', 'o', 'u', 'x', 'f', 'a' or 'c'
	size  int  // bytes per datum
	width int  // minimum width of a field, without its leading space
	pad   int  // total padding spread over the fields of a line
	z     bool // print the >...< trailer of printable characters
}

// odDump is one run of od.
type odDump struct {
	env          *Env
	w            *bufio.Writer
	in           *odInput
	specs        []odSpec
	addrMode     int
	addrBase     int
	addrPad      int
	pseudoOffset uint64
	skip         uint64
	limit        bool
	maxBytes     uint64
	end          uint64
	abbreviate   bool
	bigEndian    bool
	strings      bool
	stringMin    int
	perBlock     int
	// duplicate-line state
	first, prevEqual bool
}

// Field widths of the integer formats, indexed by the datum size in bytes.
var (
	odOctDigits    = [9]int{0, 3, 6, 8, 11, 14, 16, 19, 22}
	odSignedDigits = [9]int{1, 4, 6, 8, 11, 13, 16, 18, 20}
	odUnsignDigits = [9]int{0, 3, 5, 8, 10, 13, 15, 17, 20}
)

// decodeFormats parses a -t argument ("x1z", "d4u2", "c") and appends its
// formats; on error it prints GNU's diagnostic and returns false.
func (d *odDump) decodeFormats(arg string) bool {
	s := arg
	for s != "" {
		var sp odSpec
		c := s[0]
		s = s[1:]
		switch c {
		case 'd', 'o', 'u', 'x':
			sp.fmt = c
			size := 4
			if s != "" && strings.IndexByte("CSIL", s[0]) >= 0 {
				size = map[byte]int{'C': 1, 'S': 2, 'I': 4, 'L': 8}[s[0]]
				s = s[1:]
			} else if n, rest, ok := odDigits(s); !ok {
				d.env.Errorf("od", "invalid type string %s", quote(d.env, arg))
				return false
			} else if len(rest) < len(s) {
				if n != 1 && n != 2 && n != 4 && n != 8 {
					d.env.Errorf("od", "invalid type string %s;\nthis system doesn't provide a %d-byte integral type", quote(d.env, arg), n)
					return false
				}
				size, s = int(n), rest
			}
			sp.size = size
			switch c {
			case 'd':
				sp.width = odSignedDigits[size]
			case 'o':
				sp.width = odOctDigits[size]
			case 'u':
				sp.width = odUnsignDigits[size]
			case 'x':
				sp.width = 2 * size
			}
		case 'f':
			sp.fmt = 'f'
			size := 8
			if s != "" && strings.IndexByte("FDL", s[0]) >= 0 {
				size = map[byte]int{'F': 4, 'D': 8, 'L': 16}[s[0]]
				s = s[1:]
			} else if n, rest, ok := odDigits(s); !ok {
				d.env.Errorf("od", "invalid type string %s", quote(d.env, arg))
				return false
			} else if len(rest) < len(s) {
				if n != 4 && n != 8 && n != 16 {
					d.env.Errorf("od", "invalid type string %s;\nthis system doesn't provide a %d-byte floating point type", quote(d.env, arg), n)
					return false
				}
				size, s = int(n), rest
			}
			sp.size = size
			sp.width = map[int]int{4: 15, 8: 24, 16: 29}[size]
		case 'a', 'c':
			sp.fmt, sp.size, sp.width = c, 1, 3
		default:
			d.env.Errorf("od", "invalid character '%c' in type string %s", c, quote(d.env, arg))
			return false
		}
		if s != "" && s[0] == 'z' {
			sp.z = true
			s = s[1:]
		}
		d.specs = append(d.specs, sp)
	}
	return true
}

// odDigits reads a decimal size at the start of s; ok is false when it
// overflows.
func odDigits(s string) (uint64, string, bool) {
	var n uint64
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, s, false
		}
		n = n*10 + d
		i++
	}
	return n, s[i:], true
}

// odNumFatal prints gnulib's xstrtol_fatal diagnostic for a bad numeric
// option argument.
func odNumFatal(env *Env, e spErr, name, val string) {
	opt := "-" + name
	if len(name) > 1 {
		opt = "--" + name
	}
	switch e {
	case spInvalid:
		env.Errorf("od", "invalid %s argument '%s'", opt, val)
	case spOverflow:
		env.Errorf("od", "%s argument '%s' too large", opt, val)
	default:
		env.Errorf("od", "invalid suffix in %s argument '%s'", opt, val)
	}
}

// odOldOffset parses a traditional offset operand: [+]OFFSET[.][b], octal
// unless it has a '.' (decimal) or a 0x prefix (hexadecimal).
func odOldOffset(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	s = strings.TrimPrefix(s, "+")
	base := 8
	switch {
	case strings.Contains(s, "."):
		base = 10
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base = 16
	}
	n, e := spStrtoumax(s, base, "Bb")
	return n, e == spOK
}

func odLCM(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// odInput reads the concatenation of od's operands, reporting files that
// cannot be opened or read and going on with the next, as GNU od does.
type odInput struct {
	env   *Env
	names []string
	next  int
	r     io.ReadCloser
	name  string
	ok    bool // no open or read error so far
}

// openNext opens the next operand that can be opened; false at the end.
func (in *odInput) openNext() bool {
	in.r = nil
	for in.next < len(in.names) {
		n := in.names[in.next]
		in.next++
		r, err := openArg(in.env, n)
		if err != nil {
			in.env.PathError("od", quotef(in.env, n), err)
			in.ok = false
			continue
		}
		in.r, in.name = r, n
		if n == "-" {
			in.name = "standard input"
		}
		return true
	}
	return false
}

// Read fills p from the concatenated input; it returns fewer bytes than
// len(p) only at the end of the last file (io.EOF when none).
func (in *odInput) Read(p []byte) (int, error) {
	n := 0
	for in.r != nil && n < len(p) {
		m, err := io.ReadFull(in.r, p[n:])
		n += m
		if err == nil {
			break
		}
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			if isCanceled(in.env, err) {
				in.r.Close()
				in.r = nil
				in.ok = false
				break
			}
			in.env.PathError("od", quotef(in.env, in.name), err)
			in.ok = false
		}
		in.r.Close()
		in.openNext()
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// skipBytes discards -j bytes; past the end of the input it is fatal.
func (d *odDump) skipBytes() bool {
	buf := make([]byte, 32<<10)
	left := d.skip
	for left > 0 {
		want := uint64(len(buf))
		if left < want {
			want = left
		}
		n, _ := d.in.Read(buf[:want])
		left -= uint64(n)
		if uint64(n) < want {
			break
		}
	}
	if d.env.Canceled() {
		return false
	}
	if left > 0 {
		d.env.Errorf("od", "cannot skip past end of combined input")
		return false
	}
	return true
}

// address writes an offset as -A (and --traditional) ask; c follows it
// unless 0.
func (d *odDump) address(a uint64, c byte) {
	switch d.addrMode {
	case odAddrNone:
	case odAddrStd:
		d.stdAddress(a, c)
	case odAddrParen:
		d.w.WriteByte('(')
		d.stdAddress(a, ')')
		if c != 0 {
			d.w.WriteByte(c)
		}
	case odAddrLabel:
		d.stdAddress(a, ' ')
		d.w.WriteByte('(')
		d.stdAddress(a+d.pseudoOffset, ')')
		if c != 0 {
			d.w.WriteByte(c)
		}
	}
}

func (d *odDump) stdAddress(a uint64, c byte) {
	s := strconv.FormatUint(a, d.addrBase)
	for i := len(s); i < d.addrPad; i++ {
		d.w.WriteByte('0')
	}
	d.w.WriteString(s)
	if c != 0 {
		d.w.WriteByte(c)
	}
}

// dump formats the input a line (perBlock bytes) at a time.
func (d *odDump) dump() {
	blocks := [2][]byte{make([]byte, d.perBlock), make([]byte, d.perBlock)}
	idx := 0
	offset := d.skip
	n := 0
	d.first = true
	for {
		if d.env.Canceled() {
			return
		}
		need := d.perBlock
		if d.limit {
			if offset >= d.end {
				n = 0
				break
			}
			if left := d.end - offset; left < uint64(need) {
				need = int(left)
			}
		}
		n, _ = d.in.Read(blocks[idx][:need])
		if n < d.perBlock {
			break
		}
		d.writeBlock(offset, n, blocks[1-idx], blocks[idx])
		offset += uint64(n)
		idx = 1 - idx
	}
	if n > 0 {
		lcm := 1
		for _, s := range d.specs {
			lcm = odLCM(lcm, s.size)
		}
		padded := (n + lcm - 1) / lcm * lcm
		for i := n; i < padded && i < len(blocks[idx]); i++ {
			blocks[idx][i] = 0
		}
		d.writeBlock(offset, n, blocks[1-idx], blocks[idx])
		offset += uint64(n)
	}
	d.address(offset, '\n')
}

// writeBlock prints one line per format for the n bytes of cur, or '*' for
// a repeat of the previous full line.
func (d *odDump) writeBlock(offset uint64, n int, prev, cur []byte) {
	if d.abbreviate && !d.first && n == d.perBlock && bytes.Equal(prev, cur) {
		if !d.prevEqual {
			d.w.WriteString("*\n")
			d.prevEqual = true
		}
		d.first = false
		return
	}
	d.prevEqual = false
	d.first = false
	var scratch []byte
	for i, s := range d.specs {
		fields := d.perBlock / s.size
		blank := (d.perBlock - n) / s.size
		if i == 0 {
			d.address(offset, 0)
		} else {
			for j := 0; j < d.addrPad; j++ {
				d.w.WriteByte(' ')
			}
		}
		padLeft := s.pad
		for f := fields; f > blank; f-- {
			next := s.pad * (f - 1) / fields
			w := padLeft - next + s.width
			k := fields - f
			scratch = d.field(scratch[:0], s, cur[k*s.size:(k+1)*s.size])
			for j := len(scratch); j < w; j++ {
				d.w.WriteByte(' ')
			}
			d.w.Write(scratch)
			padLeft = next
		}
		if s.z {
			for j := blank*s.width + s.pad*blank/fields; j > 0; j-- {
				d.w.WriteByte(' ')
			}
			d.w.WriteString("  >")
			for _, c := range cur[:n] {
				if c < 0x20 || c > 0x7e {
					c = '.'
				}
				d.w.WriteByte(c)
			}
			d.w.WriteByte('<')
		}
		d.w.WriteByte('\n')
	}
}

// odCharNames names the control characters for -t a.
var odCharNames = [33]string{
	"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel",
	"bs", "ht", "nl", "vt", "ff", "cr", "so", "si",
	"dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb",
	"can", "em", "sub", "esc", "fs", "gs", "rs", "us", "sp",
}

// field renders one datum (without padding).
func (d *odDump) field(b []byte, s odSpec, data []byte) []byte {
	switch s.fmt {
	case 'a':
		c := data[0] & 0x7f
		switch {
		case c == 127:
			return append(b, "del"...)
		case c <= 32:
			return append(b, odCharNames[c]...)
		}
		return append(b, c)
	case 'c':
		c := data[0]
		switch c {
		case 0:
			return append(b, `\0`...)
		case '\a':
			return append(b, `\a`...)
		case '\b':
			return append(b, `\b`...)
		case '\f':
			return append(b, `\f`...)
		case '\n':
			return append(b, `\n`...)
		case '\r':
			return append(b, `\r`...)
		case '\t':
			return append(b, `\t`...)
		case '\v':
			return append(b, `\v`...)
		}
		if c >= 0x20 && c < 0x7f {
			return append(b, c)
		}
		return append(b, '0'+c>>6, '0'+c>>3&7, '0'+c&7)
	case 'f':
		return append(b, odFloat(data, d.bigEndian)...)
	}
	var u uint64
	if d.bigEndian {
		for _, c := range data {
			u = u<<8 | uint64(c)
		}
	} else {
		for i := len(data) - 1; i >= 0; i-- {
			u = u<<8 | uint64(data[i])
		}
	}
	switch s.fmt {
	case 'd':
		shift := 64 - 8*uint(len(data))
		return strconv.AppendInt(b, int64(u<<shift)>>shift, 10)
	case 'u':
		return strconv.AppendUint(b, u, 10)
	}
	base, digits := 8, odOctDigits[len(data)]
	if s.fmt == 'x' {
		base, digits = 16, 2*len(data)
	}
	num := strconv.FormatUint(u, base)
	for i := len(num); i < digits; i++ {
		b = append(b, '0')
	}
	return append(b, num...)
}

// odFloat renders a float as gnulib's ftoastr does: %g with the fewest
// digits (at least FLT_DIG, DBL_DIG or LDBL_DIG for normal numbers) that
// read back as the same value.
func odFloat(data []byte, bigEndian bool) string {
	buf := make([]byte, len(data))
	if bigEndian {
		for i := range data {
			buf[i] = data[len(data)-1-i]
		}
	} else {
		copy(buf, data)
	}
	switch len(buf) {
	case 4:
		f := math.Float32frombits(binary.LittleEndian.Uint32(buf))
		x := float64(f)
		if s, ok := odSpecial(x); ok {
			return s
		}
		start := 6
		if math.Abs(x) < 0x1p-126 {
			start = 1
		}
		for p := start; ; p++ {
			s := strconv.FormatFloat(x, 'e', p-1, 64)
			if back, err := strconv.ParseFloat(s, 32); p >= 9 || err == nil && float32(back) == f {
				return odG(s, p)
			}
		}
	case 8:
		x := math.Float64frombits(binary.LittleEndian.Uint64(buf))
		if s, ok := odSpecial(x); ok {
			return s
		}
		start := 15
		if math.Abs(x) < 0x1p-1022 {
			start = 1
		}
		for p := start; ; p++ {
			s := strconv.FormatFloat(x, 'e', p-1, 64)
			if back, err := strconv.ParseFloat(s, 64); p >= 17 || err == nil && back == x {
				return odG(s, p)
			}
		}
	}
	return odLongDouble(buf)
}

// odSpecial renders the values %g spells out: zeros, infinities and NaNs.
func odSpecial(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		if math.Signbit(x) {
			return "-nan", true
		}
		return "nan", true
	case math.IsInf(x, 1):
		return "inf", true
	case math.IsInf(x, -1):
		return "-inf", true
	case x == 0:
		if math.Signbit(x) {
			return "-0", true
		}
		return "0", true
	}
	return "", false
}

// odLongDouble renders an x87 80-bit extended float (the first ten bytes of
// a little-endian 16-byte long double).
func odLongDouble(b []byte) string {
	mant := binary.LittleEndian.Uint64(b[0:8])
	se := binary.LittleEndian.Uint16(b[8:10])
	neg := se&0x8000 != 0
	exp := int(se & 0x7fff)
	sign := ""
	if neg {
		sign = "-"
	}
	switch {
	case exp == 0x7fff:
		if mant<<1 == 0 {
			return sign + "inf"
		}
		return sign + "nan"
	case exp != 0 && mant>>63 == 0:
		return sign + "nan" // an unnormal: not a valid number
	case mant == 0:
		return sign + "0"
	}
	denormal := exp == 0
	pseudo := false
	e2 := exp - 16383 - 63
	if denormal {
		// glibc's printf reads a pseudo-denormal (integer bit set) without
		// its integer bit, while the FPU compares it with it: it never
		// reads back equal, so ldtoastr gives all 21 digits.
		pseudo = mant>>63 != 0
		mant &^= 1 << 63
		if mant == 0 {
			return sign + "0"
		}
		e2 = 1 - 16383 - 63
	}
	x := new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetPrec(64).SetUint64(mant), e2)
	if neg {
		x.Neg(x)
	}
	start := 18
	if denormal {
		start = 1
	}
	if pseudo {
		return odG(x.Text('e', 20), 21)
	}
	for p := start; ; p++ {
		s := x.Text('e', p-1)
		if p >= 21 || odLongRoundTrips(s, x, mant, denormal) {
			return odG(s, p)
		}
	}
}

// odLongRoundTrips reports whether the decimal s reads back as x (whose
// significand is mant) in the 80-bit format.
func odLongRoundTrips(s string, x *big.Float, mant uint64, denormal bool) bool {
	if !denormal {
		y, _, err := big.ParseFloat(s, 10, 64, big.ToNearestEven)
		return err == nil && y.Cmp(x) == 0
	}
	y, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
	if err != nil {
		return false
	}
	y.Abs(y)
	y.SetMantExp(y, 16382+63)
	y.Add(y, big.NewFloat(0.5))
	i, _ := y.Int(nil)
	return i.IsUint64() && i.Uint64() == mant
}

// odG turns s, a number in %e form with p significant digits, into what
// %.{p}g prints: fixed or exponent notation, trailing zeros removed.
func odG(s string, p int) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		digits = "0"
	}
	if exp < -4 || exp >= p {
		out := sign + digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		return out + "e" + es + e
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	if len(digits) <= exp+1 {
		return sign + digits + strings.Repeat("0", exp+1-len(digits))
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// dumpStrings is -S: each run of at least stringMin printable characters
// ended by a NUL, with its offset.
func (d *odDump) dumpStrings() {
	var src io.Reader = d.in
	if d.limit {
		// Read no further than -N: GNU opens no file past it.
		src = io.LimitReader(d.in, int64(min(d.end-d.skip, math.MaxInt64)))
	}
	br := bufio.NewReader(src)
	address := d.skip
	min := uint64(d.stringMin)
	var buf []byte
	isPrint := func(c byte) bool { return c >= 0x20 && c < 0x7f }
	for {
		if d.env.Canceled() {
			return
		}
		if d.limit && (d.end < min || d.end-min <= address) {
			return
		}
		buf = buf[:0]
		found := true
		for i := uint64(0); i < min; i++ {
			c, err := br.ReadByte()
			address++
			if err != nil {
				return
			}
			if !isPrint(c) {
				found = false
				break
			}
			buf = append(buf, c)
		}
		if !found {
			continue
		}
		// The string must end with a NUL (or at the -N limit, as GNU does).
		found = true
		for !d.limit || address < d.end {
			c, err := br.ReadByte()
			address++
			if err != nil {
				return
			}
			if c == 0 {
				break
			}
			if !isPrint(c) {
				found = false
				break
			}
			buf = append(buf, c)
			if max := d.env.Limits.MaxReadBytes; max > 0 && int64(len(buf)) > max {
				d.env.Errorf("od", "%s", ErrTooLarge)
				d.in.ok = false
				return
			}
		}
		if !found {
			continue
		}
		d.address(address-uint64(len(buf))-1, ' ')
		d.w.Write(buf)
		d.w.WriteByte('\n')
	}
}

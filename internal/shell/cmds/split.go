package cmds

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("split", Split) }

// Split writes pieces of FILE (stdin for "-" or none) to PREFIXaa, PREFIXab,
// ... (PREFIX defaults to x), as GNU split: -l N lines, -b SIZE bytes, -C
// SIZE bytes of whole lines, -n CHUNKS (N, K/N, l/N, l/K/N, r/N, r/K/N), the
// obsolete -N; -a suffix length, -d/-x and --numeric-suffixes[=FROM] /
// --hex-suffixes[=FROM], --additional-suffix, -e, -t SEP, --verbose, -u.
// Default suffixes widen as GNU's do (xyz is followed by xzaaa); past the
// last fixed-length suffix it fails with "output file suffixes exhausted",
// keeping the files written. Input is streamed; -n N, K/N and l/N refuse
// input that is not a regular file ("cannot determine file size"), as
// coreutils 9.1 does. --filter is not supported (it would run a shell per
// piece).
func Split(env *Env, args []string) (status int) {
	s := &splitter{env: env, alphabet: "abcdefghijklmnopqrstuvwxyz", eol: -1}
	s.out = bufio.NewWriterSize(env.Stdout, 32<<10)
	defer spFinish(&status, func() {
		s.abandon() // after a fatal error: keep what was written
		s.out.Flush()
	})
	longs := []string{"bytes=", "lines=", "line-bytes=", "number=", "elide-empty-files",
		"unbuffered", "suffix-length=", "additional-suffix=", "numeric-suffixes=?",
		"hex-suffixes=?", "filter=", "verbose", "separator="}
	opts, operands, ok := parseOpts(env, "split", args[1:], optSpec{shorts: "0123456789C:a:b:del:n:t:ux", longs: longs})
	if !ok {
		return 1
	}
	const multipliers = "bEGKkMmPTYZ0"
	mode := spUndef
	var nUnits, kUnits int64
	oneWay := func(m int) {
		if mode != spUndef && !(m == spDigits && mode == spDigits) {
			tryHelp(env, "split", "cannot split in more than one way")
			panic(spExit(1))
		}
		mode = m
	}
	for _, o := range opts {
		switch o.name {
		case "a", "suffix-length":
			s.suffixLen = int(spXdecto(env, "split", o.val, 0, math.MaxInt32, "", "invalid suffix length"))
		case "additional-suffix":
			if strings.Contains(o.val, "/") {
				tryHelp(env, "split", "invalid suffix %s, contains directory separator", quote(env, o.val))
				return 1
			}
			s.additional = o.val
		case "b", "bytes":
			oneWay(spBytes)
			nUnits = spXdecto(env, "split", o.val, 1, math.MaxInt64, multipliers, "invalid number of bytes")
		case "l", "lines":
			oneWay(spLines)
			nUnits = spXdecto(env, "split", o.val, 1, math.MaxInt64, "", "invalid number of lines")
		case "C", "line-bytes":
			oneWay(spLineBytes)
			nUnits = spXdecto(env, "split", o.val, 1, math.MaxInt64, multipliers, "invalid number of bytes")
		case "n", "number":
			v := strings.TrimLeft(o.val, " \t\n\v\f\r")
			m := spChunkBytes
			switch {
			case strings.HasPrefix(v, "r/"):
				m, v = spRoundRobin, v[2:]
			case strings.HasPrefix(v, "l/"):
				m, v = spChunkLines, v[2:]
			}
			oneWay(m)
			if k, n, found := strings.Cut(v, "/"); found {
				nUnits = spXdecto(env, "split", n, 1, math.MaxInt64, "", "invalid number of chunks")
				if k != "" {
					kUnits = spXdecto(env, "split", k, 1, nUnits, "", "invalid chunk number")
				}
			} else {
				nUnits = spXdecto(env, "split", v, 1, math.MaxInt64, "", "invalid number of chunks")
			}
		case "u", "unbuffered":
		case "t", "separator":
			if o.val == "" {
				env.Errorf("split", "empty record separator")
				return 1
			}
			c := int(o.val[0])
			if len(o.val) > 1 {
				if o.val != `\0` {
					env.Errorf("split", "multi-character separator %s", quote(env, o.val))
					return 1
				}
				c = 0
			}
			if s.eol >= 0 && c != s.eol {
				env.Errorf("split", "multiple separator characters specified")
				return 1
			}
			s.eol = c
		case "d", "numeric-suffixes", "x", "hex-suffixes":
			s.alphabet = "0123456789"
			what := "numerical"
			if o.name == "x" || o.name == "hex-suffixes" {
				s.alphabet, what = "0123456789abcdef", "hexadecimal"
			}
			if o.val != "" {
				if strings.Trim(o.val, s.alphabet) != "" {
					tryHelp(env, "split", "%s: invalid start value for %s suffix", quote(env, o.val), what)
					return 1
				}
				v := o.val
				for len(v) > 1 && v[0] == '0' {
					v = v[1:]
				}
				s.numStart = v
			}
		case "e", "elide-empty-files":
			s.elide = true
		case "verbose":
			s.verbose = true
		case "filter":
			env.Errorf("split", "--filter is not supported in the shell backend: it would run a shell command per piece")
			return 1
		default: // a digit: the obsolete -N
			oneWay(spDigits)
		}
	}
	if mode == spDigits {
		nUnits = spObsoleteLines(args[1:], longs)
	}
	if mode == spUndef {
		mode, nUnits = spLines, 1000
	}
	if nUnits == 0 {
		tryHelp(env, "split", "invalid number of lines: %s", quote(env, "0"))
		return 1
	}
	if s.eol < 0 {
		s.eol = '\n'
	}
	s.setSuffixLength(nUnits, mode)
	infile, base := "-", "x"
	if len(operands) > 0 {
		infile = operands[0]
	}
	if len(operands) > 1 {
		base = operands[1]
	}
	if len(operands) > 2 {
		tryHelp(env, "split", "extra operand %s", quote(env, operands[2]))
		return 1
	}
	s.base, s.infile = base, infile
	if len(s.numStart) > s.suffixLen {
		tryHelp(env, "split", "numerical suffix start value is too large for the suffix length")
		return 1
	}
	var in io.Reader
	size := int64(-1)
	if infile == "-" {
		in = ctxReader{env, env.Stdin}
	} else {
		h, err := env.FS.Open(env.Ctx, env.Abs(infile))
		if err != nil {
			env.Errorf("split", "cannot open %s for reading: %s", quoteaf(env, infile), Strerror(err))
			return 1
		}
		defer h.Close()
		if fi, err := h.Stat(); err == nil {
			s.inIno = h.Ino()
			if fi.Mode().IsRegular() {
				size = fi.Size()
			}
		}
		in = ctxReader{env, h}
	}
	if mode == spChunkBytes || mode == spChunkLines {
		if size < 0 {
			// A pipe has no size: refused, as coreutils 9.1 does.
			s.fatalf("%s: cannot determine file size", quotef(s.env, infile))
		}
		// As coreutils 9.1: a file smaller than N still makes N chunks.
		size = max(size, nUnits)
	}
	s.in = in
	switch mode {
	case spLines, spDigits:
		s.linesSplit(nUnits)
	case spBytes:
		s.bytesSplit(nUnits, 0)
	case spLineBytes:
		s.lineBytesSplit(nUnits)
	case spChunkBytes:
		if kUnits == 0 {
			s.bytesSplit(size/nUnits, nUnits)
		} else {
			s.bytesExtract(kUnits, nUnits, size)
		}
	case spChunkLines:
		s.linesChunkSplit(kUnits, nUnits, size)
	case spRoundRobin:
		s.linesRoundRobin(kUnits, nUnits)
	}
	s.closeOut()
	return 0
}

// Ways of splitting.
const (
	spUndef = iota
	spBytes
	spLineBytes
	spLines
	spDigits
	spChunkBytes
	spChunkLines
	spRoundRobin
)

// spExit unwinds split or csplit on a fatal error, carrying the exit status.
type spExit int

// spFinish, deferred by split and csplit, ends the unwinding of a fatal
// error (an spExit panic; any other goes on) with the status it carries,
// then runs cleanup.
func spFinish(status *int, cleanup func()) {
	if r := recover(); r != nil {
		e, ok := r.(spExit)
		if !ok {
			panic(r)
		}
		*status = int(e)
	}
	cleanup()
}

// splitter is one run of split.
type splitter struct {
	env        *Env
	out        *bufio.Writer // standard output (--verbose, K/N extraction)
	in         io.Reader
	infile     string
	inIno      uint64
	base       string // the prefix, grown when suffixes widen
	additional string
	alphabet   string
	numStart   string
	suffixLen  int
	auto       bool // widen the suffix when it runs out (default suffixes)
	sufIndex   []int
	started    bool
	elide      bool
	verbose    bool
	eol        int
	// the current output file
	name string
	spPiece
}

// fatalf reports an error and ends split with status 1.
func (s *splitter) fatalf(format string, a ...any) {
	s.env.Errorf("split", format, a...)
	panic(spExit(1))
}

// setSuffixLength settles the suffix length: at least 2, enough for N files
// with -n, and checks -a against what -n needs.
func (s *splitter) setSuffixLength(nUnits int64, mode int) {
	s.auto = s.numStart == ""
	needed := 0
	if mode == spChunkBytes || mode == spChunkLines || mode == spRoundRobin {
		end := nUnits - 1
		if s.numStart != "" {
			if start, err := strconv.ParseInt(s.numStart, 10, 64); err == nil && start < nUnits {
				if end+start < end {
					end = math.MaxInt64
				} else {
					end += start
				}
			}
		}
		for {
			needed++
			end /= int64(len(s.alphabet))
			if end == 0 {
				break
			}
		}
		s.auto = false
	}
	if s.suffixLen > 0 {
		if s.suffixLen < needed {
			s.fatalf("the suffix length needs to be at least %d", needed)
		}
		s.auto = false
		return
	}
	s.suffixLen = 2
	if needed > 2 {
		s.suffixLen = needed
	}
}

// nextName advances to the next output file name, as GNU's next_file_name.
func (s *splitter) nextName() string {
	if !s.started {
		s.started = true
		s.sufIndex = make([]int, s.suffixLen)
		if s.numStart != "" {
			off := s.suffixLen - len(s.numStart)
			for i := range s.numStart {
				s.sufIndex[off+i] = strings.IndexByte(s.alphabet, s.numStart[i])
			}
		}
		return s.currentName()
	}
	for i := len(s.sufIndex) - 1; i >= 0; i-- {
		s.sufIndex[i]++
		if s.auto && i == 0 && s.sufIndex[0]+1 >= len(s.alphabet) {
			// Widen: the last letter joins the prefix, the suffix grows by one.
			s.base += string(s.alphabet[s.sufIndex[0]])
			s.sufIndex = make([]int, len(s.sufIndex)+1)
			return s.currentName()
		}
		if s.sufIndex[i] < len(s.alphabet) {
			return s.currentName()
		}
		s.sufIndex[i] = 0
	}
	s.fatalf("output file suffixes exhausted")
	return ""
}

func (s *splitter) currentName() string {
	var b strings.Builder
	b.WriteString(s.base)
	for _, i := range s.sufIndex {
		b.WriteByte(s.alphabet[i])
	}
	b.WriteString(s.additional)
	return b.String()
}

// create opens (creating or truncating) an output file, refusing to
// truncate the input.
func (s *splitter) create(name string) (*vfs.File, *bufio.Writer) {
	env := s.env
	if s.verbose {
		fmt.Fprintf(s.out, "creating file %s\n", quoteaf(s.env, name))
	}
	p := env.Abs(name)
	if s.inIno != 0 {
		if fi, err := env.FS.Stat(env.Ctx, p); err == nil && fi.Attr().Ino == s.inIno {
			s.fatalf("%s would overwrite input; aborting", quoteaf(s.env, name))
		}
	}
	h, err := env.FS.OpenFile(env.Ctx, p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.fatalf("%s: %s", quotef(s.env, name), Strerror(err))
	}
	return h, bufio.NewWriterSize(h, 64<<10)
}

// closeOut closes the current output file.
func (s *splitter) closeOut() {
	if err := s.close(); err != nil {
		s.fatalf("%s: %s", quotef(s.env, s.name), Strerror(err))
	}
}

// write writes p to the current output file, first starting a new file when
// newFile is set (an empty new file is skipped with -e when p is nil).
func (s *splitter) write(newFile bool, p []byte) {
	if newFile {
		if p == nil && s.elide {
			return
		}
		s.closeOut()
		s.name = s.nextName()
		s.h, s.w = s.create(s.name)
	}
	if _, err := s.w.Write(p); err != nil {
		s.fatalf("%s: %s", quotef(s.env, s.name), Strerror(err))
	}
}

// read reads the next block of input; n is 0 at the end.
func (s *splitter) read(buf []byte) int {
	if s.env.Canceled() {
		panic(spExit(1))
	}
	n, err := io.ReadFull(s.in, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		if isCanceled(s.env, err) {
			panic(spExit(1))
		}
		s.fatalf("%s: %s", quotef(s.env, s.infile), Strerror(err))
	}
	return n
}

const spBufSize = 64 << 10

// linesSplit puts n lines in each file.
func (s *splitter) linesSplit(n int64) {
	buf := make([]byte, spBufSize)
	newFile := true
	var count int64
	eol := byte(s.eol)
	for {
		m := s.read(buf)
		if m == 0 {
			return
		}
		data := buf[:m]
		for len(data) > 0 {
			i := bytes.IndexByte(data, eol)
			if i < 0 {
				s.write(newFile, data)
				newFile = false
				break
			}
			s.write(newFile, data[:i+1])
			newFile = false
			data = data[i+1:]
			if count++; count >= n {
				newFile, count = true, 0
			}
		}
	}
}

// bytesSplit puts n bytes in each file; with maxFiles (-n N) exactly that
// many files are made, the last taking what is left over (coreutils 9.1).
func (s *splitter) bytesSplit(n, maxFiles int64) {
	buf := make([]byte, spBufSize)
	var opened int64
	newFile := true
	toWrite := n
	for {
		m := s.read(buf)
		data := buf[:m]
		for toWrite <= int64(len(data)) && toWrite > 0 {
			s.write(newFile, data[:toWrite])
			if newFile {
				opened++
			}
			newFile = maxFiles == 0 || opened < maxFiles
			data = data[toWrite:]
			toWrite = n
		}
		if len(data) > 0 {
			s.write(newFile, data)
			if newFile {
				opened++
			}
			toWrite -= int64(len(data))
			newFile = false
		}
		if m == 0 {
			break
		}
	}
	for ; opened < maxFiles; opened++ {
		if s.env.Canceled() {
			panic(spExit(1))
		}
		s.write(true, nil)
	}
}

// lineBytesSplit is -C: files of at most n bytes made of whole lines, a line
// longer than n being cut into n-byte pieces (GNU's line_bytes_split).
func (s *splitter) lineBytesSplit(n int64) {
	buf := make([]byte, spBufSize)
	eol := byte(s.eol)
	var nOut int64
	var hold []byte
	var holdCharged int64 // charged to Env.Mem for hold
	splitLine := false
	for {
		m := s.read(buf)
		sob := buf[:m]
		for len(sob) > 0 {
			var splitRest int64
			eoc := false
			var eol1 int // index just past the last eol in the window, 0 if none
			nLeft := int64(len(sob))
			if n-nOut-int64(len(hold)) <= nLeft {
				splitRest = n - nOut - int64(len(hold))
				eoc = true
				eol1 = bytes.LastIndexByte(sob[:splitRest], eol) + 1
			} else {
				eol1 = bytes.LastIndexByte(sob, eol) + 1
			}
			if len(hold) > 0 && !(eol1 == 0 && nOut > 0) {
				s.write(nOut == 0, hold)
				nOut += int64(len(hold))
				hold = hold[:0]
			}
			if eol1 > 0 {
				splitLine = true
				s.write(nOut == 0, sob[:eol1])
				nOut += int64(eol1)
				sob = sob[eol1:]
				if eoc {
					splitRest -= int64(eol1)
				}
			}
			if len(sob) > 0 && !splitLine {
				w := int64(len(sob))
				if eoc {
					w = splitRest
				}
				s.write(nOut == 0, sob[:w])
				nOut += w
				sob = sob[w:]
				if eoc {
					splitRest -= w
				}
			}
			if eoc && splitRest > 0 || !eoc && len(sob) > 0 {
				w := int64(len(sob))
				if eoc {
					w = splitRest
				}
				if max := s.env.Limits.MaxReadBytes; max > 0 && int64(len(hold))+w > max {
					s.fatalf("%s: %s", quotef(s.env, s.infile), Strerror(ErrTooLarge))
				}
				if need := 2 * (int64(len(hold)) + w); need > holdCharged {
					if s.env.Hold(need-holdCharged) != nil {
						s.fatalf("%s: %s", quotef(s.env, s.infile), Strerror(ErrTooLarge))
					}
					holdCharged = need
				}
				hold = append(hold, sob[:w]...)
				sob = sob[w:]
			}
			if eoc {
				nOut = 0
				splitLine = false
			}
		}
		if m == 0 {
			break
		}
	}
	if len(hold) > 0 {
		s.write(nOut == 0, hold)
	}
}

// discard skips n bytes of input.
func (s *splitter) discard(n int64) {
	if n <= 0 {
		return
	}
	if _, err := io.CopyN(io.Discard, s.in, n); err != nil && err != io.EOF {
		if isCanceled(s.env, err) {
			panic(spExit(1))
		}
		s.fatalf("%s: %s", quotef(s.env, s.infile), Strerror(err))
	}
}

// bytesExtract is -n K/N: the Kth of N byte chunks to stdout, the last
// chunk taking what is left over.
func (s *splitter) bytesExtract(k, n, size int64) {
	start := (k - 1) * (size / n)
	end := size
	if k != n {
		end = k * (size / n)
	}
	s.discard(start)
	buf := make([]byte, spBufSize)
	for start < end {
		want := int64(len(buf))
		if end-start < want {
			want = end - start
		}
		m := s.read(buf[:want])
		if m == 0 {
			break
		}
		s.out.Write(buf[:m])
		start += int64(m)
	}
}

// linesChunkSplit is -n l/N and l/K/N: N chunks of size/N bytes (the last
// taking the rest), each line going whole to the chunk holding its start
// (coreutils 9.1's lines_chunk_split).
func (s *splitter) linesChunkSplit(k, n, size int64) {
	chunkSize := size / n
	chunkNo := int64(1)
	chunkEnd := chunkSize - 1
	var written int64
	newFile := true
	truncated := false
	eol := byte(s.eol)
	if k > 1 {
		start := (k-1)*chunkSize - 1
		s.discard(start)
		written, chunkNo = start, k-1
		chunkEnd = chunkNo*chunkSize - 1
	}
	buf := make([]byte, spBufSize)
	for written < size {
		m := s.read(buf)
		if m == 0 {
			break
		}
		if int64(m) > size-written {
			m = int(size - written)
		}
		truncated = false
		data := buf[:m]
		bp := 0
		for bp != len(data) {
			left := int64(len(data) - bp)
			skip := min(left, max(0, chunkEnd-written))
			end := len(data)
			next := false
			if j := bytes.IndexByte(data[bp+int(skip):], eol); j >= 0 {
				end = bp + int(skip) + j + 1
				next = true
			}
			chunk := data[bp:end]
			if k == chunkNo {
				s.out.Write(chunk)
			} else if k == 0 {
				s.write(newFile, chunk)
			}
			written += int64(len(chunk))
			bp = end
			newFile = next
			for next || chunkEnd <= written-1 {
				if !next && bp == len(data) {
					truncated = true
					break
				}
				chunkNo++
				if k != 0 && chunkNo > k {
					return
				}
				if chunkNo == n {
					chunkEnd = size - 1
				} else {
					chunkEnd += chunkSize
				}
				if chunkEnd <= written-1 {
					if k == 0 {
						s.write(true, nil)
					}
				} else {
					next = false
				}
			}
		}
	}
	if truncated {
		chunkNo++
	}
	for ; k == 0 && chunkNo <= n; chunkNo++ {
		if s.env.Canceled() {
			panic(spExit(1))
		}
		s.write(true, nil)
	}
}

// spPiece is an output file of split or csplit being written: its handle
// and its buffer (none when h is nil).
type spPiece struct {
	h *vfs.File
	w *bufio.Writer
}

// close flushes and closes the piece, returning the first error; a piece
// that is not open is left as it is.
func (p *spPiece) close() error {
	if p.h == nil {
		return nil
	}
	h, w := p.h, p.w
	p.h, p.w = nil, nil
	err := w.Flush()
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return err
}

// abandon closes the piece after a fatal error, keeping what was written
// and ignoring any further error.
func (p *spPiece) abandon() { _ = p.close() }

// linesRoundRobin is -n r/N and r/K/N: lines dealt to N files in turn.
func (s *splitter) linesRoundRobin(k, n int64) {
	eol := byte(s.eol)
	br := bufio.NewReaderSize(s.in, spBufSize)
	if k > 0 {
		lineNo := int64(1)
		for {
			if s.env.Canceled() {
				panic(spExit(1))
			}
			frag, err := br.ReadSlice(eol)
			if len(frag) > 0 && lineNo == k {
				s.out.Write(frag)
			}
			if err == nil {
				if lineNo == n {
					lineNo = 1
				} else {
					lineNo++
				}
				continue
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			s.readErr(err)
			return
		}
	}
	name := s.rrNames(n)
	files := map[int64]*spPiece{}
	defer func() { // after a fatal error: keep what was written
		for _, f := range files {
			f.abandon()
		}
	}()
	open := func(i int64) *spPiece {
		if f, ok := files[i]; ok {
			return f
		}
		h, w := s.create(name(i))
		f := &spPiece{h, w}
		files[i] = f
		return f
	}
	var i int64
	wrapped := false
	for {
		if s.env.Canceled() {
			panic(spExit(1))
		}
		frag, err := br.ReadSlice(eol)
		if len(frag) > 0 {
			f := open(i)
			if _, werr := f.w.Write(frag); werr != nil {
				s.fatalf("%s: %s", quotef(s.env, name(i)), Strerror(werr))
			}
		}
		if err == nil {
			if i++; i == n {
				wrapped, i = true, 0
			}
			continue
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		s.readErr(err)
		break
	}
	ceiling := i
	if wrapped {
		ceiling = n
	}
	for j := int64(0); j < n; j++ {
		if s.env.Canceled() {
			panic(spExit(1))
		}
		if j >= ceiling && !s.elide {
			open(j)
		}
		if f, ok := files[j]; ok {
			err := f.close()
			delete(files, j)
			if err != nil {
				s.fatalf("%s: %s", quotef(s.env, name(j)), Strerror(err))
			}
		}
	}
}

// rrNames returns the name of the i-th of n round-robin files (GNU names
// them all before writing: running out of suffixes fails first).
func (s *splitter) rrNames(n int64) func(i int64) string {
	radix := int64(len(s.alphabet))
	var start int64
	for _, c := range s.numStart {
		start = start*radix + int64(strings.IndexRune(s.alphabet, c))
	}
	limit := int64(1) // radix ** suffixLen, saturated
	for i := 0; i < s.suffixLen && limit <= math.MaxInt64/radix; i++ {
		limit *= radix
	}
	if start > limit-n {
		s.fatalf("output file suffixes exhausted")
	}
	return func(i int64) string {
		suf := make([]byte, s.suffixLen)
		v := start + i
		for j := len(suf) - 1; j >= 0; j-- {
			suf[j] = s.alphabet[v%radix]
			v /= radix
		}
		return s.base + string(suf) + s.additional
	}
}

// readErr reports a read error other than the end of the input.
func (s *splitter) readErr(err error) {
	if err == io.EOF {
		return
	}
	if isCanceled(s.env, err) {
		panic(spExit(1))
	}
	s.fatalf("%s: %s", quotef(s.env, s.infile), Strerror(err))
}

// spObsoleteLines finds the value of the obsolete -N option: the digits of
// the last argument holding digit options (GNU resets the count when the
// digits come from another argument).
func spObsoleteLines(args []string, longs []string) int64 {
	last := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			name, _, hasVal := strings.Cut(a[2:], "=")
			if !hasVal {
				var match []string
				for _, l := range longs {
					ln := strings.TrimRight(l, "=?")
					if ln == name {
						match = []string{l}
						break
					}
					if strings.HasPrefix(ln, name) {
						match = append(match, l)
					}
				}
				if len(match) == 1 && strings.HasSuffix(match[0], "=") && !strings.HasSuffix(match[0], "?") {
					i++
				}
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		digits := ""
		for j := 1; j < len(a); j++ {
			c := a[j]
			if c >= '0' && c <= '9' {
				digits += string(c)
				continue
			}
			if strings.IndexByte("Cablnt", c) >= 0 {
				if j+1 == len(a) {
					i++
				}
				break
			}
		}
		if digits != "" {
			last = digits
		}
	}
	n, err := strconv.ParseInt(last, 10, 64)
	if err != nil && errors.Is(err, strconv.ErrRange) {
		return math.MaxInt64
	}
	return n
}

// spErr is the outcome of spStrtoumax, as gnulib's strtol_error.
type spErr int

// Outcomes of spStrtoumax.
const (
	spOK spErr = iota
	spInvalid
	spBadSuffix
	spOverflow
	spBadSuffixOverflow
)

// spStrtoumax parses an unsigned number as gnulib's xstrtoumax: leading
// blanks, no minus sign, base 0 (0x hex, 0 octal) or the given base, then an
// optional multiplier from valid (b 512, K/k 1024, M/m, G, T, P, E, Z, Y;
// with '0' in valid also KB=1000, KiB=1024, ...).
func spStrtoumax(s string, base int, valid string) (uint64, spErr) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if strings.HasPrefix(t, "-") {
		return 0, spInvalid
	}
	t = strings.TrimPrefix(t, "+")
	if base == 0 || base == 16 {
		if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && spDigitVal(t[2]) < 16 {
			base, t = 16, t[2:]
		} else if base == 0 && len(t) > 0 && t[0] == '0' {
			base = 8
		} else if base == 0 {
			base = 10
		}
	}
	var v uint64
	overflow := false
	i := 0
	for i < len(t) && spDigitVal(t[i]) < base {
		d := uint64(spDigitVal(t[i]))
		if v > (math.MaxUint64-d)/uint64(base) {
			overflow = true
			v = math.MaxUint64
		} else if !overflow {
			v = v*uint64(base) + d
		}
		i++
	}
	rest := t[i:]
	if i == 0 {
		if valid != "" && rest != "" && strings.IndexByte(valid, rest[0]) >= 0 {
			v = 1
		} else {
			return 0, spInvalid
		}
	}
	if rest != "" {
		if strings.IndexByte(valid, rest[0]) < 0 {
			if overflow {
				return v, spBadSuffixOverflow
			}
			return v, spBadSuffix
		}
		mbase, suffixes := uint64(1024), 1
		if strings.IndexByte(valid, '0') >= 0 && len(rest) > 1 {
			switch {
			case len(rest) > 2 && rest[1] == 'i' && rest[2] == 'B':
				suffixes = 3
			case rest[1] == 'B' || rest[1] == 'D':
				mbase, suffixes = 1000, 2
			}
		}
		power := 0
		mult := uint64(1)
		switch rest[0] {
		case 'b':
			mult = 512
		case 'B':
			mult = 1024
		case 'c':
		case 'w':
			mult = 2
		case 'k', 'K':
			power = 1
		case 'M', 'm':
			power = 2
		case 'G', 'g':
			power = 3
		case 'T', 't':
			power = 4
		case 'P':
			power = 5
		case 'E':
			power = 6
		case 'Z':
			power = 7
		case 'Y':
			power = 8
		default:
			if overflow {
				return v, spBadSuffixOverflow
			}
			return v, spBadSuffix
		}
		for p := 0; p < power; p++ {
			mult2, of := spMul(mult, mbase)
			mult = mult2
			overflow = overflow || of
		}
		var of bool
		v, of = spMul(v, mult)
		overflow = overflow || of
		if len(rest) > suffixes {
			if overflow {
				return v, spBadSuffixOverflow
			}
			return v, spBadSuffix
		}
	}
	if overflow {
		return v, spOverflow
	}
	return v, spOK
}

func spMul(a, b uint64) (uint64, bool) {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64, true
	}
	return a * b, false
}

func spDigitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// spXdecto parses a decimal count in [min, max] as gnulib's xdectoumax and,
// on failure, prints "cmd: msg: ‘arg’" (with ": Numerical result out of
// range" or ": Value too large for defined data type" when out of range)
// and ends the command with status 1. It must run under Split's or
// Csplit's recover.
func spXdecto(env *Env, cmd, arg string, lo, hi int64, suffixes, msg string) int64 {
	v, e := spStrtoumax(arg, 10, suffixes)
	reason := ""
	switch e {
	case spOK:
		if v < uint64(lo) || v > uint64(hi) {
			reason = ": Numerical result out of range"
			if v > math.MaxInt32/2 {
				reason = ": Value too large for defined data type"
			}
		} else {
			return int64(v)
		}
	case spOverflow:
		reason = ": Value too large for defined data type"
	}
	env.Errorf(cmd, "%s: %s%s", msg, quote(env, arg), reason)
	panic(spExit(1))
}

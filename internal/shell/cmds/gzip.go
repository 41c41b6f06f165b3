package cmds

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() {
	Register("gzip", Gzip)
	Register("gunzip", Gzip)
	Register("zcat", Gzip)
}

// hdrName is the original name written in the header of name's .gz ("" with -n).
func (s *gzipState) hdrName(name string) string {
	if s.noName {
		return ""
	}
	return fuBaseOf(name)
}

// hdrMtime is the mtime written in the header (0, none, with -n).
func (s *gzipState) hdrMtime(mtime int64) int64 {
	if s.noName {
		return 0
	}
	return mtime
}

// gzipState is one run of gzip: its options and exit status.
type gzipState struct {
	env                  *Env
	decompress, toStdout bool
	force, keep, list    bool
	test, verbose, quiet bool
	recursive            bool
	noName               bool // -n: no original name and mtime in the header
	level                int
	suffix               string
	status               int
	listed               int
	totalIn, totalOut    int64
	lastHeader           int64
	listHeaderDone       bool
}

// Gzip is gzip, gunzip (gzip -d) and zcat (gzip -dc), as GNU gzip 1.12: FILE
// becomes FILE.gz (keeping mode and times) unless -c or -k; -d decompresses,
// -t tests, -l lists, -r recurses into directories, -1..-9 set the level.
// With no files, or "-", stdin goes to stdout. Diagnostics are "gzip: ...";
// errors exit 1, warnings 2.
func Gzip(env *Env, args []string) int {
	s := &gzipState{env: env, level: 6, suffix: ".gz"}
	switch args[0] {
	case "gunzip":
		s.decompress = true
	case "zcat":
		s.decompress, s.toStdout = true, true
	}
	opts, files, ok := auParseOpts(env, "gzip", args[1:], optSpec{
		shorts: "123456789cdfhklLnNqrS:tvV",
		longs: []string{"stdout", "to-stdout", "decompress", "uncompress", "force", "help", "keep", "list",
			"license", "no-name", "name", "quiet", "silent", "recursive", "suffix=", "test", "verbose",
			"version", "fast", "best", "rsyncable", "synchronous"},
	}, "Try `gzip --help' for more information.")
	if !ok {
		return 1
	}
	for _, o := range opts {
		switch o.name {
		case "c", "stdout", "to-stdout":
			s.toStdout = true
		case "d", "decompress", "uncompress":
			s.decompress = true
		case "f", "force":
			s.force = true
		case "k", "keep":
			s.keep = true
		case "l", "list":
			s.list = true
		case "q", "quiet", "silent":
			s.quiet, s.verbose = true, false
		case "r", "recursive":
			s.recursive = true
		case "n", "no-name":
			s.noName = true
		case "N", "name":
			s.noName = false
		case "S", "suffix":
			s.suffix = o.val
		case "t", "test":
			s.test = true
		case "v", "verbose":
			s.verbose, s.quiet = true, false
		case "fast":
			s.level = 1
		case "best":
			s.level = 9
		case "h", "help":
			fmt.Fprintf(env.Stdout, "Usage: gzip [OPTION]... [FILE]...\nCompress or uncompress FILEs (by default, compress FILES in-place).\n")
			return 0
		case "V", "version", "L", "license":
			fmt.Fprintf(env.Stdout, "gzip 1.12\n")
			return 0
		default:
			if len(o.name) == 1 && o.name[0] >= '1' && o.name[0] <= '9' {
				s.level = int(o.name[0] - '0')
			}
		}
	}
	if s.test {
		s.decompress, s.toStdout = true, true
	}
	if s.list {
		s.decompress = true
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, f := range files {
		if env.Canceled() {
			return 1
		}
		if f == "-" {
			s.doStdin()
			continue
		}
		s.doFile(f, false)
	}
	if s.list && !s.quiet && s.listed > 1 {
		s.listTotals()
	}
	return s.status
}

func (s *gzipState) fail(name, msg string) {
	fmt.Fprintf(s.env.Stderr, "gzip: %s: %s\n", name, msg)
	s.status = 1
}

func (s *gzipState) warn(format string, a ...any) {
	if !s.quiet {
		fmt.Fprintf(s.env.Stderr, "gzip: "+format+"\n", a...)
	}
	if s.status == 0 {
		s.status = 2
	}
}

// dataError reports a decompression failure the way gzip does (a blank line
// first).
func (s *gzipState) dataError(name string, err error) {
	if isCanceled(s.env, err) {
		s.status = 1
		return
	}
	fmt.Fprintf(s.env.Stderr, "\ngzip: %s: %s\n", name, auGzipError(err))
	s.status = 1
}

func (s *gzipState) doStdin() {
	env := s.env
	in := ctxReader{env, env.Stdin}
	if s.list {
		s.dataError("stdin", io.ErrUnexpectedEOF)
		return
	}
	if !s.decompress {
		w := bufio.NewWriterSize(env.Stdout, 64<<10)
		zw := auGzipWriter(w, s.level, "", 0)
		_, err := io.Copy(zw, in)
		if err == nil {
			err = zw.Close()
		}
		w.Flush()
		if err != nil && !isCanceled(env, err) {
			s.fail("stdin", Strerror(err))
		}
		return
	}
	s.decompressTo("stdin", in, 0)
}

// decompressTo decompresses r to stdout (or nowhere for -t); with -f, data
// that is not gzip is copied through.
func (s *gzipState) decompressTo(name string, r io.Reader, _ int64) (auGunzipResult, bool) {
	env := s.env
	br := bufio.NewReader(r)
	if s.force && !s.test {
		if b, _ := br.Peek(2); !(len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b) {
			io.Copy(env.Stdout, br)
			return auGunzipResult{}, true
		}
	}
	var w io.Writer = io.Discard
	var bw *bufio.Writer
	if !s.test {
		bw = bufio.NewWriterSize(env.Stdout, 64<<10)
		w = bw
	}
	res, err := auGunzip(env, br, w)
	if bw != nil {
		bw.Flush()
	}
	if err != nil {
		s.dataError(name, err)
		return res, false
	}
	if res.trailing {
		if !s.quiet {
			fmt.Fprintf(env.Stderr, "\ngzip: %s: decompression OK, trailing garbage ignored\n", name)
		}
		if s.status == 0 {
			s.status = 2
		}
	}
	return res, true
}

// gzipSuffixes are the suffixes gzip -d knows, with what replaces them.
var gzipSuffixes = [][2]string{{".gz", ""}, {"-gz", ""}, {".z", ""}, {"-z", ""}, {"_z", ""}, {".Z", ""}, {".tgz", ".tar"}, {".taz", ".tar"}}

// stripSuffix returns name without its compression suffix (ok false when it
// has none).
func (s *gzipState) stripSuffix(name string) (string, bool) {
	base := fuBaseOf(name)
	if s.suffix != "" && strings.HasSuffix(base, s.suffix) && len(base) > len(s.suffix) {
		return name[:len(name)-len(s.suffix)], true
	}
	for _, sf := range gzipSuffixes {
		if strings.HasSuffix(base, sf[0]) && len(base) > len(sf[0]) {
			return name[:len(name)-len(sf[0])] + sf[1], true
		}
	}
	return "", false
}

func (s *gzipState) hasSuffix(name string) bool {
	_, ok := s.stripSuffix(name)
	return ok
}

// doFile handles one file operand (or a file found by -r).
func (s *gzipState) doFile(name string, inWalk bool) {
	env := s.env
	p := env.Abs(name)
	fi, err := env.FS.Lstat(env.Ctx, p)
	if err != nil && s.decompress && fuIsNotExist(err) && !s.hasSuffix(name) {
		if fi2, err2 := env.FS.Lstat(env.Ctx, p+s.suffix); err2 == nil {
			name, p, fi, err = name+s.suffix, p+s.suffix, fi2, nil
		} else {
			name = name + s.suffix
		}
	}
	if err != nil {
		s.fail(name, Strerror(err))
		return
	}
	a := fi.Attr()
	if a.IsSymlink() {
		if !s.force && !s.toStdout {
			s.fail(name, Strerror(syscall.ELOOP))
			return
		}
		fi, err = env.FS.Stat(env.Ctx, p)
		if err != nil {
			s.fail(name, Strerror(err))
			return
		}
		a = fi.Attr()
	}
	if a.IsDir() {
		if !s.recursive {
			s.warn("%s is a directory -- ignored", name)
			return
		}
		ents, err := fuReadDir(env, p)
		if err != nil {
			s.fail(name, Strerror(err))
			return
		}
		for _, e := range ents {
			if env.Canceled() {
				return
			}
			s.doFile(fuJoinPath(name, e.Name), true)
		}
		return
	}
	if !a.IsRegular() {
		s.warn("%s is not a directory or a regular file - ignored", name)
		return
	}
	if s.list {
		s.listFile(name, p, a)
		return
	}
	var outName string
	if s.decompress {
		o, ok := s.stripSuffix(name)
		if !ok {
			if inWalk {
				return
			}
			if !s.toStdout {
				s.warn("%s: unknown suffix -- ignored", name)
				return
			}
		}
		outName = o
	} else {
		if s.hasSuffix(name) && !s.toStdout {
			if !inWalk && (s.verbose || !s.quiet) {
				fmt.Fprintf(env.Stderr, "gzip: %s already has %s suffix -- unchanged\n", name, s.suffix)
			}
			return
		}
		outName = name + s.suffix
	}
	h, err := env.FS.Open(env.Ctx, p)
	if err != nil {
		s.fail(name, Strerror(err))
		return
	}
	defer h.Close()
	if s.toStdout {
		if s.decompress {
			res, ok := s.decompressTo(name, h, a.Size)
			if ok && s.verbose {
				if s.test {
					fmt.Fprintf(env.Stderr, "%s:\t OK\n", name)
				} else {
					fmt.Fprintf(env.Stderr, "%s:\t%s -- replaced with stdout\n", name, gzipRatio(res.out-(a.Size-res.headerBytes), res.out))
				}
			}
			return
		}
		w := bufio.NewWriterSize(env.Stdout, 64<<10)
		cw := &auCountWriter{w: w}
		zw := auGzipWriter(cw, s.level, s.hdrName(name), s.hdrMtime(a.Mtime.Unix()))
		_, err := io.Copy(zw, ctxReader{env, h})
		if err == nil {
			err = zw.Close()
		}
		w.Flush()
		if err != nil {
			if !isCanceled(env, err) {
				s.fail(name, Strerror(err))
			}
			return
		}
		if s.verbose {
			hb := int64(10+8+len(fuBaseOf(name))) + 1
			fmt.Fprintf(env.Stderr, "%s:\t%s -- replaced with stdout\n", name, gzipRatio(a.Size-(cw.n-hb), a.Size))
		}
		return
	}
	// To a file next to the input.
	outP := env.Abs(outName)
	if _, err := env.FS.Lstat(env.Ctx, outP); err == nil {
		if !s.force {
			fmt.Fprintf(env.Stderr, "gzip: %s already exists;\tnot overwritten\n", outName)
			if s.status == 0 {
				s.status = 2
			}
			return
		}
		if err := env.FS.Remove(env.Ctx, outP); err != nil {
			s.fail(outName, Strerror(err))
			return
		}
	}
	out, err := env.FS.OpenFile(env.Ctx, outP, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		s.fail(outName, Strerror(err))
		return
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	var ratio string
	if s.decompress {
		res, err := auGunzip(env, h, bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			out.Close()
			env.FS.Remove(env.Ctx, outP)
			s.dataError(name, err)
			return
		}
		if res.trailing {
			if !s.quiet {
				fmt.Fprintf(env.Stderr, "\ngzip: %s: decompression OK, trailing garbage ignored\n", name)
			}
			if s.status == 0 {
				s.status = 2
			}
		}
		ratio = gzipRatio(res.out-(a.Size-res.headerBytes), res.out)
	} else {
		cw := &auCountWriter{w: bw}
		zw := auGzipWriter(cw, s.level, s.hdrName(name), s.hdrMtime(a.Mtime.Unix()))
		_, err := io.Copy(zw, ctxReader{env, h})
		if err == nil {
			err = zw.Close()
		}
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			out.Close()
			env.FS.Remove(env.Ctx, outP)
			if !isCanceled(env, err) {
				s.fail(name, Strerror(err))
			}
			return
		}
		hb := int64(10+8+len(fuBaseOf(name))) + 1
		ratio = gzipRatio(a.Size-(cw.n-hb), a.Size)
	}
	if err := out.Close(); err != nil {
		env.FS.Remove(env.Ctx, outP)
		s.fail(outName, Strerror(err))
		return
	}
	env.FS.Chmod(env.Ctx, outP, fuPermOf(a.Mode))
	env.FS.Utimens(env.Ctx, outP, a.Atime, a.Mtime, false)
	verb := "created"
	if !s.keep {
		verb = "replaced with"
		if err := env.FS.Remove(env.Ctx, p); err != nil {
			s.fail(name, Strerror(err))
			return
		}
	}
	if s.verbose {
		fmt.Fprintf(env.Stderr, "%s:\t%s -- %s %s\n", name, ratio, verb, outName)
	}
}

// gzipRatio renders gzip's "%5.1f%%" ratio.
func gzipRatio(num, den int64) string {
	v := 0.0
	if den != 0 {
		v = 100 * float64(num) / float64(den)
	}
	return fmt.Sprintf("%5.1f%%", v)
}

// auCountWriter counts the bytes written through it.
type auCountWriter struct {
	w io.Writer
	n int64
}

func (c *auCountWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// listFile prints one gzip -l line.
func (s *gzipState) listFile(name, p string, a vfs.Attr) {
	env := s.env
	h, err := env.FS.Open(env.Ctx, p)
	if err != nil {
		s.fail(name, Strerror(err))
		return
	}
	defer h.Close()
	head := make([]byte, 10)
	n, _ := io.ReadFull(h, head)
	if n < 2 || head[0] != 0x1f || head[1] != 0x8b {
		s.dataError(name, gzip.ErrHeader)
		return
	}
	if _, err := h.Seek(0, io.SeekStart); err != nil {
		s.fail(name, Strerror(err))
		return
	}
	zr, err := gzip.NewReader(bufio.NewReader(h))
	if err != nil {
		s.dataError(name, err)
		return
	}
	hdr := zr.Header
	hb := int64(10 + 8)
	if hdr.Name != "" {
		hb += int64(len(hdr.Name)) + 1
	}
	if hdr.Comment != "" {
		hb += int64(len(hdr.Comment)) + 1
	}
	if len(hdr.Extra) > 0 {
		hb += int64(len(hdr.Extra)) + 2
	}
	trailer := make([]byte, 8)
	var crc uint32
	var usize int64
	if a.Size >= 18 {
		if _, err := h.ReadAt(trailer, a.Size-8); err == nil {
			crc = uint32(trailer[0]) | uint32(trailer[1])<<8 | uint32(trailer[2])<<16 | uint32(trailer[3])<<24
			usize = int64(uint32(trailer[4]) | uint32(trailer[5])<<8 | uint32(trailer[6])<<16 | uint32(trailer[7])<<24)
		}
	}
	var b bytes.Buffer
	if !s.listHeaderDone {
		s.listHeaderDone = true
		if s.verbose {
			b.WriteString("method  crc     date  time  ")
		}
		if !s.quiet {
			fmt.Fprintf(&b, "%19s %19s  ratio uncompressed_name\n", "compressed", "uncompressed")
		}
	}
	if s.verbose {
		// Without -N, gzip shows the compressed file's own mtime.
		t := a.Mtime.UTC()
		fmt.Fprintf(&b, "%5s %08x %s%3d %02d:%02d ", "defla", crc, t.Format("Jan"), t.Day(), t.Hour(), t.Minute())
	}
	out, _ := s.stripSuffix(name)
	if out == "" {
		out = name
	}
	fmt.Fprintf(&b, "%19d %19d %s %s\n", a.Size, usize, gzipRatio(usize-(a.Size-hb), usize), out)
	s.env.Stdout.Write(b.Bytes())
	s.listed++
	s.totalIn += a.Size
	s.totalOut += usize
	s.lastHeader = hb
}

func (s *gzipState) listTotals() {
	var b bytes.Buffer
	if s.verbose {
		b.WriteString("                            ")
	}
	fmt.Fprintf(&b, "%19d %19d %s (totals)\n", s.totalIn, s.totalOut, gzipRatio(s.totalOut-(s.totalIn-s.lastHeader), s.totalOut))
	s.env.Stdout.Write(b.Bytes())
}

package cmds

// Shared helpers of the archive commands (tar, gzip): reading a gzip stream
// member by member as GNU gzip does, and option parsing with the tools' own
// "Try ... --help" wording.

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"time"
)

// auParseOpts runs parseOpts and rewrites the help hint to the tool's own:
// gzip says "Try `gzip --help'", tar adds "or 'tar --usage'".
func auParseOpts(env *Env, cmd string, args []string, spec optSpec, hint string) ([]opt, []string, bool) {
	var buf bytes.Buffer
	e := *env
	e.Stderr = &buf
	opts, ops, ok := parseOpts(&e, cmd, args, spec)
	if !ok {
		s := strings.ReplaceAll(buf.String(), "Try '"+cmd+" --help' for more information.", hint)
		io.WriteString(env.Stderr, s)
	}
	return opts, ops, ok
}

// auGzipError classifies an error from decompressing, in gzip's words.
func auGzipError(err error) string {
	switch {
	case errors.Is(err, gzip.ErrHeader):
		return "not in gzip format"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of file"
	case errors.Is(err, gzip.ErrChecksum):
		return "invalid compressed data--crc error"
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return "invalid compressed data--format violated"
	}
	return Strerror(err)
}

// auGunzipResult is what auGunzip saw.
type auGunzipResult struct {
	first       gzip.Header // header of the first member
	headerBytes int64       // size of the first member's header and trailer
	in, out     int64       // compressed bytes read, bytes written
	trailing    bool        // non-zero garbage after the last member
}

// auCountReader counts the bytes read through it.
type auCountReader struct {
	r io.Reader
	n int64
}

func (c *auCountReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// auGunzip decompresses every gzip member of r into w, as gzip -d does:
// concatenated members are concatenated, trailing zero bytes are ignored and
// other trailing bytes end the stream with trailing set. An error before the
// first member's header is gzip.ErrHeader.
func auGunzip(env *Env, r io.Reader, w io.Writer) (auGunzipResult, error) {
	var res auGunzipResult
	cr := &auCountReader{r: ctxReader{env, r}}
	br := bufio.NewReaderSize(cr, 64<<10)
	if b, _ := br.Peek(2); len(b) == 0 {
		return res, io.ErrUnexpectedEOF
	} else if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		return res, gzip.ErrHeader
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return res, io.ErrUnexpectedEOF
		}
		return res, err
	}
	res.first = zr.Header
	res.headerBytes = 10 + 8
	if zr.Header.Name != "" {
		res.headerBytes += int64(len(zr.Header.Name)) + 1
	}
	if zr.Header.Comment != "" {
		res.headerBytes += int64(len(zr.Header.Comment)) + 1
	}
	if len(zr.Header.Extra) > 0 {
		res.headerBytes += int64(len(zr.Header.Extra)) + 2
	}
	for {
		zr.Multistream(false)
		n, err := io.Copy(w, zr)
		res.out += n
		if err != nil {
			res.in = cr.n - int64(br.Buffered())
			return res, err
		}
		// Another member, the end, or trailing garbage?
		b, _ := br.Peek(2)
		if len(b) == 0 {
			break
		}
		if len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
			if err := zr.Reset(br); err != nil {
				res.in = cr.n - int64(br.Buffered())
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return res, err
			}
			continue
		}
		// What follows the last member: read through, not held (it
		// may be of any length).
		buf := make([]byte, 32<<10)
		for {
			n, err := br.Read(buf)
			if len(bytes.Trim(buf[:n], "\x00")) > 0 {
				res.trailing = true
			}
			if err != nil {
				break
			}
		}
		break
	}
	res.in = cr.n
	return res, nil
}

// auGzipWriter makes a gzip writer as GNU gzip writes its header: the
// original name (unless empty), the mtime, XFL for levels 1 and 9 and OS Unix.
func auGzipWriter(w io.Writer, level int, name string, mtime int64) *gzip.Writer {
	zw, err := gzip.NewWriterLevel(w, level)
	if err != nil {
		zw = gzip.NewWriter(w)
	}
	zw.Header.Name = name
	if mtime > 0 {
		zw.Header.ModTime = time.Unix(mtime, 0)
	}
	zw.Header.OS = 3
	return zw
}

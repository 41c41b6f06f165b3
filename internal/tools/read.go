package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/desk-dev/desk/client/quote"
)

// ReadInput is the input of read.
type ReadInput struct {
	// Path is the file to read (relative paths are taken from /workspace).
	Path string `json:"path"`
	// Offset is the first line to return, 1-based (0: 1).
	Offset int `json:"offset,omitempty"`
	// Limit is the most lines to return (0 or more than the cap: the cap).
	Limit int `json:"limit,omitempty"`
}

// ReadOutput is the output of read.
type ReadOutput struct {
	Path string `json:"path"`
	// Kind is "text", "image" or "binary".
	Kind     string `json:"kind"`
	Size     int64  `json:"size"`
	MIMEType string `json:"mime_type,omitempty"`
	// Revision is the change-journal sequence number the content is at least
	// as new as: pass it to edit as expected_revision.
	Revision uint64 `json:"revision"`
	// StartLine and EndLine are the first and last line shown (text; 0 for
	// an empty file).
	StartLine int `json:"start_line,omitempty"`
	EndLine   int `json:"end_line,omitempty"`
	// TotalLines is the file's line count, known when the read reached the end.
	TotalLines int `json:"total_lines,omitempty"`
	// Truncated: more lines follow; read again with offset NextOffset.
	Truncated  bool `json:"truncated"`
	NextOffset int  `json:"next_offset,omitempty"`
	// CutLines counts lines longer than the line cap, shown cut.
	CutLines int `json:"cut_lines,omitempty"`
	// Text is the lines shown, each "N\t" + the line + "\n".
	Text string `json:"text,omitempty"`

	image []byte
	note  string
}

func (o *ReadOutput) content() []Content {
	switch o.Kind {
	case "image":
		return []Content{{Type: "image", MIMEType: o.MIMEType, Data: o.image},
			TextContent(fmt.Sprintf("image %s, %s, %d bytes", o.Path, o.MIMEType, o.Size))}
	case "binary":
		return []Content{TextContent(o.note)}
	}
	if o.Size == 0 {
		return []Content{TextContent("(empty file)")}
	}
	t := o.Text
	if o.note != "" {
		t += o.note
	}
	return []Content{TextContent(t)}
}

var readSpec = &spec{
	limits: func(o Options) []string {
		return []string{
			"at most 2000 lines and 256 KiB per call", fmt.Sprintf("at most %d lines and %s per call", o.MaxReadLines, sizeText(int64(o.MaxReadBytes))),
			"lines longer than 2000 bytes", fmt.Sprintf("lines longer than %d bytes", o.MaxLineBytes),
			"up to 5 MiB)", "up to " + sizeText(int64(o.MaxImageBytes)) + ")",
			`"maximum": 2000, "description": "Most lines to return. Default and maximum 2000."`, fmt.Sprintf(`"maximum": %d, "description": "Most lines to return. Default and maximum %d."`, o.MaxReadLines, o.MaxReadLines),
		}
	},
	Tool: Tool{
		Name:  "read",
		Title: "Read a file",
		Description: `Read a text file of the workspace, with line numbers: each line is returned as its number, a tab, then the line ("12\tfunc main() {"). The number and tab are not part of the file: never copy them into edit's old or new text.

Returns at most 2000 lines and 256 KiB per call; lines longer than 2000 bytes are cut, with a marker saying how much was left out. When more lines follow, the result ends with a note giving the offset to continue from (call read again with that offset; the file's beginning is not read again). Use offset and limit to read part of a large file; prefer grep to find where something is first.

Images (PNG, JPEG, GIF, WebP, up to 5 MiB) are returned as images. Other binary files are not shown: the answer gives their size and type. A directory is an error: use ls.

The result includes the file's revision; pass it to edit as expected_revision to make sure nobody changed the file in between.`,
		InputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to read. Relative paths are taken from /workspace, the directory commands run in; absolute paths are workspace paths (/workspace/src/main.go)."},
    "offset": {"type": "integer", "minimum": 1, "description": "First line to return, counting from 1. Default 1."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "Most lines to return. Default and maximum 2000."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
		OutputSchema: schema(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The file's absolute workspace path."},
    "kind": {"type": "string", "enum": ["text", "image", "binary"]},
    "size": {"type": "integer", "description": "File size in bytes."},
    "mime_type": {"type": "string", "description": "Detected content type (images and binary files)."},
    "revision": {"type": "integer", "description": "Change-journal sequence number the content is at least as new as; edit's expected_revision."},
    "start_line": {"type": "integer"},
    "end_line": {"type": "integer"},
    "total_lines": {"type": "integer", "description": "Line count, when the read reached the end of the file."},
    "truncated": {"type": "boolean", "description": "More lines follow: read again with next_offset."},
    "next_offset": {"type": "integer"},
    "cut_lines": {"type": "integer", "description": "Lines shown cut at the line-length cap."},
    "text": {"type": "string", "description": "The lines shown, each as its number, a tab, the line and a newline."}
  },
  "required": ["path", "kind", "size", "revision", "truncated"]
}`),
		ReadOnly:   true,
		Idempotent: true,
		Scopes:     []string{ScopeRead},
	},
	call: typed((*Set).read),
}

// Read reads a file: see the read tool's description.
func (s *Set) Read(ctx context.Context, in ReadInput) (*ReadOutput, error) {
	return goCall(s, ctx, in, in.Path, (*Set).read)
}

// sniffBytes is how much of a file decides whether it is text.
const sniffBytes = 8000

func (s *Set) read(ctx context.Context, in ReadInput, _ *CallOptions) (*ReadOutput, error) {
	p, err := s.resolve("read", in.Path, false)
	if err != nil {
		return nil, err
	}
	if in.Offset < 0 || in.Limit < 0 {
		return nil, errorf(CodeInvalid, "read: offset and limit must be positive (offset counts lines from 1)")
	}
	offset, limit := max(in.Offset, 1), in.Limit
	if limit == 0 || limit > s.opts.MaxReadLines {
		limit = s.opts.MaxReadLines
	}
	unlock := s.lockPath(ctx, p, false)
	defer unlock()
	rev := s.fs.Seq()
	h, err := s.fs.Open(ctx, p)
	if err != nil {
		return nil, AsError(err, p)
	}
	defer h.Close()
	fi, err := h.Stat()
	if err != nil {
		return nil, AsError(err, p)
	}
	if fi.IsDir() {
		return nil, errorf(CodeIsDirectory, "%s is a directory: use ls to list it", quote.Path(p))
	}
	if !fi.Mode().IsRegular() {
		return nil, errorf(CodeInvalid, "%s is not a regular file", quote.Path(p))
	}
	a := fi.Attr()
	out := &ReadOutput{Path: quote.Path(p), Size: a.Size, Revision: rev, Kind: "text"}
	head := make([]byte, min(a.Size, sniffBytes))
	n, err := h.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, AsError(err, p)
	}
	head = head[:n]
	s.st.bytesRead.Add(int64(n))
	if mt := imageType(head); mt != "" {
		if a.Size > s.opts.MaxImageBytes {
			return nil, errorf(CodeTooLarge, "%s is a %s image of %d bytes, over the %d-byte cap for images: make a smaller copy with exec (for example with python3 or ImageMagick in the sandbox backend) and read that", quote.Path(p), mt, a.Size, s.opts.MaxImageBytes)
		}
		data := make([]byte, a.Size)
		n, err := h.ReadAt(data, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, AsError(err, p)
		}
		s.st.bytesRead.Add(int64(n))
		out.Kind, out.MIMEType, out.image = "image", mt, data[:n]
		return out, nil
	}
	if isBinary(head, a.Size > int64(len(head))) {
		out.Kind, out.MIMEType = "binary", http.DetectContentType(head)
		out.note = fmt.Sprintf("binary file, %d bytes, type %s: not shown. Inspect it with exec (od -c, xxd, file, unzip -l ...).", a.Size, out.MIMEType)
		return out, nil
	}
	if a.Size == 0 {
		if offset > 1 {
			return nil, errorf(CodeInvalid, "offset %d is past the end of %s: the file is empty", offset, quote.Path(p))
		}
		return out, nil
	}
	id := idOf(a)
	line, pos := s.st.index.nearest(id, offset)
	// The buffer need not outgrow the rest of the file (small files are the
	// common case); long lines are read through it in pieces.
	bufSize := int(min(64<<10, max(a.Size-pos, 16)+1))
	r := bufio.NewReaderSize(io.NewSectionReader(countingReaderAt{h, &s.st.bytesRead}, pos, a.Size-pos), bufSize)
	// Skip to the first line wanted.
	for line < offset {
		n, err := skipLine(r)
		pos += n
		if err == io.EOF {
			total := line - 1
			if n > 0 {
				total++
			}
			return nil, errorf(CodeInvalid, "offset %d is past the end of %s: the file has %s", offset, quote.Path(p), plural(int64(total), "line"))
		}
		if err != nil {
			return nil, AsError(err, p)
		}
		line++
	}
	if line > 1 {
		s.st.index.remember(id, line, pos, s.opts.LineIndexFiles)
	}
	var b strings.Builder
	out.StartLine = line
	for shown := 0; shown < limit; shown++ {
		text, n, cut, err := readLine(r, s.opts.MaxLineBytes)
		if err == io.EOF && n == 0 {
			out.TotalLines = line - 1
			break
		}
		if err != nil && err != io.EOF {
			return nil, AsError(err, p)
		}
		rendered := renderLine(line, text, cut)
		if shown > 0 && b.Len()+len(rendered) > s.opts.MaxReadBytes {
			out.Truncated = true
			break
		}
		b.WriteString(rendered)
		if cut > 0 {
			out.CutLines++
		}
		out.EndLine = line
		pos += n
		line++
		if err == io.EOF {
			out.TotalLines = line - 1
			break
		}
	}
	if out.TotalLines == 0 && !out.Truncated {
		// The line cap was reached: more follows unless the file ends here.
		if _, err := r.Peek(1); err == io.EOF {
			out.TotalLines = line - 1
		} else {
			out.Truncated = true
		}
	}
	out.Text = b.String()
	if out.Truncated {
		out.NextOffset = line
		s.st.index.remember(id, line, pos, s.opts.LineIndexFiles)
		out.note = fmt.Sprintf("[truncated: showed lines %d-%d of %s (%s); call read with offset=%d to continue]\n",
			out.StartLine, out.EndLine, p, capReason(out.EndLine-out.StartLine+1, limit, s.opts), line)
	}
	if out.CutLines > 0 {
		out.note += fmt.Sprintf("[%s longer than %d bytes shown cut; use grep or exec (cut -c, fold) to see the rest]\n", plural(int64(out.CutLines), "line"), s.opts.MaxLineBytes)
	}
	return out, nil
}

func capReason(shown, limit int, o Options) string {
	if shown >= limit {
		if limit == o.MaxReadLines {
			return fmt.Sprintf("the %d-line cap", limit)
		}
		return fmt.Sprintf("limit=%d", limit)
	}
	return fmt.Sprintf("the %d KiB cap", o.MaxReadBytes>>10)
}

// renderLine formats one numbered line.
func renderLine(n int, text []byte, cut int64) string {
	t := string(bytes.TrimSuffix(text, []byte("\r")))
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	s := strconv.Itoa(n) + "\t" + t
	if cut > 0 {
		s += fmt.Sprintf(" … [line cut: %d more bytes]", cut)
	}
	return s + "\n"
}

// readLine reads one line of at most max bytes (without its newline); the
// rest of a longer line is skipped and counted in cut. n is the bytes
// consumed, newline included.
func readLine(r *bufio.Reader, max int) (text []byte, n, cut int64, err error) {
	for {
		frag, e := r.ReadSlice('\n')
		n += int64(len(frag))
		body := bytes.TrimSuffix(frag, []byte("\n"))
		if room := max - len(text); room > 0 {
			take := min(room, len(body))
			// Do not cut in the middle of a UTF-8 sequence.
			for take < len(body) && take > 0 && !utf8.RuneStart(body[take]) {
				take--
			}
			text = append(text, body[:take]...)
			cut += int64(len(body) - take)
		} else {
			cut += int64(len(body))
		}
		switch {
		case e == bufio.ErrBufferFull:
			continue
		case e != nil:
			if n == 0 {
				return nil, 0, 0, e
			}
			return text, n, cut, io.EOF
		default:
			return text, n, cut, nil
		}
	}
}

// skipLine consumes one line and returns its length, newline included.
func skipLine(r *bufio.Reader) (int64, error) {
	var n int64
	for {
		frag, err := r.ReadSlice('\n')
		n += int64(len(frag))
		if err == bufio.ErrBufferFull {
			continue
		}
		return n, err
	}
}

// imageType returns the MIME type of a PNG, JPEG, GIF or WebP image, or "".
func imageType(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// isBinary reports whether a file starting with head is binary: it holds a
// NUL byte or is not UTF-8 (a sequence cut at the end of head is allowed
// when more follows).
func isBinary(head []byte, more bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	for len(head) > 0 {
		r, size := utf8.DecodeRune(head)
		if r == utf8.RuneError && size <= 1 {
			if more && len(head) < utf8.UTFMax && !utf8.FullRune(head) {
				return false
			}
			return true
		}
		head = head[size:]
	}
	return false
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r interface {
		ReadAt([]byte, int64) (int, error)
	}
	n interface{ Add(int64) int64 }
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

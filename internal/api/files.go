package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/mediatype"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/wspath"
)

// cleanPath turns a path from a URL or a body into a clean absolute
// workspace path: a relative one is taken from /workspace, an absolute one
// stays (wspath.Resolve, as on every surface; the URL's path after /files/
// is relative unless it keeps its slash: files//etc/x, files/%2Fetc/x).
// Quoted elements (the form every response shows names in, quote.Path) are
// unquoted. A ".." element or a NUL byte is refused (bad_path): the store
// would confine such a path anyway, but a client sending one has a bug
// worth reporting.
func cleanPath(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", errorf(http.StatusBadRequest, CodeBadPath, "path %q contains a NUL byte", p)
	}
	p, err := quote.ParsePath(p)
	if err != nil {
		return "", errorf(http.StatusBadRequest, CodeBadPath, "%v", err)
	}
	for el := range strings.SplitSeq(p, "/") {
		if el == ".." {
			return "", errorf(http.StatusBadRequest, CodeBadPath, "path %q has a \"..\" element: a workspace path is relative to /workspace or absolute, and may not go up", p)
		}
	}
	return wspath.Resolve(p), nil
}

// absoluteFilePath lets a path in a URL keep an absolute path's slash: the
// router cleans "…/files//etc/x" to "…/files/etc/x" (a redirect to another
// file, /workspace/etc/x), so a doubled slash right after a workspace
// route's segment (/v1/workspaces/WS/files/, …/tree/) is rewritten to its
// escaped form, "…/files/%2Fetc/x", which the router leaves alone, before
// routing. Other paths pass unchanged.
func absoluteFilePath(r *http.Request) *http.Request {
	ep := r.URL.EscapedPath()
	rest, ok := strings.CutPrefix(ep, "/v1/workspaces/")
	if !ok {
		return r
	}
	_, rest, ok = strings.Cut(rest, "/") // the workspace
	if !ok {
		return r
	}
	seg, path, ok := strings.Cut(rest, "/") // files, tree
	if !ok || seg == "" || !strings.HasPrefix(path, "/") {
		return r
	}
	head := ep[:len(ep)-len(path)]
	raw := head + "%2F" + strings.TrimLeft(path, "/")
	p, err := url.PathUnescape(raw)
	if err != nil {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path, u.RawPath = p, raw
	r2.URL = &u
	return r2
}

// nodeTypes are the types op=mknod makes, with their type bits.
var nodeTypes = map[string]uint32{
	client.TypeFIFO: vfs.S_IFIFO, client.TypeSocket: vfs.S_IFSOCK,
	client.TypeChar: vfs.S_IFCHR, client.TypeBlock: vfs.S_IFBLK,
}

// parseDevice parses "major:minor" (decimal).
func parseDevice(s string) (uint64, error) {
	maj, min, ok := strings.Cut(s, ":")
	a, err1 := strconv.ParseUint(maj, 10, 32)
	b, err2 := strconv.ParseUint(min, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "device %q: want \"major:minor\" in decimal", s)
	}
	return unix.Mkdev(uint32(a), uint32(b)), nil
}

func octal(mode uint32) string { return fmt.Sprintf("%04o", mode&0o7777) }

// parseMode parses octal permission bits.
func parseMode(s string, def fs.FileMode) (fs.FileMode, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseUint(s, 8, 32)
	if err != nil || n > 0o7777 {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "mode %q: want octal permission bits, 0000 to 7777", s)
	}
	return vfs.UnixToFileMode(uint32(n)) & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky), nil
}

func (s *Server) fileInfo(ctx context.Context, fsys *vfs.FS, p string) (client.FileInfo, error) {
	fi, err := fsys.Lstat(ctx, p)
	if err != nil {
		return client.FileInfo{}, err
	}
	a := fi.Attr()
	out := client.FileInfo{
		Path: quote.Path(p), Name: quote.Name(path.Base(p)), Type: client.TypeOfMode(a.Mode), Mode: octal(a.Mode), Size: a.Size,
		Mtime: a.Mtime.UTC(), Ino: a.Ino, Nlink: a.Nlink,
	}
	if out.Type == client.TypeChar || out.Type == client.TypeBlock {
		out.Device = fmt.Sprintf("%d:%d", unix.Major(a.Rdev), unix.Minor(a.Rdev))
	}
	if out.Type == client.TypeSymlink {
		t, err := fsys.Readlink(ctx, p)
		if err != nil {
			return client.FileInfo{}, err
		}
		out.Target = quote.Path(t)
	}
	return out, nil
}

func (s *Server) handleGetFile(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	stat, err := qbool(r, "stat")
	if err != nil {
		return err
	}
	if stat {
		fi, err := s.fileInfo(ctx, fsys, p)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, fi)
	}
	fi, err := fsys.Stat(ctx, p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return s.listDir(w, r, fsys, p)
	}
	f, err := fsys.Open(ctx, p)
	if err != nil {
		return err
	}
	defer f.Close()
	size := fi.Size()
	start, n, partial, err := parseRange(r.Header.Get("Range"), size)
	if err != nil {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", size))
		return err
	}
	ctype, err := contentType(f, p)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	// Content from a workspace is not a page of the API's origin: a browser
	// shown HTML or SVG from here runs no script and reaches nothing.
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("X-Desk-Type", client.TypeFile)
	h.Set("Accept-Ranges", "bytes")
	h.Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
	h.Set("X-Desk-Mode", octal(fi.Attr().Mode))
	h.Set("Content-Length", strconv.FormatInt(n, 10))
	status := http.StatusOK
	if partial {
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, start+n-1, size))
		status = http.StatusPartialContent
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead || n == 0 {
		return nil
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return err
	}
	return copyOut(w, f, n)
}

// downloadBuf is the size of the reads a download makes: many chunks per
// read (one statement, one pread each from the chunk file) and one write(2)
// of as much to the socket. The ResponseWriter's own ReadFrom would read in
// 32 KiB pieces, half a chunk each.
const downloadBuf = 1 << 20

var downloadBufs = sync.Pool{New: func() any { b := make([]byte, downloadBuf); return &b }}

// copyOut copies n bytes of f to w in pieces of downloadBuf (a pooled
// buffer: at most one per download in progress).
func copyOut(w io.Writer, f io.Reader, n int64) error {
	bp := downloadBufs.Get().(*[]byte)
	defer downloadBufs.Put(bp)
	buf := *bp
	if n < int64(len(buf)) {
		buf = buf[:n]
	}
	m, err := io.CopyBuffer(struct{ io.Writer }{w}, io.LimitReader(f, n), buf)
	if err == nil && m < n {
		err = io.EOF // the file shrank under the read, as io.CopyN reports it
	}
	return err
}

// contentType returns the media type of the open file f at p: by the name's
// extension, else by its first mediatype.SniffLen bytes (package mediatype,
// shared with MCP resources). It leaves f's offset at 0.
func contentType(f io.ReadSeeker, p string) (string, error) {
	if t := mediatype.ByName(p); t != "" {
		return t, nil
	}
	head := make([]byte, mediatype.SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return mediatype.Sniff(head[:n]), nil
}

// parseRange parses a Range header against size: one range of "bytes=a-b",
// "bytes=a-" or "bytes=-n". Several ranges are not supported: the header is
// then ignored and the whole file sent. A malformed or unsatisfiable range is
// 416 bad_range.
func parseRange(h string, size int64) (start, n int64, partial bool, err error) {
	if h == "" {
		return 0, size, false, nil
	}
	bad := func(why string) (int64, int64, bool, error) {
		return 0, 0, false, errorf(http.StatusRequestedRangeNotSatisfiable, CodeBadRange, "Range %q: %s (the file has %d bytes)", h, why, size)
	}
	spec, ok := strings.CutPrefix(h, "bytes=")
	if !ok {
		return bad("want bytes=FIRST-LAST, bytes=FIRST- or bytes=-SUFFIX")
	}
	if strings.Contains(spec, ",") {
		return 0, size, false, nil
	}
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return bad("want bytes=FIRST-LAST, bytes=FIRST- or bytes=-SUFFIX")
	}
	if a == "" {
		k, err := strconv.ParseInt(b, 10, 64)
		if err != nil || k <= 0 {
			return bad("bad suffix length")
		}
		if size == 0 {
			return bad("empty file")
		}
		k = min(k, size)
		return size - k, k, true, nil
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first < 0 {
		return bad("bad first byte")
	}
	last := size - 1
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return bad("bad last byte")
		}
		last = min(last, size-1)
	}
	if first >= size {
		return bad("starts past the end")
	}
	return first, last - first + 1, true, nil
}

func (s *Server) listDir(w http.ResponseWriter, r *http.Request, fsys *vfs.FS, p string) error {
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	after, err := quote.ParseName(r.URL.Query().Get("after"))
	if err != nil {
		return errorf(http.StatusBadRequest, CodeBadPath, "after: %v", err)
	}
	ents, err := fsys.ReadDirPage(ctx, p, after, limit)
	if err != nil {
		return err
	}
	out := client.DirList{Path: quote.Path(p), Entries: make([]client.DirEntry, 0, len(ents))}
	for _, e := range ents {
		de := client.DirEntry{Name: quote.Name(e.Name), Type: client.TypeOfMode(e.Mode), Mode: octal(e.Mode)}
		if fi, err := fsys.Lstat(ctx, path.Join(p, e.Name)); err == nil {
			de.Size, de.Mtime = fi.Size(), fi.ModTime().UTC()
		}
		out.Entries = append(out.Entries, de)
	}
	if len(ents) == limit {
		out.Next = quote.Name(ents[len(ents)-1].Name)
	}
	w.Header().Set("X-Desk-Type", client.TypeDir)
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handlePutFile(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	if p == "/" {
		return errorf(http.StatusBadRequest, CodeInvalid, "cannot write the root directory")
	}
	ms := r.URL.Query().Get("mode")
	if ms == "" {
		ms = r.Header.Get("X-Desk-Mode")
	}
	mode, err := parseMode(ms, 0o644)
	if err != nil {
		return err
	}
	parents, err := qbool(r, "parents")
	if err != nil {
		return err
	}
	// Wait for an upload slot: the body is not read before (its progress
	// rule starts at the first read).
	release, err := s.uploadSlot(r, "file", s.opts.MaxUploadBytes)
	if err != nil {
		return err
	}
	defer release()
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	if parents {
		if err := fsys.MkdirAll(ctx, path.Dir(p), 0o755); err != nil {
			return err
		}
	}
	_, statErr := fsys.Lstat(ctx, p)
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxUploadBytes)
	if _, err := fsys.WriteFileFrom(ctx, p, body, mode); err != nil {
		return err
	}
	fi, err := s.fileInfo(ctx, fsys, p)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if statErr != nil {
		status = http.StatusCreated
	}
	return writeJSON(w, status, fi)
}

// fileOpRequest is the union of the bodies POST accepts.
type fileOpRequest struct {
	To        string `json:"to"`
	NoReplace bool   `json:"no_replace"`
	Mode      string `json:"mode"`
	Type      string `json:"type"`   // op=mknod: fifo, socket, char or block
	Device    string `json:"device"` // op=mknod of a device: "major:minor"
}

func (s *Server) handlePostFile(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	var req fileOpRequest
	if err := s.readJSON(w, r, &req, true); err != nil {
		return err
	}
	target := p
	status := http.StatusOK
	switch op := r.URL.Query().Get("op"); op {
	case "mkdir":
		ms := req.Mode
		if ms == "" {
			ms = r.URL.Query().Get("mode")
		}
		mode, err := parseMode(ms, 0o755)
		if err != nil {
			return err
		}
		parents, err := qbool(r, "parents")
		if err != nil {
			return err
		}
		if parents {
			err = fsys.MkdirAll(ctx, p, mode)
		} else {
			err = fsys.Mkdir(ctx, p, mode)
		}
		if err != nil {
			return err
		}
		status = http.StatusCreated
	case "move", "copy":
		if req.To == "" {
			return errorf(http.StatusBadRequest, CodeInvalid, "op=%s needs {\"to\": PATH}", op)
		}
		if target, err = cleanPath(req.To); err != nil {
			return err
		}
		if p == "/" || target == "/" {
			return errorf(http.StatusBadRequest, CodeInvalid, "cannot %s the root directory", op)
		}
		if op == "move" {
			var flags vfs.RenameFlags
			if req.NoReplace {
				flags = vfs.RenameNoReplace
			}
			if err := fsys.Rename(ctx, p, target, flags); err != nil {
				return err
			}
		} else {
			if err := s.copyTree(ctx, fsys, p, target); err != nil {
				return err
			}
			status = http.StatusCreated
		}
	case "mknod":
		typ, ok := nodeTypes[req.Type]
		if !ok {
			return errorf(http.StatusBadRequest, CodeInvalid, "op=mknod needs {\"type\": \"fifo\", \"socket\", \"char\" or \"block\"}, not %q", req.Type)
		}
		mode, err := parseMode(req.Mode, 0o644)
		if err != nil {
			return err
		}
		var dev uint64
		switch {
		case typ == vfs.S_IFCHR || typ == vfs.S_IFBLK:
			if req.Device == "" {
				return errorf(http.StatusBadRequest, CodeInvalid, "op=mknod of a %s device needs {\"device\": \"major:minor\"}", req.Type)
			}
			if dev, err = parseDevice(req.Device); err != nil {
				return err
			}
		case req.Device != "":
			return errorf(http.StatusBadRequest, CodeInvalid, "op=mknod: a %s has no device number", req.Type)
		}
		if err := fsys.Mknod(ctx, p, typ|vfs.FileModeToUnix(mode), dev); err != nil {
			return err
		}
		status = http.StatusCreated
	case "chmod":
		if req.Mode == "" {
			return errorf(http.StatusBadRequest, CodeInvalid, "op=chmod needs {\"mode\": \"0755\"}")
		}
		mode, err := parseMode(req.Mode, 0)
		if err != nil {
			return err
		}
		if err := fsys.Chmod(ctx, p, mode); err != nil {
			return err
		}
	default:
		return errorf(http.StatusBadRequest, CodeInvalid, "op=%q: want mkdir, mknod, move, copy or chmod", op)
	}
	fi, err := s.fileInfo(ctx, fsys, target)
	if err != nil {
		return err
	}
	return writeJSON(w, status, fi)
}

func (s *Server) handleDeleteFile(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	if p == "/" {
		return errorf(http.StatusBadRequest, CodeInvalid, "cannot delete the root directory")
	}
	recursive, err := qbool(r, "recursive")
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	if recursive {
		if _, err := fsys.Lstat(r.Context(), p); err != nil {
			return err
		}
		err = fsys.RemoveAll(r.Context(), p)
	} else {
		err = fsys.Remove(r.Context(), p)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// copyTree copies src to dst, which must not exist: files with their
// content and mode, directories with their contents, symlinks as symlinks.
// At most MaxWalk entries; past that the error is too_large and nothing is
// copied (a directory is copied by the store in one transaction,
// vfs.FS.CopyTree; the walk below copies anything else).
func (s *Server) copyTree(ctx context.Context, fsys *vfs.FS, src, dst string) error {
	if dst == src || strings.HasPrefix(dst, src+"/") {
		return &fs.PathError{Op: "copy", Path: dst, Err: syscall.EINVAL}
	}
	if _, err := fsys.Lstat(ctx, dst); err == nil {
		return &fs.PathError{Op: "copy", Path: dst, Err: syscall.EEXIST}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := fsys.Lstat(ctx, src); err == nil && fi.IsDir() {
		// A directory: the store's tree copy, one transaction whose rows
		// are written a directory at a time and whose content is shared
		// (vfs.FS.CopyTree); all or nothing, durable when it returns.
		err := fsys.CopyTree(ctx, src, dst, vfs.CopyOptions{PreserveMode: true, MaxEntries: s.opts.MaxWalk - 1})
		if vfs.Errno(err) == syscall.E2BIG {
			return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "copy: the tree has more than %d entries", s.opts.MaxWalk)
		}
		return err
	}
	budget := s.opts.MaxWalk
	// The copy's changes share commits (vfs.FS.WithBatching) and are all
	// durable before the response: one commit per directory read, not one
	// per file.
	b := fsys.WithBatching(copyCommitDelay)
	err := s.copyEntry(ctx, b, src, dst, &budget)
	if err != nil {
		b.RemoveAll(context.WithoutCancel(ctx), dst)
	}
	if cerr := b.Commit(context.WithoutCancel(ctx)); err == nil {
		err = cerr
	}
	return err
}

// copyCommitDelay bounds how long a copy's changes wait for their commit.
const copyCommitDelay = time.Second

func (s *Server) copyEntry(ctx context.Context, fsys *vfs.FS, src, dst string, budget *int) error {
	if *budget--; *budget < 0 {
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "copy: the tree has more than %d entries", s.opts.MaxWalk)
	}
	fi, err := fsys.Lstat(ctx, src)
	if err != nil {
		return err
	}
	a := fi.Attr()
	perm := vfs.UnixToFileMode(a.Mode) & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	switch {
	case a.IsSymlink():
		t, err := fsys.Readlink(ctx, src)
		if err != nil {
			return err
		}
		return fsys.Symlink(ctx, t, dst)
	case a.IsSpecial():
		return fsys.Mknod(ctx, dst, a.Mode, a.Rdev)
	case a.IsDir():
		if err := fsys.Mkdir(ctx, dst, 0o700); err != nil {
			return err
		}
		after := ""
		for {
			ents, err := fsys.ReadDirPage(ctx, src, after, 1000)
			if err != nil {
				return err
			}
			for _, e := range ents {
				if err := s.copyEntry(ctx, fsys, path.Join(src, e.Name), path.Join(dst, e.Name), budget); err != nil {
					return err
				}
			}
			if len(ents) < 1000 {
				break
			}
			after = ents[len(ents)-1].Name
		}
		return fsys.Chmod(ctx, dst, perm)
	default:
		f, err := fsys.Open(ctx, src)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := fsys.WriteFileFrom(ctx, dst, f, perm); err != nil {
			return err
		}
		return fsys.Chmod(ctx, dst, perm)
	}
}

// uploadSlot refuses r's body when its declared length is over limit (413,
// naming the body what), else waits for one of the Options.MaxUploads
// slots of a body being received (file PUTs and tree uploads), counted as
// waiting meanwhile, and returns its release; the error is the request
// context's when it ends first.
func (s *Server) uploadSlot(r *http.Request, what string, limit int64) (release func(), err error) {
	if r.ContentLength > limit {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "%s body of %d bytes is over the limit of %d", what, r.ContentLength, limit)
	}
	s.waiting.Add(1)
	defer s.waiting.Add(-1)
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-r.Context().Done():
		return nil, r.Context().Err()
	}
}

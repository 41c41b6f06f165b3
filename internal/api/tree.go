package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/fsio"
)

// Defaults for TreeOptions.
const (
	DefaultMaxTreeBytes     = 8 << 30 // file content of one tree upload, and the size of its body
	DefaultMaxTreeEntries   = 1_000_000
	DefaultMaxTreeMetaBytes = 64 << 20
	maxTreeWarnings         = 100 // warnings a tree upload's response carries at most
)

// CodeBadArchive is the error code of an archive refused for what it holds
// (an unsafe name, a device file, ...) or for not being one (400).
const CodeBadArchive = "bad_archive"

// TreeOptions bound tree uploads (PUT /tree); a zero field takes its
// default. The workspace store's own limits (quota, inodes, file size)
// apply beneath.
type TreeOptions struct {
	// MaxBytes bounds the file content of one upload, counted as it is
	// decompressed (a zip's declared sizes are checked first), and the
	// request body (413 too_large). Default 8 GiB.
	MaxBytes int64
	// MaxEntries bounds the entries of one archive (413). Default 1,000,000.
	MaxEntries int64
	// MaxMetaBytes bounds the memory one upload holds for names and
	// attributes kept to the end (fsio.ImportOptions.MaxMetaBytes; 413).
	// Default 64 MiB.
	MaxMetaBytes int64
	// TempDir is where a zip body is spooled (a zip is read from its end).
	// Default os.TempDir().
	TempDir string
}

func (o TreeOptions) withDefaults() TreeOptions {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxTreeBytes
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxTreeEntries
	}
	if o.MaxMetaBytes <= 0 {
		o.MaxMetaBytes = DefaultMaxTreeMetaBytes
	}
	return o
}

var (
	pFormat      = param{"format", "string", "archive format: tar (default), tgz or zip"}
	pNoFollow    = param{"nofollow", "boolean", "a symlink at the path is archived itself (one entry), not what it points to"}
	pSkipSpecial = param{"skip_special", "boolean", "skip device files and FIFOs (with a warning) instead of refusing the archive"}
	pOwners      = param{"owners", "boolean", "apply the archive's uid and gid (default: the store's default owner)"}
	pKeepDest    = param{"keep_dest_attrs", "boolean", "an existing destination directory keeps its own mode and times (the archive's \".\" entry is not applied to it)"}
)

// treeFormat reads the upload's format from its Content-Type: zip for
// application/zip, tar (plain or gzip-compressed) for the tar and gzip
// types, recognised from the first bytes when absent or
// application/octet-stream.
func treeFormat(ct string) (fsio.Format, error) {
	if ct == "" {
		return fsio.FormatAuto, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", errorf(http.StatusUnsupportedMediaType, CodeInvalid, "Content-Type %q: %v", ct, err)
	}
	switch mt {
	case "application/octet-stream":
		return fsio.FormatAuto, nil
	case "application/zip", "application/x-zip-compressed":
		return fsio.FormatZip, nil
	case "application/x-tar", "application/tar", "application/gzip", "application/x-gzip", "application/x-gtar",
		"application/x-compressed-tar", "application/tar+gzip":
		return fsio.FormatTar, nil
	}
	return "", errorf(http.StatusUnsupportedMediaType, CodeInvalid, "Content-Type %q: want application/x-tar, application/gzip or application/zip", mt)
}

// treeError turns an import's error into the API's: a limit is 413
// too_large, an archive refused for what it is or holds 400 bad_archive;
// errors carrying an errno keep it (ENAMETOOLONG, EEXIST for a duplicate
// entry, ENOSPC, ...).
func treeError(err error) error {
	switch {
	case errors.Is(err, fsio.ErrLimit):
		return errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "%s", err.Error())
	case errors.Is(err, fsio.ErrUnsafePath), errors.Is(err, fsio.ErrSpecialFile), errors.Is(err, fsio.ErrNotArchive):
		return errorf(http.StatusBadRequest, CodeBadArchive, "%s", err.Error())
	}
	var ee *fsio.EntryError
	if errors.As(err, &ee) && classify(err).Code == CodeInternal {
		// A bad entry that carries no errno: the archive's fault.
		return errorf(http.StatusBadRequest, CodeBadArchive, "%s", err.Error())
	}
	return err
}

func (s *Server) handlePutTree(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	format, err := treeFormat(r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	var flags [3]bool
	for i, name := range []string{"skip_special", "owners", "keep_dest_attrs"} {
		if flags[i], err = qbool(r, name); err != nil {
			return err
		}
	}
	to := s.opts.Tree.withDefaults()
	// Wait for an upload slot before reading the body, as a file PUT does.
	release, err := s.uploadSlot(r, "archive", to.MaxBytes)
	if err != nil {
		return err
	}
	defer release()
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	_, statErr := fsys.Stat(ctx, p)
	var warnings []string
	dropped := 0
	opts := fsio.ImportOptions{
		Owners:        flags[1],
		SkipSpecial:   flags[0],
		KeepDestAttrs: flags[2],
		Format:        format,
		TempDir:       to.TempDir,
		MaxEntries:    to.MaxEntries,
		MaxBytes:      to.MaxBytes,
		MaxMetaBytes:  to.MaxMetaBytes,
		Warn: func(msg string) {
			if len(warnings) < maxTreeWarnings {
				warnings = append(warnings, msg)
			} else {
				dropped++
			}
		},
	}
	body := http.MaxBytesReader(w, r.Body, to.MaxBytes)
	sum, err := fsio.ImportArchive(ctx, fsys, body, p, opts)
	if err != nil {
		return treeError(err)
	}
	if dropped > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more warnings not shown", dropped))
	}
	status := http.StatusOK
	if statErr != nil {
		status = http.StatusCreated
	}
	return writeJSON(w, status, client.TreeSummary{
		Path: quote.Path(p), Files: sum.Files, Dirs: sum.Dirs, Symlinks: sum.Symlinks, Hardlinks: sum.Hardlinks, Special: sum.Special,
		Bytes: sum.Bytes, Xattrs: sum.Xattrs, Skipped: sum.Skipped, Warnings: warnings,
	})
}

// TreeErrorTrailer is the HTTP trailer that a tree download that failed
// after its headers were sent carries: the error's message. The archive is
// then cut short too (no end-of-archive record, gzip trailer or zip
// directory), so a reader that ignores trailers notices as well.
const TreeErrorTrailer = "X-Desk-Error"

func (s *Server) handleGetTree(w http.ResponseWriter, r *http.Request, c *call) error {
	p, err := cleanPath(r.PathValue("path"))
	if err != nil {
		return err
	}
	format := fsio.FormatTar
	if v := r.URL.Query().Get("format"); v != "" {
		if format, err = fsio.ParseFormat(v); err != nil {
			return errorf(http.StatusBadRequest, CodeInvalid, "format=%q: want tar, tgz or zip", v)
		}
	}
	nofollow, err := qbool(r, "nofollow")
	if err != nil {
		return err
	}
	fsys := c.lease.Workspace().FS()
	ctx := r.Context()
	stat := fsys.Stat
	if nofollow {
		stat = fsys.Lstat
	}
	fi, err := stat(ctx, p)
	if err != nil {
		return err
	}
	name := path.Base(p)
	if p == "/" {
		name = c.ws
	}
	if fi.IsDir() || !strings.HasSuffix(name, format.Ext()) {
		name += format.Ext()
	}
	h := w.Header()
	h.Set("Content-Type", format.ContentType())
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Desk-Type", client.TypeOfMode(fi.Attr().Mode))
	h.Set("Trailer", TreeErrorTrailer+", "+TreeSummaryTrailer)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	sum, err := fsio.ExportArchive(ctx, fsys, p, bw, format, fsio.ExportOptions{NoFollow: nofollow})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		h.Set(TreeErrorTrailer, printable(classify(err).Message))
		return err
	}
	b, err := json.Marshal(client.TreeSummary{Path: quote.Path(p), Files: sum.Files, Dirs: sum.Dirs, Symlinks: sum.Symlinks,
		Hardlinks: sum.Hardlinks, Special: sum.Special, Bytes: sum.Bytes, Xattrs: sum.Xattrs, Skipped: sum.Skipped})
	if err != nil {
		return err
	}
	h.Set(TreeSummaryTrailer, string(b))
	return nil
}

// TreeSummaryTrailer is the HTTP trailer of a tree download that ended
// well: what it held, as a TreeSummary in JSON.
const TreeSummaryTrailer = "X-Desk-Summary"

package fsio

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/desk-dev/desk/internal/vfs"
)

// Format is an archive format.
type Format string

// The archive formats. FormatAuto, for imports, recognises the format from
// the archive's first bytes; FormatTar then also accepts a gzip-compressed tar.
const (
	FormatAuto Format = ""
	FormatTar  Format = "tar" // POSIX (PAX) tar
	FormatTgz  Format = "tgz" // gzip-compressed PAX tar
	FormatZip  Format = "zip" // zip, Deflate-compressed
)

// ParseFormat parses "tar", "tgz" (or "tar.gz") and "zip".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "tar":
		return FormatTar, nil
	case "tgz", "tar.gz":
		return FormatTgz, nil
	case "zip":
		return FormatZip, nil
	}
	return "", fmt.Errorf("unknown archive format %q: want tar, tgz or zip", s)
}

// ContentType is the format's media type.
func (f Format) ContentType() string {
	switch f {
	case FormatTgz:
		return "application/gzip"
	case FormatZip:
		return "application/zip"
	}
	return "application/x-tar"
}

// Ext is the usual file name extension of the format, with its dot.
func (f Format) Ext() string {
	switch f {
	case FormatTgz:
		return ".tgz"
	case FormatZip:
		return ".zip"
	}
	return ".tar"
}

// ErrNotArchive is wrapped by the error for input that is not an archive
// of a format fsio reads (or not of the format ImportOptions.Format asks for).
var ErrNotArchive = errors.New("not an archive")

// ErrNotTar is ErrNotArchive, by its older name.
var ErrNotTar = ErrNotArchive

// ImportTar is ImportArchive, by its older name: it reads zip archives too.
func ImportTar(ctx context.Context, fsys *vfs.FS, r io.Reader, dest string, opts ImportOptions) (Summary, error) {
	return ImportArchive(ctx, fsys, r, dest, opts)
}

// ImportArchive reads an archive from r and writes its entries to the
// workspace directory dest, creating dest and its parents as needed; an
// existing dest is merged into. The archive is a tar (plain or
// gzip-compressed) or a zip, recognised from its first bytes (see
// ImportOptions.Format); a zip is read from r directly when r is a regular
// *os.File, else spooled to a temporary file first (ImportOptions.TempDir).
// Entry names are relative to dest; an entry named "." or "./" carries dest's
// own attributes. Absolute names, names with a ".." element, duplicate names
// and a hard link to anything but an earlier entry are refused, and so are a
// zip's special files unless ImportOptions.SkipSpecial is set (a tar's FIFOs
// and devices are imported). The import
// is all or nothing within the limits of the options: see the package
// documentation.
func ImportArchive(ctx context.Context, fsys *vfs.FS, r io.Reader, dest string, opts ImportOptions) (Summary, error) {
	opts = opts.withDefaults()
	a, err := openArchive(r, &opts)
	if err != nil {
		return Summary{}, err
	}
	defer a.close()
	im, err := beginImport(ctx, fsys, dest, opts)
	if err != nil {
		return Summary{}, err
	}
	return im.end(a.feed(ctx, im))
}

// archiveReader is an archive opened for reading: a tar stream whose first
// header has been read, or a zip whose directory has been read.
type archiveReader struct {
	opts  *ImportOptions
	tr    *tar.Reader
	first *tar.Header // nil: the tar archive is empty
	src   io.Reader   // the decompressed tar stream, drained at the end
	zr    *zip.Reader
	done  []func()
}

func (a *archiveReader) close() {
	for _, f := range a.done {
		f()
	}
}

// feed gives the archive's entries to s.
func (a *archiveReader) feed(ctx context.Context, s sink) error {
	if a.zr != nil {
		return readZip(ctx, a.zr, s, a.opts)
	}
	return readTar(ctx, a.tr, a.first, a.src, s, a.opts)
}

// openArchive recognises r's format and reads as much of it as tells
// whether it is an archive at all (a tar's first header, a zip's
// directory), so that input which is not one changes nothing.
func openArchive(r io.Reader, opts *ImportOptions) (*archiveReader, error) {
	a := &archiveReader{opts: opts}
	var ra io.ReaderAt
	var size int64
	if f, ok := r.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil {
				ra, size = io.NewSectionReader(f, off, fi.Size()-off), fi.Size()-off
			}
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(6)
	if len(magic) == 0 {
		if err == nil || err == io.EOF {
			return nil, fmt.Errorf("%w: the input is empty", ErrNotArchive)
		}
		return nil, fmt.Errorf("read archive: %w", err)
	}
	isZip := bytes.HasPrefix(magic, []byte("PK\x03\x04")) || bytes.HasPrefix(magic, []byte("PK\x05\x06"))
	switch {
	case opts.Format == FormatZip && !isZip:
		return nil, fmt.Errorf("%w: the input is not a zip archive (it does not begin with PK\\3\\4)", ErrNotArchive)
	case opts.Format != FormatAuto && opts.Format != FormatZip && isZip:
		return nil, fmt.Errorf("%w: the input is a zip archive, not a tar", ErrNotArchive)
	case isZip:
		if ra == nil {
			spool, n, err := spoolZip(br, opts)
			if err != nil {
				return nil, err
			}
			a.done = append(a.done, func() { spool.Close(); os.Remove(spool.Name()) })
			ra, size = spool, n
		}
		zr, err := openZip(ra, size, opts)
		if err != nil {
			a.close()
			return nil, err
		}
		a.zr = zr
		return a, nil
	case bytes.HasPrefix(magic, []byte("\xfd7zXZ\x00")):
		return nil, fmt.Errorf("%w: the input is xz-compressed; decompress it first (xz -dc FILE | desk fs import -)", ErrNotArchive)
	case bytes.HasPrefix(magic, []byte("BZh")):
		return nil, fmt.Errorf("%w: the input is bzip2-compressed; decompress it first (bzip2 -dc FILE | desk fs import -)", ErrNotArchive)
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return nil, fmt.Errorf("%w: the input is zstd-compressed; decompress it first (zstd -dc FILE | desk fs import -)", ErrNotArchive)
	}
	src := io.Reader(br)
	if bytes.HasPrefix(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: read gzip: %v", ErrNotArchive, err)
		}
		a.done = append(a.done, func() { gz.Close() })
		src = gz
	}
	a.src = src
	a.tr = tar.NewReader(src)
	first, err := a.tr.Next()
	switch {
	case errors.Is(err, tar.ErrFieldTooLong):
		a.close()
		return nil, tarLimit()
	case errors.Is(err, tar.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum):
		a.close()
		return nil, fmt.Errorf("%w (%v)", ErrNotArchive, err)
	case err != nil && err != io.EOF:
		a.close()
		return nil, fmt.Errorf("read tar: %w", archiveErr(err))
	}
	a.first = first
	return a, nil
}

// tarLimit is the error for a tar header record over MaxHeaderLen.
func tarLimit() error {
	return fmt.Errorf("%w: a tar header record (PAX records, a GNU long name) is over archive/tar's %d-byte limit (MaxHeaderLen)", ErrLimit, MaxHeaderLen)
}

// spoolZip copies a zip stream to a temporary file, at most about
// opts.MaxBytes+opts.MaxMetaBytes bytes of it.
func spoolZip(r io.Reader, opts *ImportOptions) (*os.File, int64, error) {
	f, err := os.CreateTemp(opts.TempDir, "desk-zip-*")
	if err != nil {
		return nil, 0, fmt.Errorf("spool zip: %w", err)
	}
	limit := opts.MaxBytes + opts.MaxMetaBytes
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("%w: a zip archive of more than %d bytes (MaxBytes + MaxMetaBytes)", ErrLimit, limit)
	} else if err != nil {
		err = fmt.Errorf("spool zip: %w", err)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, 0, err
	}
	return f, n, nil
}

// ExportArchive writes the workspace entry src (followed if it is a
// symlink) to w as an archive of the format f (FormatAuto: tar). A
// directory gives its tree, as ExportTar describes; any other file an
// archive of one entry named by its base name (or ExportOptions.Name).
//
// A zip keeps what a tar does but xattrs (ExportOptions.Warn hears of them):
// Unix modes, setuid, setgid and sticky included; symlinks; uid and gid
// (Info-ZIP's "ux" field); mtime in seconds (the extended timestamp field,
// for every reader) and mtime and atime to 100 ns (the NTFS field); and hard
// links, whose every name holds the content, for every reader, while the
// later names carry a field of desk's own (ID 0x6b64, "dk": the first name)
// that makes ImportArchive link them again.
func ExportArchive(ctx context.Context, fsys *vfs.FS, src string, w io.Writer, f Format, opts ExportOptions) (Summary, error) {
	switch f {
	case FormatAuto, FormatTar:
		return ExportTar(ctx, fsys, src, w, opts)
	case FormatTgz:
		zw := gzip.NewWriter(w)
		sum, err := ExportTar(ctx, fsys, src, zw, opts)
		if err != nil {
			return sum, err // no gzip trailer either: the reader sees the stream end early
		}
		return sum, zw.Close()
	case FormatZip:
		ws, err := newWSWalker(ctx, fsys, src, opts)
		if err != nil {
			return Summary{}, err
		}
		zs := newZipSink(w, ws.prog, &ws.sum, opts)
		err = ws.run(zs)
		if err == nil {
			err = zs.close()
		}
		ws.sum.Elapsed = ws.prog.elapsed()
		return ws.sum, err
	}
	return Summary{}, fmt.Errorf("export: unknown archive format %q", f)
}

// archiveErr marks an error of the archive's format (damaged, cut short, a
// bad checksum) as ErrNotArchive, leaving the others (the source's own: a
// connection lost, a body over its limit) as they are.
func archiveErr(err error) error {
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, ErrNotArchive), errors.Is(err, ErrLimit):
		return err
	case errors.Is(err, tar.ErrHeader), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, gzip.ErrChecksum),
		errors.Is(err, gzip.ErrHeader), errors.Is(err, zip.ErrFormat), errors.Is(err, zip.ErrChecksum),
		errors.Is(err, zip.ErrAlgorithm), errors.As(err, &ce):
		return fmt.Errorf("%w: damaged or cut short: %w", ErrNotArchive, err)
	}
	return err
}

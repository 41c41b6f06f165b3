package fsio

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// ErrNotTar is wrapped by the error ImportTar returns for input that is not a
// tar archive.
var ErrNotTar = errors.New("not a tar archive")

// ImportTar reads a tar archive (plain or gzip-compressed, detected from its
// first bytes) from r and writes its entries to the workspace directory dest,
// creating dest and its parents as needed; an existing dest is merged into.
// Entry names are relative to dest; an entry named "." or "./" carries dest's
// own attributes. Absolute names and names with a ".." element are rejected,
// and so is a hard link to anything but an earlier entry. The import is all or
// nothing: see the package documentation.
func ImportTar(ctx context.Context, fsys *vfs.FS, r io.Reader, dest string, opts ImportOptions) (Summary, error) {
	src, closeSrc, err := decompress(r)
	if err != nil {
		return Summary{}, err
	}
	defer closeSrc()
	tr := tar.NewReader(src)
	// Read the first header before touching the workspace, so that input which
	// is not a tar archive at all changes nothing.
	first, err := tr.Next()
	if errors.Is(err, tar.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return Summary{}, fmt.Errorf("%w (%v)", ErrNotTar, err)
	}
	if err != nil && err != io.EOF {
		return Summary{}, fmt.Errorf("read tar: %w", err)
	}
	im, err := beginImport(ctx, fsys, dest, opts)
	if err != nil {
		return Summary{}, err
	}
	hdr := first
	for hdr != nil {
		if err := im.addTarEntry(hdr, tr); err != nil {
			return im.end(err)
		}
		hdr, err = tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return im.end(fmt.Errorf("read tar: %w", err))
		}
	}
	return im.end(nil)
}

// decompress returns r, or a decompressing reader if r starts with the gzip
// magic number. Other compressions are recognised and refused clearly.
func decompress(r io.Reader) (io.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, err := br.Peek(6)
	if len(magic) == 0 {
		if err == nil || err == io.EOF {
			return nil, nil, fmt.Errorf("%w: the input is empty", ErrNotTar)
		}
		return nil, nil, fmt.Errorf("read tar: %w", err)
	}
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("read gzip: %w", err)
		}
		return gz, func() { gz.Close() }, nil
	case bytes.HasPrefix(magic, []byte("\xfd7zXZ\x00")):
		return nil, nil, fmt.Errorf("%w: the input is xz-compressed; decompress it first (xz -dc FILE | desk fs import -)", ErrNotTar)
	case bytes.HasPrefix(magic, []byte("BZh")):
		return nil, nil, fmt.Errorf("%w: the input is bzip2-compressed; decompress it first (bzip2 -dc FILE | desk fs import -)", ErrNotTar)
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return nil, nil, fmt.Errorf("%w: the input is zstd-compressed; decompress it first (zstd -dc FILE | desk fs import -)", ErrNotTar)
	}
	return br, func() {}, nil
}

// addTarEntry converts a tar header to an entry and imports it.
func (im *importer) addTarEntry(hdr *tar.Header, body io.Reader) error {
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader:
		return nil // PAX global defaults: nothing to create
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		// Validate the name all the same: a bad name is an error whatever the type.
		if _, err := cleanEntryName(hdr.Name); err != nil {
			return err
		}
		im.skip(hdr.Name, "device files and FIFOs cannot be stored in a workspace")
		return nil
	}
	rel, err := cleanEntryName(hdr.Name)
	if err != nil {
		return err
	}
	e := &entry{
		src:   hdr.Name,
		rel:   rel,
		perm:  uint32(hdr.Mode) & 0o7777,
		uid:   hdr.Uid,
		gid:   hdr.Gid,
		atime: hdr.AccessTime,
		mtime: hdr.ModTime,
		size:  hdr.Size,
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		e.kind = kindDir
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse: // the reader turns legacy TypeRegA into TypeReg
		e.kind = kindFile
		e.body = body
	case tar.TypeSymlink:
		if hdr.Linkname == "" {
			return &EntryError{hdr.Name, errors.New("symlink with an empty target")}
		}
		e.kind, e.target = kindSymlink, hdr.Linkname
	case tar.TypeLink:
		target, err := cleanEntryName(hdr.Linkname)
		if err != nil {
			return &EntryError{hdr.Name, fmt.Errorf("hard link target: %w", err)}
		}
		e.kind, e.target = kindHardlink, target
	default:
		im.skip(hdr.Name, fmt.Sprintf("unsupported tar entry type %q", hdr.Typeflag))
		return nil
	}
	if e.rel == "" && e.kind != kindDir {
		return &EntryError{hdr.Name, errors.New("only a directory can be named \".\"")}
	}
	var names []string
	for k := range hdr.PAXRecords {
		if name, ok := strings.CutPrefix(k, paxXattr); ok && strings.HasPrefix(name, xattrPrefix) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		e.xattrs = append(e.xattrs, xattr{name: name, value: []byte(hdr.PAXRecords[paxXattr+name])})
	}
	return im.add(e)
}

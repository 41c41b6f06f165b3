package fsio

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// maxTarTrailer is how much data readTar reads after a tar's end-of-archive
// marker (the padding of the last record, and the end of a gzip stream,
// whose checksum is then verified); more is refused.
const maxTarTrailer = 1 << 20

// readTar gives the entries of a tar stream, whose first header has been
// read (nil: the archive is empty), to s.
func readTar(ctx context.Context, tr *tar.Reader, first *tar.Header, src io.Reader, s sink, opts *ImportOptions) error {
	hdr := first
	for hdr != nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := addTarEntry(s, hdr, tr, opts); err != nil {
			return err
		}
		var err error
		hdr, err = tr.Next()
		switch {
		case err == io.EOF:
			hdr = nil
		case errors.Is(err, tar.ErrFieldTooLong):
			return tarLimit()
		case err != nil:
			return fmt.Errorf("read tar: %w", archiveErr(err))
		}
	}
	// Read what follows the end-of-archive marker, so that a gzip stream's
	// checksum is verified.
	n, err := io.Copy(io.Discard, io.LimitReader(src, maxTarTrailer+1))
	switch {
	case err != nil:
		return fmt.Errorf("read tar: after the end of the archive: %w", archiveErr(err))
	case n > maxTarTrailer:
		return fmt.Errorf("%w: more than %d bytes after the end of the tar archive", ErrNotArchive, maxTarTrailer)
	}
	return nil
}

// addTarEntry converts a tar header to an entry and gives it to s.
func addTarEntry(s sink, hdr *tar.Header, body io.Reader, opts *ImportOptions) error {
	switch hdr.Typeflag {
	case tar.TypeXGlobalHeader:
		return nil // PAX global defaults: nothing to create
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		if opts.SkipSpecial {
			// Validate the name all the same: a bad name is an error whatever the type.
			if _, err := cleanEntryName(hdr.Name); err != nil {
				return err
			}
			what := map[byte]string{tar.TypeChar: "character device", tar.TypeBlock: "block device", tar.TypeFifo: "FIFO"}[hdr.Typeflag]
			s.skip(hdr.Name, "a "+what+" (SkipSpecial)")
			return nil
		}
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
		if err := checkTarget(hdr.Name, hdr.Linkname); err != nil {
			return err
		}
		e.kind, e.target = kindSymlink, hdr.Linkname
	case tar.TypeLink:
		target, err := cleanEntryName(hdr.Linkname)
		if err != nil {
			return &EntryError{hdr.Name, fmt.Errorf("hard link target: %w", err)}
		}
		e.kind, e.target = kindHardlink, target
	case tar.TypeFifo:
		e.kind, e.typ = kindSpecial, vfs.S_IFIFO
	case tar.TypeChar, tar.TypeBlock:
		if hdr.Devmajor < 0 || hdr.Devmajor > 1<<32-1 || hdr.Devminor < 0 || hdr.Devminor > 1<<32-1 {
			return &EntryError{hdr.Name, fmt.Errorf("device number %d:%d out of range: %w", hdr.Devmajor, hdr.Devminor, errno(syscall.EINVAL))}
		}
		e.kind, e.typ = kindSpecial, vfs.S_IFCHR
		if hdr.Typeflag == tar.TypeBlock {
			e.typ = vfs.S_IFBLK
		}
		e.rdev = unix.Mkdev(uint32(hdr.Devmajor), uint32(hdr.Devminor))
	default:
		s.skip(hdr.Name, fmt.Sprintf("unsupported tar entry type %q", hdr.Typeflag))
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
	return s.add(e)
}

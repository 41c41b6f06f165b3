package fsio

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// ExportTar writes the workspace directory src (followed if it is a symlink)
// and everything below it to w as a PAX tar archive. The first entry is "./"
// with src's own attributes; the others are named relative to src, parents
// before children, in name order, so exporting the same tree twice gives the
// same bytes. Regular files with several names inside src become one file and
// hard link entries. Times keep their nanoseconds; user.* xattrs are written as
// SCHILY.xattr records. ctime is not written, since no import can restore it.
//
// On error the archive is left without its end-of-archive trailer, so that a
// reader notices it is incomplete.
func ExportTar(ctx context.Context, fsys *vfs.FS, src string, w io.Writer, opts ExportOptions) (Summary, error) {
	src = cleanAbs(src)
	fi, err := fsys.Stat(ctx, src)
	if err != nil {
		return Summary{}, err
	}
	if !fi.IsDir() {
		return Summary{}, &fs.PathError{Op: "export", Path: src, Err: syscall.ENOTDIR}
	}
	root, err := fsys.Realpath(ctx, src)
	if err != nil {
		return Summary{}, err
	}
	ex := &exporter{
		ctx:   ctx,
		fsys:  fsys,
		tw:    tar.NewWriter(w),
		prog:  newProgress(opts.Progress, opts.ProgressInterval),
		links: map[uint64]linkInfo{},
	}
	err = ex.walk(root, "", fi.Attr())
	if err == nil {
		err = ex.tw.Close()
	}
	ex.sum.Elapsed = ex.prog.elapsed()
	return ex.sum, err
}

type exporter struct {
	ctx   context.Context
	fsys  *vfs.FS
	tw    *tar.Writer
	prog  *progress
	sum   Summary
	links map[uint64]linkInfo // multiply-linked files seen so far, by inode
}

// linkInfo remembers the first name of a multiply-linked file and its times.
type linkInfo struct {
	name         string
	mtime, atime time.Time
}

// walk writes the entry abs (named rel inside the archive) and, for a
// directory, its contents.
func (ex *exporter) walk(abs, rel string, a vfs.Attr) error {
	if err := ex.ctx.Err(); err != nil {
		return err
	}
	hdr := &tar.Header{
		Name:       rel,
		Mode:       int64(a.Mode & 0o7777),
		Uid:        int(a.Uid),
		Gid:        int(a.Gid),
		ModTime:    a.Mtime,
		AccessTime: a.Atime,
		Format:     tar.FormatPAX,
	}
	switch {
	case a.IsDir():
		hdr.Typeflag = tar.TypeDir
		if rel == "" {
			hdr.Name = "./"
		} else {
			hdr.Name = rel + "/"
		}
	case a.IsRegular():
		hdr.Typeflag = tar.TypeReg
		hdr.Size = a.Size
		if a.Nlink > 1 {
			if first, ok := ex.links[a.Ino]; ok {
				// Reading the first name may have moved the shared atime: describe
				// the link with the attributes the file had when first seen.
				hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first.name, 0
				hdr.ModTime, hdr.AccessTime = first.mtime, first.atime
			} else {
				ex.links[a.Ino] = linkInfo{rel, a.Mtime, a.Atime}
			}
		}
	case a.IsSymlink():
		target, err := ex.fsys.Readlink(ex.ctx, abs)
		if err != nil {
			return err
		}
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, target
	default:
		return &fs.PathError{Op: "export", Path: abs, Err: fmt.Errorf("unknown file type %#o", a.Mode&vfs.S_IFMT)}
	}
	if hdr.Typeflag != tar.TypeLink {
		if err := ex.addXattrs(abs, hdr); err != nil {
			return err
		}
	}
	if err := ex.tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("write tar header for %s: %w", abs, err)
	}
	ex.prog.p.Entries++
	switch hdr.Typeflag {
	case tar.TypeDir:
		ex.sum.Dirs++
	case tar.TypeSymlink:
		ex.sum.Symlinks++
	case tar.TypeLink:
		ex.sum.Hardlinks++
		ex.prog.p.Files++
	case tar.TypeReg:
		ex.prog.p.Files++
		if err := ex.copyFile(abs, a.Size); err != nil {
			return err
		}
		ex.sum.Files++
	}
	ex.prog.tick()
	if !a.IsDir() {
		return nil
	}
	ents, err := ex.fsys.ReadDir(ex.ctx, abs)
	if err != nil {
		return err
	}
	for _, de := range ents {
		childAbs := path.Join(abs, de.Name)
		fi, err := ex.fsys.Lstat(ex.ctx, childAbs)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while we walk
		}
		if err != nil {
			return err
		}
		if err := ex.walk(childAbs, path.Join(rel, de.Name), fi.Attr()); err != nil {
			return err
		}
	}
	return nil
}

// copyFile writes exactly size bytes of the file abs to the archive.
func (ex *exporter) copyFile(abs string, size int64) error {
	// O_NOATIME asks the store not to record this read in the file's atime
	// (a store that does not know the flag ignores it); O_NOFOLLOW guards
	// against the entry being replaced by a symlink since it was listed.
	f, err := ex.fsys.OpenFile(ex.ctx, abs, os.O_RDONLY|syscall.O_NOATIME|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := &countingReader{r: f, p: ex.prog, sum: &ex.sum}
	n, err := io.CopyN(ex.tw, cr, size)
	if err == io.EOF {
		return fmt.Errorf("export %s: the file shrank from %d to %d bytes while it was read", abs, size, n)
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", abs, err)
	}
	return nil
}

// addXattrs records the user.* extended attributes of abs in hdr.
func (ex *exporter) addXattrs(abs string, hdr *tar.Header) error {
	names, err := ex.fsys.Listxattr(ex.ctx, abs)
	if err != nil {
		if errors.Is(err, syscall.ENOTSUP) {
			return nil
		}
		return err
	}
	for _, name := range names {
		if !strings.HasPrefix(name, xattrPrefix) {
			continue
		}
		v, err := ex.fsys.Getxattr(ex.ctx, abs, name)
		if errors.Is(err, syscall.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return err
		}
		if hdr.PAXRecords == nil {
			hdr.PAXRecords = map[string]string{}
		}
		hdr.PAXRecords[paxXattr+name] = string(v)
		ex.sum.Xattrs++
	}
	return nil
}

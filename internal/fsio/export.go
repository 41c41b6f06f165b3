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

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// ExportTar writes the workspace directory src (followed if it is a symlink)
// and everything below it to w as a PAX tar archive. The first entry is "./"
// with src's own attributes (unless ExportOptions.OmitRoot); the others are
// named relative to src, parents before children, in name order, so
// exporting the same tree twice gives the same bytes. Regular files with
// several names inside src become one file and hard link entries. Times keep
// their nanoseconds; user.* xattrs are written as SCHILY.xattr records. ctime
// is not written, since no import can restore it. A src that is not a
// directory gives an archive of one entry, named by its base name (or
// ExportOptions.Name).
//
// On error the archive is left without its end-of-archive trailer, so that a
// reader notices it is incomplete.
func ExportTar(ctx context.Context, fsys *vfs.FS, src string, w io.Writer, opts ExportOptions) (Summary, error) {
	ws, err := newWSWalker(ctx, fsys, src, opts)
	if err != nil {
		return Summary{}, err
	}
	ts := &tarSink{tw: tar.NewWriter(w), prog: ws.prog, sum: &ws.sum, warn: opts.Warn}
	err = ws.run(ts)
	if err == nil {
		err = ts.tw.Close()
	}
	ws.sum.Elapsed = ws.prog.elapsed()
	return ws.sum, err
}

// wsPage is the directory page size of a workspace walk. The walk holds one
// page at a time: it drops the page when it goes down into a directory and
// reads on after that directory when it comes back, so memory does not grow
// with depth.
const wsPage = 256

// wsWalker feeds a workspace tree to a sink, in name order.
type wsWalker struct {
	ctx   context.Context
	fsys  *vfs.FS
	opts  ExportOptions
	prog  *progress
	sum   Summary
	root  string   // src, symlinks resolved
	attr  vfs.Attr // src's attributes
	name  string   // the one entry's name when src is not a directory
	links map[uint64]linkInfo
}

// linkInfo remembers the first name of a multiply-linked file and its times.
type linkInfo struct {
	name         string
	mtime, atime time.Time
}

func newWSWalker(ctx context.Context, fsys *vfs.FS, src string, opts ExportOptions) (*wsWalker, error) {
	src = cleanAbs(src)
	stat := fsys.Stat
	if opts.NoFollow {
		stat = fsys.Lstat
	}
	fi, err := stat(ctx, src)
	if err != nil {
		return nil, err
	}
	root := src
	if a := fi.Attr(); !a.IsSymlink() {
		if root, err = fsys.Realpath(ctx, src); err != nil {
			return nil, err
		}
	} else if dir, err := fsys.Realpath(ctx, path.Dir(src)); err == nil {
		root = path.Join(dir, path.Base(src))
	} else {
		return nil, err
	}
	w := &wsWalker{
		ctx:   ctx,
		fsys:  fsys,
		opts:  opts,
		prog:  newProgress(opts.Progress, opts.ProgressInterval),
		root:  root,
		attr:  fi.Attr(),
		links: map[uint64]linkInfo{},
	}
	if !w.attr.IsDir() {
		w.name = opts.Name
		if w.name == "" {
			w.name = path.Base(src)
		}
		if w.name == "/" || strings.Contains(w.name, "/") || w.name == ".." || w.name == "." {
			return nil, &fs.PathError{Op: "export", Path: src, Err: syscall.EINVAL}
		}
	}
	return w, nil
}

// run gives the tree to s.
func (w *wsWalker) run(s sink) error {
	if !w.attr.IsDir() {
		e, err := w.entry(w.root, w.name, w.attr)
		if err != nil {
			return err
		}
		return s.add(e)
	}
	if !w.opts.OmitRoot {
		e, err := w.entry(w.root, "", w.attr)
		if err != nil {
			return err
		}
		if err := s.add(e); err != nil {
			return err
		}
	}
	return w.dir(s, w.root, "")
}

// dir gives the entries below the directory abs (named rel) to s.
func (w *wsWalker) dir(s sink, abs, rel string) error {
	after := ""
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		// A negative size limit loads no content, so the listing moves no atime.
		ents, err := w.fsys.ReadDirFiles(w.ctx, abs, after, wsPage, -1)
		if err != nil {
			return err
		}
		sub := ""
		for i := range ents {
			de := &ents[i]
			childAbs, childRel := path.Join(abs, de.Name), path.Join(rel, de.Name)
			e, err := w.entry(childAbs, childRel, de.Attr)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while we walk
			}
			if err != nil {
				return err
			}
			if err := s.add(e); err != nil {
				return err
			}
			if de.Attr.IsDir() {
				sub = de.Name
				break
			}
		}
		if sub != "" {
			ents = nil
			if err := w.dir(s, path.Join(abs, sub), path.Join(rel, sub)); err != nil {
				return err
			}
			after = sub
			continue
		}
		if len(ents) < wsPage {
			return nil
		}
		after = ents[len(ents)-1].Name
	}
}

// entry describes the workspace entry abs, named rel in the archive.
func (w *wsWalker) entry(abs, rel string, a vfs.Attr) (*entry, error) {
	e := &entry{
		src:   abs,
		rel:   rel,
		perm:  a.Mode & 0o7777,
		uid:   int(a.Uid),
		gid:   int(a.Gid),
		atime: a.Atime,
		mtime: a.Mtime,
		size:  a.Size,
	}
	switch {
	case a.IsDir():
		e.kind = kindDir
	case a.IsRegular():
		e.kind = kindFile
		e.open = func() (io.ReadCloser, error) {
			// O_NOATIME asks the store not to record this read in the file's
			// atime; O_NOFOLLOW guards against the entry being replaced by a
			// symlink since it was listed.
			return w.fsys.OpenFile(w.ctx, abs, os.O_RDONLY|syscall.O_NOATIME|syscall.O_NOFOLLOW, 0)
		}
		if a.Nlink > 1 && w.attr.IsDir() {
			if first, ok := w.links[a.Ino]; ok {
				// Reading the first name may have moved the shared atime: describe
				// the link with the attributes the file had when first seen.
				e.kind, e.target = kindHardlink, first.name
				e.mtime, e.atime = first.mtime, first.atime
				return e, nil
			}
			w.links[a.Ino] = linkInfo{rel, a.Mtime, a.Atime}
		}
	case a.IsSymlink():
		target, err := w.fsys.Readlink(w.ctx, abs)
		if err != nil {
			return nil, err
		}
		e.kind, e.target = kindSymlink, target
		return e, nil
	case a.IsSpecial():
		e.kind, e.typ, e.rdev = kindSpecial, a.Mode&vfs.S_IFMT, a.Rdev
		if a.Nlink > 1 && w.attr.IsDir() {
			if first, ok := w.links[a.Ino]; ok {
				e.kind, e.target = kindHardlink, first.name // typ kept: a link to a special file
				return e, nil
			}
			w.links[a.Ino] = linkInfo{rel, a.Mtime, a.Atime}
		}
		return e, nil // no xattrs: user.* is for files and directories
	default:
		return nil, &fs.PathError{Op: "export", Path: abs, Err: fmt.Errorf("unknown file type %#o", a.Mode&vfs.S_IFMT)}
	}
	xs, err := w.xattrs(abs)
	if err != nil {
		return nil, err
	}
	e.xattrs = xs
	return e, nil
}

// xattrs reads the user.* extended attributes of abs.
func (w *wsWalker) xattrs(abs string) ([]xattr, error) {
	names, err := w.fsys.Listxattr(w.ctx, abs)
	if err != nil {
		if errors.Is(err, syscall.ENOTSUP) {
			return nil, nil
		}
		return nil, err
	}
	var out []xattr
	for _, name := range names {
		if !strings.HasPrefix(name, xattrPrefix) {
			continue
		}
		v, err := w.fsys.Getxattr(w.ctx, abs, name)
		if errors.Is(err, syscall.ENODATA) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, xattr{name: name, value: v})
	}
	return out, nil
}

// tarSink writes entries to a PAX tar archive.
type tarSink struct {
	tw   *tar.Writer
	prog *progress
	sum  *Summary
	warn func(string)
}

func (t *tarSink) skip(src, why string) {
	t.sum.Skipped++
	if t.warn != nil {
		t.warn(fmt.Sprintf("skipped %q: %s", src, why))
	}
}

func (t *tarSink) add(e *entry) error {
	hdr := &tar.Header{
		Name:       e.rel,
		Mode:       int64(e.perm & 0o7777),
		Uid:        e.uid,
		Gid:        e.gid,
		ModTime:    e.mtime,
		AccessTime: e.atime,
		Format:     tar.FormatPAX,
	}
	switch e.kind {
	case kindDir:
		hdr.Typeflag = tar.TypeDir
		if e.rel == "" {
			hdr.Name = "./"
		} else {
			hdr.Name = e.rel + "/"
		}
	case kindFile:
		hdr.Typeflag, hdr.Size = tar.TypeReg, e.size
	case kindSymlink:
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.target
		hdr.Mode = 0o777
	case kindHardlink:
		if e.typ == vfs.S_IFSOCK {
			t.skip(e.src, "a tar cannot hold a socket")
			return nil
		}
		hdr.Typeflag, hdr.Linkname = tar.TypeLink, e.target
	case kindSpecial:
		switch e.typ {
		case vfs.S_IFIFO:
			hdr.Typeflag = tar.TypeFifo
		case vfs.S_IFCHR, vfs.S_IFBLK:
			hdr.Typeflag = tar.TypeChar
			if e.typ == vfs.S_IFBLK {
				hdr.Typeflag = tar.TypeBlock
			}
			hdr.Devmajor, hdr.Devminor = int64(unix.Major(e.rdev)), int64(unix.Minor(e.rdev))
		default:
			// Tar has no type for a socket (GNU tar leaves them out too).
			t.skip(e.src, "a tar cannot hold a socket")
			return nil
		}
	}
	if e.kind != kindHardlink && len(e.xattrs) > 0 {
		hdr.PAXRecords = map[string]string{}
		for _, x := range e.xattrs {
			hdr.PAXRecords[paxXattr+x.name] = string(x.value)
		}
		t.sum.Xattrs += int64(len(e.xattrs))
	}
	if err := t.tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("write tar header for %s: %w", e.src, err)
	}
	t.prog.p.Entries++
	switch e.kind {
	case kindDir:
		t.sum.Dirs++
	case kindSymlink:
		t.sum.Symlinks++
	case kindSpecial:
		t.sum.Special++
	case kindHardlink:
		t.sum.Hardlinks++
		t.prog.p.Files++
	case kindFile:
		t.prog.p.Files++
		if err := copyContent(t.tw, e, t.prog, t.sum); err != nil {
			return err
		}
		t.sum.Files++
	}
	t.prog.tick()
	return nil
}

// copyContent writes exactly e.size bytes of e's content to w.
func copyContent(w io.Writer, e *entry, prog *progress, sum *Summary) error {
	r, release, err := e.content()
	if err != nil {
		return err
	}
	defer release()
	cr := &countingReader{r: r, p: prog, sum: sum}
	n, err := io.CopyN(w, cr, e.size)
	if err == io.EOF {
		return fmt.Errorf("export %s: the file shrank from %d to %d bytes while it was read", e.src, e.size, n)
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", e.src, err)
	}
	return nil
}

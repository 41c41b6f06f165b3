package fsio

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/internal/vfs"
)

// ArchiveHost writes the host file or directory hostPath to w as an archive
// of the format f (FormatAuto: tar), as ExportArchive writes a workspace
// entry: a directory's tree with "./" first (unless ExportOptions.OmitRoot),
// any other file as one entry named by its base name (or
// ExportOptions.Name). A symlink at hostPath is archived as a symlink
// (resolve it first to archive what it points to); symlinks below it are
// never followed. Hard links within the tree are recognised by device and
// inode number; FIFOs, sockets and devices are skipped with a warning. Host
// files are read without moving their atimes where the kernel allows it.
func ArchiveHost(ctx context.Context, hostPath string, w io.Writer, f Format, opts ExportOptions) (Summary, error) {
	fi, err := os.Lstat(hostPath)
	if err != nil {
		return Summary{}, err
	}
	prog := newProgress(opts.Progress, opts.ProgressInterval)
	var sum Summary
	var s sink
	var finish func() error
	switch f {
	case FormatAuto, FormatTar, FormatTgz:
		out := w
		var zw *gzip.Writer
		if f == FormatTgz {
			zw = gzip.NewWriter(w)
			out = zw
		}
		ts := &tarSink{tw: tar.NewWriter(out), prog: prog, sum: &sum, warn: opts.Warn}
		s = ts
		finish = func() error {
			if err := ts.tw.Close(); err != nil {
				return err
			}
			if zw != nil {
				return zw.Close()
			}
			return nil
		}
	case FormatZip:
		zs := newZipSink(w, prog, &sum, opts)
		s, finish = zs, zs.close
	default:
		return Summary{}, fmt.Errorf("archive: unknown archive format %q", f)
	}
	hw := &hostWalker{ctx: ctx, s: s, links: map[devIno]string{}}
	if fi.IsDir() {
		if opts.OmitRoot {
			hw.s = omitRoot{s}
		}
		err = hw.walk(hostPath, "", fi)
	} else {
		name := opts.Name
		if name == "" {
			name = filepath.Base(hostPath)
		}
		if name == "." || name == ".." || name == "/" || strings.Contains(name, "/") {
			return Summary{}, &fs.PathError{Op: "archive", Path: hostPath, Err: syscall.EINVAL}
		}
		err = hw.walk(hostPath, name, fi)
	}
	if err == nil {
		err = finish()
	}
	sum.Elapsed = prog.elapsed()
	return sum, err
}

// omitRoot is a sink that drops the root entry.
type omitRoot struct{ sink }

func (o omitRoot) add(e *entry) error {
	if e.rel == "" {
		return nil
	}
	return o.sink.add(e)
}

// ExtractHost reads an archive (as ImportArchive does, with the same
// checks and limits) from r and writes its entries to the host directory
// dest: created if missing (its parent must exist), merged into if it
// exists (existing files replaced, directories merged, a directory that
// the archive has as a non-directory a conflict). Entries are written to
// a private staging directory first (".desk-extract-" and 16 hexadecimal
// digits, in dest when it exists, else beside it), then moved into place by
// renames, so that an archive refused or cut short leaves dest as it was.
// Owners are applied only with ImportOptions.Owners (which needs root).
// Extended attributes the host filesystem refuses are reported to
// ImportOptions.Warn.
func ExtractHost(ctx context.Context, r io.Reader, dest string, opts ImportOptions) (Summary, error) {
	opts = opts.withDefaults()
	a, err := openArchive(r, &opts)
	if err != nil {
		return Summary{}, err
	}
	defer a.close()
	x, err := beginExtract(ctx, dest, opts)
	if err != nil {
		return Summary{}, err
	}
	return x.end(a.feed(ctx, x))
}

// extractPrefix begins the name of ExtractHost's staging directories.
const extractPrefix = ".desk-extract-"

// extractor is a sink writing to a host directory through a staging
// directory.
type extractor struct {
	stager
	dest       string // absolute host path
	destExists bool
	holder     string      // the directory holding the staging directory
	holderAttr unix.Stat_t // its times before, restored on failure
	staging    string
	xattrWarn  bool
}

func beginExtract(ctx context.Context, dest string, opts ImportOptions) (*extractor, error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, err
	}
	x := &extractor{stager: newStager(ctx, opts), dest: abs}
	x.g.opts = &x.opts
	fi, err := os.Stat(abs)
	switch {
	case err == nil && !fi.IsDir():
		return nil, &fs.PathError{Op: "extract", Path: abs, Err: syscall.ENOTDIR}
	case err == nil:
		x.destExists, x.holder = true, abs
	case errors.Is(err, fs.ErrNotExist):
		x.holder = filepath.Dir(abs)
		pfi, err := os.Stat(x.holder)
		if err != nil {
			return nil, err
		}
		if !pfi.IsDir() {
			return nil, &fs.PathError{Op: "extract", Path: x.holder, Err: syscall.ENOTDIR}
		}
	default:
		return nil, err
	}
	if err := unix.Stat(x.holder, &x.holderAttr); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: x.holder, Err: err}
	}
	for range 10 {
		name := filepath.Join(x.holder, fmt.Sprintf("%s%016x", extractPrefix, rand.Uint64()))
		err = os.Mkdir(name, 0o700)
		if err == nil {
			x.staging = name
			return x, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("create staging directory in %s: %w", x.holder, err)
}

func (x *extractor) full(rel string) string {
	if rel == "" {
		return x.staging
	}
	return filepath.Join(x.staging, filepath.FromSlash(rel))
}

func (x *extractor) add(e *entry) error { return x.entry(e, x.put) }

// put writes the entry e (not the root) under the staging directory.
func (x *extractor) put(e *entry) error {
	if err := x.ensureDir(e.src, path.Dir(e.rel)); err != nil {
		return err
	}
	full := x.full(e.rel)
	if x.dirs[e.rel] && e.kind == kindDir {
		if x.dirAttrs[e.rel] != nil {
			return duplicate(e)
		}
	} else {
		if x.dirs[e.rel] {
			return duplicate(e)
		}
		if _, err := os.Lstat(full); err == nil {
			return duplicate(e)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return entryErr(e.src, err)
		}
	}
	switch e.kind {
	case kindDir:
		if !x.dirs[e.rel] {
			if err := os.Mkdir(full, 0o700); err != nil {
				return entryErr(e.src, err)
			}
			if err := x.staged(e.rel); err != nil {
				return err
			}
		}
		if err := x.g.keep(keptEntry(e)); err != nil {
			return err
		}
		x.dirAttrs[e.rel] = e
		x.sum.Dirs++
	case kindFile:
		x.prog.p.Files++
		if err := x.writeFile(full, e); err != nil {
			return err
		}
		x.sum.Files++
	case kindSymlink:
		if err := os.Symlink(e.target, full); err != nil {
			return entryErr(e.src, err)
		}
		if err := x.setAttrs(full, e); err != nil {
			return err
		}
		x.sum.Symlinks++
	case kindSpecial:
		if e.typ != vfs.S_IFIFO {
			// A device made on the host from an archive would reach the
			// host's hardware: that is for tar run as root, not desk.
			return special(x, e.src, specialName(e.typ)+" on the host", x.opts.SkipSpecial)
		}
		if err := unix.Mknod(full, unix.S_IFIFO|0o600, 0); err != nil {
			return entryErr(e.src, &fs.PathError{Op: "mkfifo", Path: full, Err: err})
		}
		if err := x.setAttrs(full, e); err != nil {
			return err
		}
		x.sum.Special++
	case kindHardlink:
		dir := path.Dir(e.target)
		if dir == "." {
			dir = ""
		}
		fi, err := os.Lstat(x.full(e.target))
		if e.target == "" || !x.dirs[dir] || err != nil {
			return &EntryError{e.src, fmt.Errorf("hard link target %q is not an earlier entry of the source", e.target)}
		}
		if !fi.Mode().IsRegular() && fi.Mode().Type() != fs.ModeNamedPipe {
			return &EntryError{e.src, fmt.Errorf("hard link target %q is not a regular file or a FIFO", e.target)}
		}
		if err := os.Link(x.full(e.target), full); err != nil {
			return entryErr(e.src, err)
		}
		x.prog.p.Files++
		x.sum.Hardlinks++
	}
	return nil
}

// ensureDir makes sure rel is a real directory of the staging tree,
// creating missing parents; it never follows a symlink.
func (x *extractor) ensureDir(src, rel string) error {
	if rel == "." || rel == "" || x.dirs[rel] {
		return nil
	}
	if err := x.ensureDir(src, path.Dir(rel)); err != nil {
		return err
	}
	full := x.full(rel)
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(full, 0o700); err != nil {
			return entryErr(src, err)
		}
	case err != nil:
		return entryErr(src, err)
	case !fi.IsDir():
		return parentNotDir(src, rel, fi.Mode()&fs.ModeSymlink != 0)
	}
	return x.staged(rel)
}

// writeFile creates a new file with e's content and attributes.
func (x *extractor) writeFile(full string, e *entry) error {
	body, release, err := e.content()
	if err != nil {
		return entryErr(e.src, err)
	}
	defer release()
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return entryErr(e.src, err)
	}
	cr := &countingReader{r: body, p: x.prog, sum: &x.sum, max: x.opts.MaxBytes}
	er := &errReader{r: cr}
	_, err = io.Copy(f, er)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(er.err, ErrLimit):
		return &EntryError{e.src, er.err}
	case er.err != nil:
		return &EntryError{e.src, fmt.Errorf("read: %w", archiveErr(er.err))}
	case err != nil:
		return entryErr(e.src, err)
	}
	return x.setAttrs(full, e)
}

// setAttrs applies owner, mode, xattrs and times to full, in that order
// (a chown clears setuid bits).
func (x *extractor) setAttrs(full string, e *entry) error {
	if x.opts.Owners {
		if err := os.Lchown(full, e.uid, e.gid); err != nil {
			return entryErr(e.src, err)
		}
	}
	if e.kind != kindSymlink {
		if err := os.Chmod(full, vfs.UnixToFileMode(e.perm&0o7777)); err != nil {
			return entryErr(e.src, err)
		}
		for _, xa := range e.xattrs {
			if err := unix.Lsetxattr(full, xa.name, xa.value, 0); err != nil {
				if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
					if !x.xattrWarn {
						x.warn("%q: extended attributes not kept: the host filesystem refused %s (%v)", e.src, xa.name, err)
						x.xattrWarn = true
					}
					continue
				}
				return entryErr(e.src, &fs.PathError{Op: "setxattr", Path: full, Err: err})
			}
			x.sum.Xattrs++
		}
	} else if len(e.xattrs) > 0 {
		x.warn("entry %q: extended attributes on a symlink are not supported; skipped", e.src)
	}
	if e.atime.IsZero() && e.mtime.IsZero() {
		return nil
	}
	ts := []unix.Timespec{timespec(e.atime), timespec(e.mtime)}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, full, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return entryErr(e.src, &fs.PathError{Op: "utimensat", Path: full, Err: err})
	}
	return nil
}

func timespec(t time.Time) unix.Timespec {
	if t.IsZero() {
		return unix.Timespec{Nsec: unix.UTIME_OMIT}
	}
	return unix.NsecToTimespec(t.UnixNano())
}

// end moves the staged tree into place and applies the directories'
// attributes, or, on failure, removes the staging tree.
func (x *extractor) end(err error) (Summary, error) {
	if err == nil {
		err = x.ctx.Err()
	}
	if err == nil {
		err = x.commit()
	}
	if err != nil {
		x.abort()
	}
	x.sum.Elapsed = x.prog.elapsed()
	return x.sum, err
}

// abort removes the staging tree (making its directories writable first)
// and restores the times of the directory that held it.
func (x *extractor) abort() {
	if x.staging == "" {
		return
	}
	filepath.WalkDir(x.staging, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	if os.RemoveAll(x.staging) == nil {
		ts := []unix.Timespec{x.holderAttr.Atim, x.holderAttr.Mtim}
		unix.UtimesNanoAt(unix.AT_FDCWD, x.holder, ts, 0)
	}
}

// commit moves the staged tree to dest: one rename when dest does not
// exist, else the moves of a plan checked before anything moves. Then the
// directories get their attributes, deepest first.
func (x *extractor) commit() error {
	if !x.destExists {
		if err := os.Rename(x.staging, x.dest); err != nil {
			return err
		}
		x.staging = ""
	} else {
		var ops []mergeOp
		if err := x.plan("", &ops); err != nil {
			return err
		}
		for _, op := range ops {
			from, to := x.full(op.rel), filepath.Join(x.dest, filepath.FromSlash(op.rel))
			switch op.how {
			case mergeReplace:
				if err := os.Remove(to); err != nil {
					return err
				}
				fallthrough
			case mergeMove:
				if err := os.Rename(from, to); err != nil {
					return err
				}
			case mergeDone:
				if err := os.Remove(from); err != nil {
					return err
				}
			}
		}
		if err := os.Remove(x.staging); err != nil {
			return err
		}
		x.staging = ""
	}
	rels := make([]string, 0, len(x.dirAttrs))
	for rel := range x.dirAttrs {
		if rel == "" && x.destExists && x.opts.KeepDestAttrs {
			continue
		}
		rels = append(rels, rel)
	}
	deepestFirst(rels)
	for _, rel := range rels {
		full := x.dest
		if rel != "" {
			full = filepath.Join(x.dest, filepath.FromSlash(rel))
		}
		if err := x.setAttrs(full, x.dirAttrs[rel]); err != nil {
			return err
		}
	}
	return nil
}

// plan lists the moves that merge the staged directory rel into dest, as
// the importer's plan does.
func (x *extractor) plan(rel string, ops *[]mergeOp) error {
	ents, err := readHostDir(x.full(rel))
	if err != nil {
		return err
	}
	for _, de := range ents {
		childRel := path.Join(rel, de.Name())
		if err := x.g.keep(48 + len(childRel)); err != nil {
			return err
		}
		stagedDir := de.IsDir()
		fi, err := os.Lstat(filepath.Join(x.dest, filepath.FromSlash(childRel)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			*ops = append(*ops, mergeOp{childRel, mergeMove})
		case err != nil:
			return err
		case stagedDir && fi.IsDir():
			if err := x.plan(childRel, ops); err != nil {
				return err
			}
			*ops = append(*ops, mergeOp{childRel, mergeDone})
		case fi.IsDir():
			return &EntryError{childRel, fmt.Errorf("is a directory in %s but not in the source; not replaced (%w)", x.dest, errno(syscall.EISDIR))}
		case stagedDir:
			*ops = append(*ops, mergeOp{childRel, mergeReplace})
		default:
			*ops = append(*ops, mergeOp{childRel, mergeMove})
		}
	}
	return nil
}

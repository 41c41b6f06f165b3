package fsio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// kind is the type of an entry to import.
type kind int

const (
	kindDir kind = iota
	kindFile
	kindSymlink
	kindHardlink
)

// xattr is one extended attribute of an entry.
type xattr struct {
	name  string
	value []byte
}

// entry is one item of a source tree, whatever it came from.
type entry struct {
	src    string // the name as the source spells it, for messages
	rel    string // cleaned relative name; "" is the root of the tree
	kind   kind
	perm   uint32 // the 12 permission bits
	uid    int
	gid    int
	atime  time.Time // zero: not given
	mtime  time.Time // zero: not given
	target string    // symlink target (verbatim) or hard link name (cleaned relative)
	xattrs []xattr
	body   io.Reader // file content
}

// importer writes entries under a staging directory and, once the source has
// been read completely, moves the staged tree to the destination.
type importer struct {
	ctx  context.Context
	fsys *vfs.FS
	opts ImportOptions
	prog *progress
	sum  Summary

	dest       string   // absolute destination, symlinks in its existing part resolved
	destExists bool     // dest is an existing directory: merge into it
	anchor     string   // existing directory holding the staging directory
	anchorAttr vfs.Attr // anchor's attributes before the import, to restore on failure
	staging    string   // absolute staging directory

	dirs    map[string]bool   // relative names known to be real directories in staging
	pending map[string]*entry // directory entries whose attributes are applied at the end
}

// beginImport resolves dest and creates the staging directory.
func beginImport(ctx context.Context, fsys *vfs.FS, dest string, opts ImportOptions) (*importer, error) {
	im := &importer{
		ctx:     ctx,
		fsys:    fsys,
		opts:    opts,
		prog:    newProgress(opts.Progress, opts.ProgressInterval),
		dirs:    map[string]bool{"": true},
		pending: map[string]*entry{},
	}
	dest = cleanAbs(dest)
	// Find the nearest existing ancestor of dest (dest itself if it exists).
	p := dest
	var rest []string
	for {
		fi, err := fsys.Stat(ctx, p)
		if err == nil {
			if !fi.IsDir() {
				return nil, &fs.PathError{Op: "import", Path: p, Err: syscall.ENOTDIR}
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || p == "/" {
			return nil, err
		}
		rest = append([]string{path.Base(p)}, rest...)
		p = path.Dir(p)
	}
	anchor, err := fsys.Realpath(ctx, p)
	if err != nil {
		return nil, err
	}
	im.anchor = anchor
	im.dest = path.Join(append([]string{anchor}, rest...)...)
	im.destExists = len(rest) == 0
	fi, err := fsys.Lstat(ctx, anchor)
	if err != nil {
		return nil, err
	}
	im.anchorAttr = fi.Attr()
	for range 10 {
		name := path.Join(anchor, fmt.Sprintf(".desk-import-%016x", rand.Uint64()))
		err = fsys.Mkdir(ctx, name, 0o755)
		if err == nil {
			im.staging = name
			return im, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("create staging directory in %s: %w", anchor, err)
}

// end finishes the import: on success it applies the deferred directory
// attributes and moves the staged tree into place; on failure it removes the
// staging tree.
func (im *importer) end(err error) (Summary, error) {
	if err == nil {
		err = im.ctx.Err()
	}
	if err == nil {
		err = im.finish()
	}
	if err == nil {
		// Moving the staged tree into place is quick (renames only); do not let
		// a cancellation leave it half-merged.
		err = im.commit(context.WithoutCancel(im.ctx))
	}
	if err != nil {
		im.abort()
	}
	im.sum.Elapsed = im.prog.elapsed()
	return im.sum, err
}

// abort removes the staging tree and restores the times of its parent.
func (im *importer) abort() {
	ctx := context.WithoutCancel(im.ctx)
	if im.fsys.RemoveAll(ctx, im.staging) != nil {
		return
	}
	a := im.anchorAttr
	_ = im.fsys.Utimens(ctx, im.anchor, a.Atime, a.Mtime, true)
}

// add writes one entry under the staging directory.
func (im *importer) add(e *entry) error {
	if err := im.ctx.Err(); err != nil {
		return err
	}
	im.prog.p.Entries++
	defer im.prog.tick()
	if e.rel == "" {
		if e.kind != kindDir {
			return &EntryError{e.src, errors.New("the root of the source must be a directory")}
		}
		im.pending[""] = e
		im.sum.Dirs++
		return nil
	}
	if err := im.ensureDir(e.src, path.Dir(e.rel)); err != nil {
		return err
	}
	full := join(im.staging, e.rel)
	switch e.kind {
	case kindDir:
		if !im.dirs[e.rel] {
			if err := im.clearFor(e, true); err != nil {
				return err
			}
			if err := im.fsys.Mkdir(im.ctx, full, 0o755); err != nil {
				return entryErr(e.src, err)
			}
			im.dirs[e.rel] = true
		}
		im.pending[e.rel] = e
		im.sum.Dirs++
	case kindFile:
		if err := im.clearFor(e, false); err != nil {
			return err
		}
		im.prog.p.Files++
		body := e.body
		if body == nil {
			body = strings.NewReader("")
		}
		cr := &countingReader{r: body, p: im.prog, sum: &im.sum}
		// Created with its final mode, the file usually needs no Chmod.
		if _, err := im.fsys.WriteFileFrom(im.ctx, full, cr, vfs.UnixToFileMode(e.perm&0o7777)); err != nil {
			return entryErr(e.src, err)
		}
		if err := im.setAttrs(full, e); err != nil {
			return err
		}
		im.sum.Files++
	case kindSymlink:
		if err := im.clearFor(e, false); err != nil {
			return err
		}
		if err := im.fsys.Symlink(im.ctx, e.target, full); err != nil {
			return entryErr(e.src, err)
		}
		if err := im.setAttrs(full, e); err != nil {
			return err
		}
		im.sum.Symlinks++
	case kindHardlink:
		if e.target == e.rel {
			return nil // a link to itself: nothing to do
		}
		if err := im.checkLinkTarget(e); err != nil {
			return err
		}
		if err := im.clearFor(e, false); err != nil {
			return err
		}
		if err := im.fsys.Link(im.ctx, join(im.staging, e.target), full); err != nil {
			return entryErr(e.src, err)
		}
		im.prog.p.Files++
		im.sum.Hardlinks++
	}
	return nil
}

// ensureDir makes sure the relative directory rel exists in the staging tree as
// a real directory, creating missing parents. It never follows a symlink.
func (im *importer) ensureDir(src, rel string) error {
	if rel == "." || rel == "" || im.dirs[rel] {
		return nil
	}
	if err := im.ensureDir(src, path.Dir(rel)); err != nil {
		return err
	}
	full := join(im.staging, rel)
	fi, err := im.fsys.Lstat(im.ctx, full)
	switch {
	case err == nil && fi.IsDir():
	case err == nil:
		what := "a file"
		if fi.Mode()&fs.ModeSymlink != 0 {
			what = "a symlink"
		}
		return &EntryError{src, fmt.Errorf("%w: parent %q is %s, not a directory", ErrUnsafePath, rel, what)}
	case errors.Is(err, fs.ErrNotExist):
		if err := im.fsys.Mkdir(im.ctx, full, 0o755); err != nil {
			return entryErr(src, err)
		}
	default:
		return entryErr(src, err)
	}
	im.dirs[rel] = true
	return nil
}

// clearFor makes room for entry e in the staging tree. A later entry of the same
// name replaces an earlier non-directory; replacing a directory, or a file by a
// directory, is a conflict.
func (im *importer) clearFor(e *entry, isDir bool) error {
	if im.dirs[e.rel] {
		return &EntryError{e.src, errors.New("an earlier entry of this name is a directory")}
	}
	full := join(im.staging, e.rel)
	fi, err := im.fsys.Lstat(im.ctx, full)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return entryErr(e.src, err)
	}
	if isDir || fi.IsDir() {
		return &EntryError{e.src, errors.New("an earlier entry of this name is not a directory")}
	}
	if err := im.fsys.Remove(im.ctx, full); err != nil {
		return entryErr(e.src, err)
	}
	return nil
}

// checkLinkTarget verifies that a hard link points at a non-directory entry
// imported earlier, reached through real directories only.
func (im *importer) checkLinkTarget(e *entry) error {
	dir := path.Dir(e.target)
	if dir == "." {
		dir = ""
	}
	if e.target == "" || !im.dirs[dir] {
		return &EntryError{e.src, fmt.Errorf("hard link target %q is not an earlier entry of the source", e.target)}
	}
	fi, err := im.fsys.Lstat(im.ctx, join(im.staging, e.target))
	if errors.Is(err, fs.ErrNotExist) {
		return &EntryError{e.src, fmt.Errorf("hard link target %q is not an earlier entry of the source", e.target)}
	}
	if err != nil {
		return entryErr(e.src, err)
	}
	if fi.IsDir() {
		return &EntryError{e.src, fmt.Errorf("hard link target %q is a directory", e.target)}
	}
	return nil
}

// setAttrs applies owner, mode, xattrs and times, in that order: changing the
// owner may clear setuid bits, and every other change touches ctime only.
// Attributes that already have the wanted value are not set again: each
// change is a transaction of its own in the store.
func (im *importer) setAttrs(full string, e *entry) error {
	ctx := im.ctx
	fi, err := im.fsys.Lstat(ctx, full)
	if err != nil {
		return entryErr(e.src, err)
	}
	cur := fi.Attr()
	chowned := false
	if im.opts.Owners && (cur.Uid != uint32(e.uid) || cur.Gid != uint32(e.gid)) {
		if err := im.fsys.Lchown(ctx, full, e.uid, e.gid); err != nil {
			return entryErr(e.src, err)
		}
		chowned = true // which may have cleared setuid and setgid bits
	}
	if e.kind != kindSymlink {
		if chowned || cur.Mode&0o7777 != e.perm&0o7777 {
			if err := im.fsys.Chmod(ctx, full, vfs.UnixToFileMode(e.perm&0o7777)); err != nil {
				return entryErr(e.src, err)
			}
		}
		for _, x := range e.xattrs {
			if err := im.fsys.Setxattr(ctx, full, x.name, x.value, 0); err != nil {
				return entryErr(e.src, err)
			}
			im.sum.Xattrs++
		}
	} else if len(e.xattrs) > 0 {
		im.warn("entry %q: extended attributes on a symlink are not supported; skipped", e.src)
	}
	if (e.atime.IsZero() || e.atime.Equal(cur.Atime)) && (e.mtime.IsZero() || e.mtime.Equal(cur.Mtime)) {
		return nil
	}
	return im.setTimes(ctx, full, e)
}

// setTimes applies e's atime and mtime to full without following a symlink;
// a time the source did not give is left as it is.
func (im *importer) setTimes(ctx context.Context, full string, e *entry) error {
	atime, mtime := e.atime, e.mtime
	if atime.IsZero() && mtime.IsZero() {
		return nil
	}
	if atime.IsZero() {
		atime = vfs.UtimeOmit
	}
	if mtime.IsZero() {
		mtime = vfs.UtimeOmit
	}
	if err := im.fsys.Utimens(ctx, full, atime, mtime, true); err != nil {
		return entryErr(e.src, err)
	}
	return nil
}

func (im *importer) warn(format string, args ...any) {
	if im.opts.Warn != nil {
		im.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// skip counts and reports an entry that cannot be imported.
func (im *importer) skip(src, why string) {
	im.sum.Skipped++
	im.warn("skipped %q: %s", src, why)
}

// finish applies the deferred directory attributes, deepest directories first.
func (im *importer) finish() error {
	rels := make([]string, 0, len(im.pending))
	for rel := range im.pending {
		rels = append(rels, rel)
	}
	slices.SortFunc(rels, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
	for _, rel := range rels {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		if err := im.setAttrs(join(im.staging, rel), im.pending[rel]); err != nil {
			return err
		}
	}
	return nil
}

// commit moves the staged tree to the destination.
func (im *importer) commit(ctx context.Context) error {
	if !im.destExists {
		if err := im.fsys.MkdirAll(ctx, path.Dir(im.dest), 0o755); err != nil {
			return err
		}
		return im.move(ctx, im.staging, im.dest)
	}
	if err := im.checkMerge(ctx, ""); err != nil {
		return err
	}
	if err := im.merge(ctx, ""); err != nil {
		return err
	}
	if err := im.fsys.Remove(ctx, im.staging); err != nil {
		return err
	}
	if e := im.pending[""]; e != nil {
		return im.setAttrs(im.dest, e)
	}
	return nil
}

// move renames from to to and restores from's times if the rename changed them.
func (im *importer) move(ctx context.Context, from, to string) error {
	before, err := im.fsys.Lstat(ctx, from)
	if err != nil {
		return err
	}
	if err := im.fsys.Rename(ctx, from, to, 0); err != nil {
		return err
	}
	after, err := im.fsys.Lstat(ctx, to)
	if err != nil {
		return err
	}
	b, a := before.Attr(), after.Attr()
	if !a.Mtime.Equal(b.Mtime) || !a.Atime.Equal(b.Atime) {
		return im.fsys.Utimens(ctx, to, b.Atime, b.Mtime, true)
	}
	return nil
}

// checkMerge reports, before anything is moved, an entry of the staged
// directory rel that would have to replace a directory of the destination.
func (im *importer) checkMerge(ctx context.Context, rel string) error {
	ents, err := im.fsys.ReadDir(ctx, join(im.staging, rel))
	if err != nil {
		return err
	}
	for _, de := range ents {
		childRel := path.Join(rel, de.Name)
		fi, err := im.fsys.Lstat(ctx, join(im.dest, childRel))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		stagedDir := de.Mode&vfs.S_IFMT == vfs.S_IFDIR
		switch {
		case stagedDir && fi.IsDir():
			if err := im.checkMerge(ctx, childRel); err != nil {
				return err
			}
		case fi.IsDir():
			return &EntryError{childRel, fmt.Errorf("is a directory in %s but not in the source; not replaced", im.dest)}
		}
	}
	return nil
}

// merge moves the contents of the staged directory rel into the destination.
func (im *importer) merge(ctx context.Context, rel string) error {
	ents, err := im.fsys.ReadDir(ctx, join(im.staging, rel))
	if err != nil {
		return err
	}
	for _, de := range ents {
		childRel := path.Join(rel, de.Name)
		from, to := join(im.staging, childRel), join(im.dest, childRel)
		stagedDir := de.Mode&vfs.S_IFMT == vfs.S_IFDIR
		fi, err := im.fsys.Lstat(ctx, to)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case stagedDir && fi.IsDir():
			if err := im.merge(ctx, childRel); err != nil {
				return err
			}
			if err := im.fsys.Remove(ctx, from); err != nil {
				return err
			}
			if e := im.pending[childRel]; e != nil {
				if err := im.setAttrs(to, e); err != nil {
					return err
				}
			}
			continue
		case stagedDir:
			// A directory replaces a file or symlink, as tar does.
			if err := im.fsys.Remove(ctx, to); err != nil {
				return err
			}
		}
		if err := im.move(ctx, from, to); err != nil {
			return err
		}
	}
	return nil
}

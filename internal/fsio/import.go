package fsio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

// step is one change to the staging tree, queued to be written in a batch.
type step struct {
	src string                 // the entry it is for, for messages
	run func(*vfs.Batch) error // the change; it may run twice (see flush)
}

// importer writes entries under a staging directory and, once the source has
// been read completely, moves the staged tree to the destination.
//
// Changes to the staging tree are queued as steps and written in batches, one
// store transaction for many entries. Checks that look at the staging tree
// (lookup) see the queued changes as well as the written ones.
type importer struct {
	stager
	fsys *vfs.FS

	dest       string   // absolute destination, symlinks in its existing part resolved
	destExists bool     // dest is an existing directory: merge into it
	anchor     string   // nearest existing directory of dest (dest itself if it exists)
	anchorAttr vfs.Attr // anchor's attributes before the import, to restore on failure
	rootAttr   vfs.Attr // the root's attributes before the import (it holds the staging directory)
	staging    string   // absolute staging directory, /.desk-import-*

	queue      []step          // changes not written yet, in order
	queued     map[string]kind // non-directories the queue creates, by relative name
	queueBytes int64           // file content held by the queue

	maxEntries  int   // bounds of a batch, from the options
	maxBytes    int64 //
	maxFileSize int64 // largest file read into memory
}

// stager is what the two sinks that stage a source before they move it
// into place share: the workspace's importer and the host's extractor.
type stager struct {
	ctx  context.Context
	opts ImportOptions
	prog *progress
	sum  Summary
	g    guard // the import's limits
	// dirs holds the relative names known to be real directories in the
	// staging directory (for the importer, queued ones included).
	dirs     map[string]bool
	dirAttrs map[string]*entry // directory entries whose attributes are applied at the end
}

func newStager(ctx context.Context, opts ImportOptions) stager {
	return stager{
		ctx:      ctx,
		opts:     opts,
		prog:     newProgress(opts.Progress, opts.ProgressInterval),
		dirs:     map[string]bool{"": true},
		dirAttrs: map[string]*entry{},
	}
}

// entry takes one entry of the source: it counts it (a cancelled context
// or the bound on entries ends the import here) and takes the root
// (takeRoot); any other entry goes to put.
func (s *stager) entry(e *entry, put func(e *entry) error) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if err := s.g.entry(); err != nil {
		return err
	}
	s.prog.p.Entries++
	defer s.prog.tick()
	if root, err := takeRoot(e, &s.g, s.dirAttrs, &s.sum); root || err != nil {
		return err
	}
	return put(e)
}

// staged records rel as a real directory of the staging tree, kept (with
// its name) against the bound on what the import holds.
func (s *stager) staged(rel string) error {
	if err := s.g.keep(64 + len(rel)); err != nil {
		return err
	}
	s.dirs[rel] = true
	return nil
}

func (s *stager) warn(format string, args ...any) {
	if s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// skip counts and reports an entry that cannot be imported.
func (s *stager) skip(src, why string) {
	s.sum.Skipped++
	s.warn("skipped %q: %s", src, why)
}

// parentNotDir is the error for the entry src whose parent rel is not a
// directory (a file, or a symlink, which is never followed).
func parentNotDir(src, rel string, symlink bool) error {
	what := "a file"
	if symlink {
		what = "a symlink"
	}
	return &EntryError{src, fmt.Errorf("%w: parent %q is %s (%w)", ErrUnsafePath, rel, what, errno(syscall.ENOTDIR))}
}

// beginImport resolves dest and creates the staging directory.
func beginImport(ctx context.Context, fsys *vfs.FS, dest string, opts ImportOptions) (*importer, error) {
	opts = opts.withDefaults()
	im := &importer{
		stager:      newStager(ctx, opts),
		fsys:        fsys,
		queued:      map[string]kind{},
		maxEntries:  opts.BatchEntries,
		maxBytes:    opts.BatchBytes,
		maxFileSize: opts.BatchFileSize,
	}
	if im.maxEntries <= 0 {
		im.maxEntries = DefaultBatchEntries
	}
	if im.maxBytes <= 0 {
		im.maxBytes = DefaultBatchBytes
	}
	if im.maxFileSize <= 0 {
		im.maxFileSize = DefaultBatchFileSize
	}
	im.g.opts = &im.opts
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
	if fi, err = fsys.Lstat(ctx, "/"); err != nil {
		return nil, err
	}
	im.rootAttr = fi.Attr()
	for range 10 {
		name := "/" + fmt.Sprintf("%s%016x", StagingPrefix, rand.Uint64())
		err = fsys.Mkdir(ctx, name, 0o755)
		if err == nil {
			im.staging = name
			return im, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("create staging directory in /: %w", err)
}

// end finishes the import: on success it writes what is queued, applies the
// deferred directory attributes and moves the staged tree into place; on
// failure it drops the queue and removes the staging tree.
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

// abort drops the queue, removes the staging tree and restores the times of
// the root, which held it, and of the destination's nearest directory.
func (im *importer) abort() {
	clear(im.queue)
	im.queue, im.queueBytes = nil, 0
	clear(im.queued)
	ctx := context.WithoutCancel(im.ctx)
	if im.fsys.RemoveAll(ctx, im.staging) != nil {
		return
	}
	a := im.anchorAttr
	_ = im.fsys.Utimens(ctx, im.anchor, a.Atime, a.Mtime, true)
	if im.anchor != "/" {
		a = im.rootAttr
		_ = im.fsys.Utimens(ctx, "/", a.Atime, a.Mtime, true)
	}
}

// enqueue adds a change for entry src to the queue.
func (im *importer) enqueue(src string, run func(*vfs.Batch) error) {
	im.queue = append(im.queue, step{src: src, run: run})
}

// flushIfFull writes the queue if it has reached one of the batch bounds.
func (im *importer) flushIfFull() error {
	if len(im.queue) >= im.maxEntries || im.queueBytes >= im.maxBytes {
		return im.flush()
	}
	return nil
}

// flush writes the queued changes in one batch. If a change fails, the batch
// is rolled back and the error names that change's entry. If the batch fails
// as a whole (when it commits: the quota, say), the changes are replayed one
// batch each, to find the entry responsible.
func (im *importer) flush() error {
	q := im.queue
	if len(q) == 0 {
		return nil
	}
	defer func() {
		clear(q) // let the buffered contents go
		im.queue, im.queueBytes = q[:0], 0
		clear(im.queued)
	}()
	failed, stepErr := -1, error(nil)
	err := im.fsys.Batch(im.ctx, func(b *vfs.Batch) error {
		for i := range q {
			if err := q[i].run(b); err != nil {
				failed, stepErr = i, err
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case failed >= 0:
		return entryErr(q[failed].src, stepErr)
	case im.ctx.Err() != nil:
		return im.ctx.Err()
	}
	for i := range q {
		if err := im.runOne(im.ctx, q[i].src, q[i].run); err != nil {
			if ctxErr := im.ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			return err
		}
	}
	return nil
}

// runOne runs one change in a batch of its own; an error names entry src.
func (im *importer) runOne(ctx context.Context, src string, run func(*vfs.Batch) error) error {
	var stepErr error
	err := im.fsys.Batch(ctx, func(b *vfs.Batch) error {
		stepErr = run(b)
		return stepErr
	})
	var pe *fs.PathError
	switch {
	case err == nil:
		return nil
	case stepErr != nil:
		err = stepErr
	case errors.As(err, &pe):
		err = pe.Err // the commit failed: the path would be ""
	}
	return entryErr(src, err)
}

// takeRoot checks what every sink checks of an entry first (its extended
// attributes) and takes the source's root: its attributes are kept, once,
// for the end. root reports that e was the root (nothing more to do).
func takeRoot(e *entry, g *guard, dirAttrs map[string]*entry, sum *Summary) (root bool, err error) {
	if err := checkXattrs(e); err != nil {
		return false, err
	}
	if e.rel != "" {
		return false, nil
	}
	if e.kind != kindDir {
		return true, &EntryError{e.src, errors.New("the root of the source must be a directory")}
	}
	if dirAttrs[""] != nil {
		return true, duplicate(e)
	}
	if err := g.keep(keptEntry(e)); err != nil {
		return true, err
	}
	dirAttrs[""] = e
	sum.Dirs++
	return true, nil
}

// add queues one entry to be written under the staging directory.
func (im *importer) add(e *entry) error { return im.entry(e, im.put) }

// put queues the entry e (not the root).
func (im *importer) put(e *entry) error {
	if n := len(im.dest) + 1 + len(e.rel); n > MaxPathLen {
		return &EntryError{shortName(e.src), fmt.Errorf("the path in the destination would have %d bytes, over %d: %w", n, MaxPathLen, errno(syscall.ENAMETOOLONG))}
	}
	if err := im.ensureDir(e.src, path.Dir(e.rel)); err != nil {
		return err
	}
	full := join(im.staging, e.rel)
	switch e.kind {
	case kindDir:
		if im.dirAttrs[e.rel] != nil {
			return duplicate(e)
		}
		if !im.dirs[e.rel] {
			if err := im.checkFree(e); err != nil {
				return err
			}
			im.enqueue(e.src, func(b *vfs.Batch) error { return b.Mkdir(full, 0o755) })
			im.dirs[e.rel] = true
		}
		if err := im.g.keep(keptEntry(e)); err != nil {
			return err
		}
		im.dirAttrs[e.rel] = e
		im.sum.Dirs++
	case kindFile:
		if err := im.checkFree(e); err != nil {
			return err
		}
		im.prog.p.Files++
		if err := im.addFile(full, e); err != nil {
			return err
		}
		im.sum.Files++
	case kindSymlink:
		if err := im.queueNode(e, full, func(b *vfs.Batch) error { return b.Symlink(e.target, full) }); err != nil {
			return err
		}
		im.sum.Symlinks++
	case kindSpecial:
		if err := im.queueNode(e, full, func(b *vfs.Batch) error { return b.Mknod(full, e.typ|e.perm&0o7777, e.rdev) }); err != nil {
			return err
		}
		im.sum.Special++
	case kindHardlink:
		if e.target == e.rel {
			return nil // a link to itself: nothing to do
		}
		if err := im.checkLinkTarget(e); err != nil {
			return err
		}
		if err := im.checkFree(e); err != nil {
			return err
		}
		target := join(im.staging, e.target)
		im.enqueue(e.src, func(b *vfs.Batch) error { return b.Link(target, full) })
		im.queued[e.rel] = kindFile
		im.prog.p.Files++
		im.sum.Hardlinks++
	}
	return im.flushIfFull()
}

// queueNode queues the creation of e, a symlink or a special file, at full
// (by mk) with its attributes.
func (im *importer) queueNode(e *entry, full string, mk func(b *vfs.Batch) error) error {
	if err := im.checkFree(e); err != nil {
		return err
	}
	im.countXattrs(e)
	im.enqueue(e.src, func(b *vfs.Batch) error {
		if err := mk(b); err != nil {
			return err
		}
		return im.setAttrs(b, full, e)
	})
	im.queued[e.rel] = e.kind
	im.queueBytes += int64(keptEntry(e))
	return nil
}

// addFile reads a file's content. A small file is queued with its attributes,
// to be written in a batch; a large one is streamed to the store right away,
// after the queue is written, and only its attributes are queued.
func (im *importer) addFile(full string, e *entry) error {
	body, release, err := e.content()
	if err != nil {
		return entryErr(e.src, err)
	}
	defer release()
	e.body, e.open = nil, nil // the queue keeps e; not the source
	cr := &countingReader{r: body, p: im.prog, sum: &im.sum, max: im.opts.MaxBytes}
	perm := vfs.UnixToFileMode(e.perm & 0o7777)
	im.countXattrs(e)
	data, small, err := readSmall(cr, e.size, im.maxFileSize)
	if errors.Is(err, ErrLimit) {
		return err
	}
	if err != nil {
		return entryErr(e.src, fmt.Errorf("read: %w", archiveErr(err)))
	}
	if small {
		// Created with its final mode, the file usually needs no Chmod.
		im.enqueue(e.src, func(b *vfs.Batch) error {
			if err := b.WriteFile(full, data, perm); err != nil {
				return err
			}
			return im.setAttrs(b, full, e)
		})
		im.queued[e.rel] = kindFile
		im.queueBytes += int64(len(data) + keptEntry(e))
		return nil
	}
	// The file's parents and the removal of an earlier entry of its name may
	// be queued: write them first.
	if err := im.flush(); err != nil {
		return err
	}
	er := &errReader{r: cr}
	r := io.Reader(er)
	if len(data) > 0 {
		r = io.MultiReader(bytes.NewReader(data), er)
	}
	if _, err := im.fsys.WriteFileFrom(im.ctx, full, r, perm); err != nil {
		switch {
		case errors.Is(er.err, ErrLimit):
			return &EntryError{e.src, er.err}
		case er.err != nil:
			// The source failed (cut short, the client gone): its error, not
			// the store's wrapping of it.
			return &EntryError{e.src, fmt.Errorf("read: %w", archiveErr(er.err))}
		}
		return entryErr(e.src, err)
	}
	im.enqueue(e.src, func(b *vfs.Batch) error { return im.setAttrs(b, full, e) })
	return nil
}

// errReader remembers the first error other than EOF its reader returned.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// readSmall reads r to its end if it holds at most limit bytes, and returns
// the content with small set. Otherwise it returns what it has read so far
// (the rest is still in r) with small false, reading nothing when the
// expected size (size; negative if unknown) is already over the limit.
func readSmall(r io.Reader, size, limit int64) (data []byte, small bool, err error) {
	if size > limit {
		return nil, false, nil
	}
	n := limit + 1 // one byte more than a small file can hold: a full buffer means large
	if size >= 0 {
		n = size + 1
	} else {
		n = min(n, 64<<10)
	}
	buf := make([]byte, 0, n)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return buf, false, nil
			}
			// The source holds more than expected.
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit+1-int64(len(buf)))))
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, true, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
}

// countXattrs counts e's xattrs in the summary, or warns that they cannot be
// kept on a symlink.
func (im *importer) countXattrs(e *entry) {
	switch {
	case e.kind == kindSpecial && len(e.xattrs) > 0:
		im.warn("entry %q: extended attributes on a %s are not supported; skipped", e.src, specialName(e.typ))
	case e.kind != kindSymlink:
		im.sum.Xattrs += int64(len(e.xattrs))
	case len(e.xattrs) > 0:
		im.warn("entry %q: extended attributes on a symlink are not supported; skipped", e.src)
	}
}

// lookup reports what the staging tree holds at rel, queued changes included:
// ok is false if nothing.
func (im *importer) lookup(src, rel string) (k kind, ok bool, err error) {
	if im.dirs[rel] {
		return kindDir, true, nil
	}
	if k, ok := im.queued[rel]; ok {
		return k, true, nil
	}
	fi, err := im.fsys.Lstat(im.ctx, join(im.staging, rel))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, false, nil
	case err != nil:
		return 0, false, entryErr(src, err)
	case fi.IsDir():
		return kindDir, true, nil
	case fi.Mode()&fs.ModeSymlink != 0:
		return kindSymlink, true, nil
	case fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0:
		return kindSpecial, true, nil
	}
	return kindFile, true, nil
}

// ensureDir makes sure the relative directory rel exists in the staging tree as
// a real directory, queueing the creation of missing parents. It never follows
// a symlink.
func (im *importer) ensureDir(src, rel string) error {
	if rel == "." || rel == "" || im.dirs[rel] {
		return nil
	}
	if err := im.ensureDir(src, path.Dir(rel)); err != nil {
		return err
	}
	k, ok, err := im.lookup(src, rel)
	switch {
	case err != nil:
		return err
	case ok && k != kindDir:
		return parentNotDir(src, rel, k == kindSymlink)
	case !ok:
		full := join(im.staging, rel)
		im.enqueue(src, func(b *vfs.Batch) error { return b.Mkdir(full, 0o755) })
	}
	return im.staged(rel)
}

// checkFree verifies that nothing has e's name in the staging tree: every
// name may appear once in a source (an archive with duplicate entries is
// refused, since tools disagree on which one wins).
func (im *importer) checkFree(e *entry) error {
	if im.dirs[e.rel] {
		return duplicate(e)
	}
	_, ok, err := im.lookup(e.src, e.rel)
	if err != nil {
		return err
	}
	if ok {
		return duplicate(e)
	}
	return nil
}

// duplicate is the error for a second entry of the same name.
func duplicate(e *entry) error {
	return &EntryError{e.src, fmt.Errorf("%w: an earlier entry of the archive has the same name (%w)", ErrUnsafePath, errno(syscall.EEXIST))}
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
	k, ok, err := im.lookup(e.src, e.target)
	switch {
	case err != nil:
		return err
	case !ok:
		return &EntryError{e.src, fmt.Errorf("hard link target %q is not an earlier entry of the source", e.target)}
	case k == kindDir:
		return &EntryError{e.src, fmt.Errorf("hard link target %q is a directory", e.target)}
	}
	return nil
}

// setAttrs applies owner, mode, xattrs and times within a batch, in that
// order: changing the owner may clear setuid bits, and every other change
// touches ctime only. Attributes that already have the wanted value are not
// set again. Errors are the store's, for the caller to attribute.
func (im *importer) setAttrs(b *vfs.Batch, full string, e *entry) error {
	fi, err := b.Lstat(full)
	if err != nil {
		return err
	}
	cur := fi.Attr()
	chowned := false
	if im.opts.Owners && (cur.Uid != uint32(e.uid) || cur.Gid != uint32(e.gid)) {
		if err := b.Lchown(full, e.uid, e.gid); err != nil {
			return err
		}
		chowned = true // which may have cleared setuid and setgid bits
	}
	if e.kind != kindSymlink {
		if chowned || cur.Mode&0o7777 != e.perm&0o7777 {
			if err := b.Chmod(full, vfs.UnixToFileMode(e.perm&0o7777)); err != nil {
				return err
			}
		}
		for _, x := range e.xattrs {
			if e.kind == kindSpecial {
				break // user.* is for files and directories only (countXattrs warned)
			}
			if err := b.Setxattr(full, x.name, x.value, 0); err != nil {
				return err
			}
		}
	}
	if (e.atime.IsZero() || e.atime.Equal(cur.Atime)) && (e.mtime.IsZero() || e.mtime.Equal(cur.Mtime)) {
		return nil
	}
	atime, mtime := e.atime, e.mtime
	if atime.IsZero() {
		atime = vfs.UtimeOmit
	}
	if mtime.IsZero() {
		mtime = vfs.UtimeOmit
	}
	return b.Utimens(full, atime, mtime, true)
}

// finish queues the deferred directory attributes, deepest directories first,
// and writes the queue.
func (im *importer) finish() error {
	rels := make([]string, 0, len(im.dirAttrs))
	for rel := range im.dirAttrs {
		rels = append(rels, rel)
	}
	deepestFirst(rels)
	for _, rel := range rels {
		if err := im.ctx.Err(); err != nil {
			return err
		}
		e, full := im.dirAttrs[rel], join(im.staging, rel)
		im.countXattrs(e)
		im.enqueue(e.src, func(b *vfs.Batch) error { return im.setAttrs(b, full, e) })
		if err := im.flushIfFull(); err != nil {
			return err
		}
	}
	return im.flush()
}

// mergeOp is one step of moving the staged tree into an existing
// destination directory.
type mergeOp struct {
	rel string // the entry, relative to the staging directory and to dest
	how mergeHow
}

type mergeHow int

const (
	mergeMove    mergeHow = iota // rename the staged entry over whatever non-directory is there
	mergeReplace                 // a staged directory replaces a file or symlink: remove it, then move
	mergeDone                    // a staged directory merged into an existing one: remove it, apply its attributes
)

// commit moves the staged tree to the destination, in one transaction: by a
// rename when the destination does not exist, else by the moves a plan
// lists (read before the transaction; a destination changed meanwhile makes
// the transaction fail, and the import with it).
func (im *importer) commit(ctx context.Context) error {
	var ops []mergeOp
	if im.destExists {
		if err := im.plan(ctx, "", &ops); err != nil {
			return err
		}
	}
	return im.fsys.Batch(ctx, func(b *vfs.Batch) error {
		if !im.destExists {
			if err := b.MkdirAll(path.Dir(im.dest), 0o755); err != nil {
				return err
			}
			if err := moveIn(b, im.staging, im.dest); err != nil {
				return err
			}
		} else {
			for _, op := range ops {
				from, to := join(im.staging, op.rel), join(im.dest, op.rel)
				switch op.how {
				case mergeReplace:
					if err := b.Remove(to); err != nil {
						return err
					}
					fallthrough
				case mergeMove:
					if err := moveIn(b, from, to); err != nil {
						return err
					}
				case mergeDone:
					if err := b.Remove(from); err != nil {
						return err
					}
					if e := im.dirAttrs[op.rel]; e != nil {
						if err := im.setAttrs(b, to, e); err != nil {
							return err
						}
					}
				}
			}
			if err := b.Remove(im.staging); err != nil {
				return err
			}
			if e := im.dirAttrs[""]; e != nil && !im.opts.KeepDestAttrs {
				if err := im.setAttrs(b, im.dest, e); err != nil {
					return err
				}
			}
		}
		if im.anchor != "/" {
			// Only the staging directory came and went in the root.
			a := im.rootAttr
			return b.Utimens("/", a.Atime, a.Mtime, true)
		}
		return nil
	})
}

// moveIn renames from to to and restores from's times if the rename changed
// them.
func moveIn(b *vfs.Batch, from, to string) error {
	before, err := b.Lstat(from)
	if err != nil {
		return err
	}
	if err := b.Rename(from, to, 0); err != nil {
		return err
	}
	after, err := b.Lstat(to)
	if err != nil {
		return err
	}
	bt, at := before.Attr(), after.Attr()
	if !at.Mtime.Equal(bt.Mtime) || !at.Atime.Equal(bt.Atime) {
		return b.Utimens(to, bt.Atime, bt.Mtime, true)
	}
	return nil
}

// planPage is how many staged entries plan lists at a time.
const planPage = 1000

// plan lists the moves that merge the staged directory rel into the
// destination, children before the directories that held them. An entry
// that would replace a directory of the destination is a conflict, found
// before anything is moved.
func (im *importer) plan(ctx context.Context, rel string, ops *[]mergeOp) error {
	after := ""
	for {
		ents, err := im.fsys.ReadDirPage(ctx, join(im.staging, rel), after, planPage)
		if err != nil {
			return err
		}
		for _, de := range ents {
			childRel := path.Join(rel, de.Name)
			if err := im.g.keep(48 + len(childRel)); err != nil {
				return err
			}
			stagedDir := de.Mode&vfs.S_IFMT == vfs.S_IFDIR
			fi, err := im.fsys.Lstat(ctx, join(im.dest, childRel))
			switch {
			case errors.Is(err, fs.ErrNotExist):
				*ops = append(*ops, mergeOp{childRel, mergeMove})
			case err != nil:
				return err
			case stagedDir && fi.IsDir():
				if err := im.plan(ctx, childRel, ops); err != nil {
					return err
				}
				*ops = append(*ops, mergeOp{childRel, mergeDone})
			case fi.IsDir():
				return &EntryError{childRel, fmt.Errorf("is a directory in %s but not in the source; not replaced (%w)", im.dest, errno(syscall.EISDIR))}
			case stagedDir:
				// A directory replaces a file or symlink, as tar does.
				*ops = append(*ops, mergeOp{childRel, mergeReplace})
			default:
				*ops = append(*ops, mergeOp{childRel, mergeMove})
			}
		}
		if len(ents) < planPage {
			return nil
		}
		after = ents[len(ents)-1].Name
	}
}

package cmds

import (
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/vfs"
)

func init() { Register("cp", Cp) }

// cpOpts are cp's settings.
type cpOpts struct {
	recursive, preserve, archive, noClobber, verbose, force, noTarget, deref, noDeref bool
	targetDir                                                                         string
}

// Cp copies files and directories as GNU cp: SOURCE DEST, or SOURCE...
// DIRECTORY (or -t DIRECTORY). -r/-R copies directories (symlinks inside are
// copied as symlinks, -P; -L follows them), -a is -dR --preserve=all, -p keeps
// mode and times, -n never overwrites, -f is accepted, -v prints
// "'src' -> 'dst'", -T treats DEST as a plain file.
func Cp(env *Env, args []string) int {
	opts, operands, ok := fuParseOpts(env, args, "r|recursive", "R", "a|archive", "p", "|preserve?",
		"n|no-clobber", "v|verbose", "f|force", "T|no-target-directory", "t|target-directory=",
		"P|no-dereference", "L|dereference", "d", "i|interactive", "u|update?")
	if !ok {
		return 1
	}
	var o cpOpts
	for _, v := range opts {
		switch v.name {
		case "recursive", "R":
			o.recursive = true
		case "archive":
			o.recursive, o.preserve, o.archive, o.noDeref = true, true, true, true
		case "p", "preserve":
			o.preserve = true
		case "no-clobber":
			o.noClobber = true
		case "verbose":
			o.verbose = true
		case "force":
			o.force = true
		case "no-target-directory":
			o.noTarget = true
		case "target-directory":
			o.targetDir = v.val
		case "no-dereference", "d":
			o.noDeref, o.deref = true, false
		case "dereference":
			o.deref, o.noDeref = true, false
		}
	}
	srcs, dst, dstIsDir, ok := fuTargets(env, "cp", operands, o.targetDir, o.noTarget)
	if !ok {
		return 1
	}
	c := &fuCopier{env: env, o: o}
	status := 0
	for _, src := range srcs {
		if env.Canceled() {
			return 1
		}
		d := dst
		if dstIsDir {
			d = fuJoinPath(dst, fuBaseOf(src))
		}
		if !c.copyTop(src, d) {
			status = 1
		}
	}
	return status
}

// fuTargets splits cp/mv/ln operands into sources and a destination, and
// says whether the sources go into the destination directory. It prints
// GNU's diagnostics for missing operands and a non-directory target.
func fuTargets(env *Env, cmd string, operands []string, targetDir string, noTarget bool) (srcs []string, dst string, into, ok bool) {
	if targetDir != "" {
		fi, err := env.FS.Stat(env.Ctx, env.Abs(targetDir))
		if err != nil {
			env.Errorf(cmd, "target directory %s: %s", quoteaf(env, targetDir), Strerror(err))
			return nil, "", false, false
		}
		if !fi.IsDir() {
			env.Errorf(cmd, "target %s is not a directory", quoteaf(env, targetDir))
			return nil, "", false, false
		}
		if len(operands) == 0 {
			env.Errorf(cmd, "missing file operand")
			fuTryHelp(env, cmd)
			return nil, "", false, false
		}
		return operands, targetDir, true, true
	}
	if len(operands) == 0 {
		env.Errorf(cmd, "missing file operand")
		fuTryHelp(env, cmd)
		return nil, "", false, false
	}
	if len(operands) == 1 {
		env.Errorf(cmd, "missing destination file operand after %s", quoteaf(env, operands[0]))
		fuTryHelp(env, cmd)
		return nil, "", false, false
	}
	srcs, dst = operands[:len(operands)-1], operands[len(operands)-1]
	if noTarget {
		if len(srcs) > 1 {
			env.Errorf(cmd, "extra operand %s", quoteaf(env, operands[2]))
			fuTryHelp(env, cmd)
			return nil, "", false, false
		}
		return srcs, dst, false, true
	}
	fi, err := env.FS.Stat(env.Ctx, env.Abs(dst))
	isDir := err == nil && fi.IsDir()
	if len(srcs) > 1 && !isDir {
		msg := "Not a directory"
		if err != nil {
			msg = Strerror(err)
		}
		env.Errorf(cmd, "target %s: %s", quoteaf(env, dst), msg)
		return nil, "", false, false
	}
	return srcs, dst, isDir, true
}

type fuCopier struct {
	env *Env
	o   cpOpts
	// inPages is the content read with directory pages and not yet
	// copied, over every directory being copied (bounded by cpPageContent).
	inPages int64
	// listed is the number of entries of prefetched listings not yet
	// copied (bounded by cpTreeEntries).
	listed int
}

// copyTop copies one operand.
func (c *fuCopier) copyTop(src, dst string) bool {
	env := c.env
	sp := fuAbs(env, src)
	var fi *vfs.FileInfo
	var err error
	if c.o.deref || (!c.o.recursive && !c.o.noDeref) {
		fi, err = env.FS.Stat(env.Ctx, sp)
	} else {
		fi, err = env.FS.Lstat(env.Ctx, sp)
	}
	if err != nil {
		env.Errorf("cp", "cannot stat %s: %s", quoteaf(env, src), Strerror(err))
		return false
	}
	if fi.IsDir() {
		if !c.o.recursive {
			env.Errorf("cp", "-r not specified; omitting directory %s", quoteaf(env, src))
			return false
		}
		dp := env.Abs(dst)
		if sa := env.Abs(src); dp == sa || strings.HasPrefix(dp, strings.TrimSuffix(sa, "/")+"/") {
			env.Errorf("cp", "cannot copy a directory, %s, into itself, %s", quoteaf(env, src), quoteaf(env, dst))
			return false
		}
	}
	return c.copy(src, sp, cpSource{attr: fi.Attr()}, dst, env.Abs(dst), false)
}

// cpSource is what cp knows of a file to copy: its attributes and, for a
// small file read with its directory's page, its content; for a directory
// listed ahead, its listing.
type cpSource struct {
	attr   vfs.Attr
	data   []byte
	loaded bool   // data is the content (vfs.DirFile.Loaded)
	dir    *cpDir // the listing read ahead, or nil
}

// cpDir is a source directory's listing, read before anything under it is
// written (see fuCopier.listTree): the entries as readDirSources gives
// them, or the error it gave; the listings of subdirectories read ahead
// too, by entry index.
type cpDir struct {
	ents []vfs.DirFile
	held int64 // content bytes held (c.release)
	n    int   // entries counted in c.listed
	err  error
	sub  map[int]*cpDir
	done bool // released
}

// cpTreeEntries bounds the entries of the listings cp reads ahead of
// copying (about 200 bytes each); past it, directories are listed as they
// are copied.
var cpTreeEntries = 16 << 10

// cpPageContent bounds the content of small files that cp holds from
// directory pages, over the directories being copied (charged to the
// execution's memory until the directory is copied); past it, files are
// opened one by one.
var cpPageContent int64 = 4 << 20

// cpFileInPage is the largest file whose content is read with its
// directory page.
const cpFileInPage = 64 << 10

// copyTree copies directory sp to dp, which does not exist, with the
// store's tree copy (vfs.FS.CopyTree: a few statements per directory,
// content shared) and reports whether it did. It is not used with -v
// (which names every file), -L (which follows symlinks in the tree), or
// when the store refuses the copy (a path rule, the quota, a tree too
// large for one transaction): nothing was made then, and the copy goes
// file by file, reporting each failure as GNU cp does.
func (c *fuCopier) copyTree(sp, dp string) bool {
	if c.o.verbose || c.o.deref {
		return false
	}
	o := vfs.CopyOptions{Umask: fuUmask, PreserveMode: c.o.preserve, PreserveTimes: c.o.preserve,
		PreserveLinks: c.o.archive, PreserveXattrs: c.o.archive}
	return c.env.FS.CopyTree(c.env.Ctx, sp, dp, o) == nil
}

// finishDir gives a copied directory its mode (and, with -p, times) once
// its entries are copied.
func (c *fuCopier) finishDir(dp string, a vfs.Attr, exists bool) {
	env := c.env
	mode := a.Mode & 0o7777
	if !c.o.preserve {
		mode &^= fuUmask
	}
	if !exists || c.o.preserve {
		env.FS.Chmod(env.Ctx, dp, fuPermOf(mode))
	}
	if c.o.preserve {
		env.FS.Utimens(env.Ctx, dp, a.Atime, a.Mtime, false)
	}
}

// readDirSources lists directory sp for copying, with every entry's
// attributes and the content of its small files while the copier holds
// less than cpPageContent, in pages (one statement each); the bytes held
// are returned, to give back with c.release.
func (c *fuCopier) readDirSources(sp string) ([]vfs.DirFile, int64, error) {
	env := c.env
	var all []vfs.DirFile
	var held int64
	after := ""
	for {
		if err := env.Ctx.Err(); err != nil {
			c.release(held)
			return nil, 0, err
		}
		maxSize := int64(cpFileInPage)
		if c.inPages >= cpPageContent {
			maxSize = 0
		}
		page, err := env.FS.ReadDirFiles(env.Ctx, sp, after, 256, maxSize)
		if err != nil {
			c.release(held)
			return nil, 0, err
		}
		var n int64
		for _, e := range page {
			n += int64(len(e.Data))
		}
		if err := env.Hold(n); err != nil {
			c.release(held)
			return nil, 0, err
		}
		held += n
		c.inPages += n
		all = append(all, page...)
		if len(page) < 256 {
			return all, held, nil
		}
		after = page[len(page)-1].Name
	}
}

// writeRun writes the run of small regular files at the start of ents
// (read with their directory's page: Loaded) into the new directory dp in
// one vfs.FS.Batch, a single request to the store instead of one per file,
// and returns how many it wrote: 0 if the run is shorter than two files or
// the batch failed, in which case nothing of it was written and the files
// are copied one by one (with each one's error, as GNU cp reports them).
func (c *fuCopier) writeRun(ents []vfs.DirFile, src, dst, dp string) int {
	n := 0
	for n < len(ents) && ents[n].Loaded && ents[n].Attr.Mode&vfs.S_IFMT == vfs.S_IFREG {
		n++
	}
	if n < 2 {
		return 0
	}
	env := c.env
	base := strings.TrimSuffix(dp, "/") + "/"
	err := env.FS.Batch(env.Ctx, func(b *vfs.Batch) error {
		for i := range ents[:n] {
			if err := env.Ctx.Err(); err != nil {
				return err
			}
			e := &ents[i]
			p := base + e.Name
			if err := b.WriteFile(p, e.Data, fuPermOf(e.Attr.Mode&0o777&^fuUmask)); err != nil {
				return err
			}
			if c.o.preserve {
				b.Chmod(p, fuPermOf(e.Attr.Mode&0o7777))
				b.Utimens(p, e.Attr.Atime, e.Attr.Mtime, false)
			}
		}
		return nil
	})
	if err != nil {
		return 0
	}
	for i := range ents[:n] {
		if c.o.verbose {
			fuPrintf(env, "%s -> %s\n", quoteaf(env, fuJoinPath(src, ents[i].Name)), quoteaf(env, fuJoinPath(dst, ents[i].Name)))
		}
		ents[i].Data = nil
	}
	return n
}

// listDir reads directory sp's listing (readDirSources) as a cpDir.
func (c *fuCopier) listDir(sp string) *cpDir {
	ents, held, err := c.readDirSources(sp)
	d := &cpDir{ents: ents, held: held, n: len(ents), err: err}
	c.listed += d.n
	return d
}

// listTree lists directory sp and, depth first, its subdirectories while
// the listings read ahead hold fewer than cpTreeEntries entries and the
// content held is under cpPageContent; a subdirectory left out is listed
// when it is copied. The destination of sp is new (made by this cp), so
// nothing cp writes under it can change what the listings read.
func (c *fuCopier) listTree(sp string) *cpDir {
	d := c.listDir(sp)
	for i := range d.ents {
		if c.listed >= cpTreeEntries || c.inPages >= cpPageContent || c.env.Ctx.Err() != nil {
			break
		}
		if e := &d.ents[i]; e.Attr.IsDir() {
			if d.sub == nil {
				d.sub = map[int]*cpDir{}
			}
			d.sub[i] = c.listTree(strings.TrimSuffix(sp, "/") + "/" + e.Name)
		}
	}
	return d
}

// releaseTree gives back what d and the listings under it not yet
// released hold.
func (c *fuCopier) releaseTree(d *cpDir) {
	if d.done {
		return
	}
	d.done = true
	c.release(d.held)
	c.listed -= d.n
	for _, s := range d.sub {
		c.releaseTree(s)
	}
}

// release gives back n bytes of content read with directory pages.
func (c *fuCopier) release(n int64) {
	c.env.Release(n)
	c.inPages -= n
}

// copy copies src to dst; names are as displayed. fresh says that dst's
// directory was made by this copy, so dst does not exist.
func (c *fuCopier) copy(src, sp string, from cpSource, dst, dp string, fresh bool) bool {
	env := c.env
	a := from.attr
	if err := env.Ctx.Err(); err != nil {
		return false
	}
	var dfi *vfs.FileInfo
	exists := false
	if !fresh {
		var derr error
		dfi, derr = env.FS.Lstat(env.Ctx, dp)
		exists = derr == nil
	}
	if exists && dfi.Attr().Ino == a.Ino {
		if !c.o.noClobber {
			env.Errorf("cp", "%s and %s are the same file", quoteaf(env, src), quoteaf(env, dst))
			return false
		}
		return true
	}
	switch {
	case a.IsDir():
		if exists {
			if !dfi.IsDir() {
				env.Errorf("cp", "cannot overwrite non-directory %s with directory %s", quoteaf(env, dst), quoteaf(env, src))
				return false
			}
		} else {
			if c.copyTree(sp, dp) {
				return true
			}
			if err := env.FS.Mkdir(env.Ctx, dp, fuPermOf(a.Mode&0o7777|0o700)); err != nil {
				env.Errorf("cp", "cannot create directory %s: %s", quoteaf(env, dst), Strerror(err))
				return false
			}
			if c.o.verbose {
				fuPrintf(env, "%s -> %s\n", quoteaf(env, src), quoteaf(env, dst))
			}
		}
		if c.o.deref {
			ents, err := env.FS.ReadDir(env.Ctx, sp)
			if err != nil {
				env.Errorf("cp", "cannot access %s: %s", quoteaf(env, src), Strerror(err))
				return false
			}
			ok := true
			for _, de := range ents {
				if env.Canceled() {
					return false
				}
				csp := strings.TrimSuffix(sp, "/") + "/" + de.Name
				cfi, err := env.FS.Stat(env.Ctx, csp)
				if err != nil {
					env.Errorf("cp", "cannot stat %s: %s", quoteaf(env, fuJoinPath(src, de.Name)), Strerror(err))
					ok = false
					continue
				}
				if !c.copy(fuJoinPath(src, de.Name), csp, cpSource{attr: cfi.Attr()}, fuJoinPath(dst, de.Name), strings.TrimSuffix(dp, "/")+"/"+de.Name, !exists) {
					ok = false
				}
			}
			c.finishDir(dp, a, exists)
			return ok
		}
		// The entries with their attributes (as Lstat gives them) and
		// small files' content, a page at a time: no stat, open and read
		// per file. Into a directory just made, the whole source tree is
		// listed first (within cpTreeEntries and cpPageContent), so that
		// the listings are read before the copies are written: a listing
		// read after writes commits them (vfs.FS.ReadDirFiles), and the
		// tree is then written in one run.
		d := from.dir
		if d == nil {
			if exists {
				d = c.listDir(sp)
			} else {
				d = c.listTree(sp)
			}
		}
		defer c.releaseTree(d)
		if d.err != nil {
			env.Errorf("cp", "cannot access %s: %s", quoteaf(env, src), Strerror(d.err))
			return false
		}
		ok := true
		for i := 0; i < len(d.ents); i++ {
			if env.Canceled() {
				return false
			}
			if !exists {
				if n := c.writeRun(d.ents[i:], src, dst, dp); n > 0 {
					i += n - 1
					continue
				}
			}
			de := &d.ents[i]
			csp := strings.TrimSuffix(sp, "/") + "/" + de.Name
			from := cpSource{attr: de.Attr, data: de.Data, loaded: de.Loaded, dir: d.sub[i]}
			if !c.copy(fuJoinPath(src, de.Name), csp, from, fuJoinPath(dst, de.Name), strings.TrimSuffix(dp, "/")+"/"+de.Name, !exists) {
				ok = false
			}
			de.Data = nil
		}
		c.finishDir(dp, a, exists)
		return ok
	case exists && dfi.IsDir():
		env.Errorf("cp", "cannot overwrite directory %s with non-directory", quoteaf(env, dst))
		return false
	}
	if exists && c.o.noClobber {
		return true
	}
	if a.Mode&vfs.S_IFMT != vfs.S_IFREG && !a.IsSymlink() {
		// A FIFO, socket or device is made anew, as GNU cp -r does
		// (without --copy-contents).
		if exists {
			env.FS.Remove(env.Ctx, dp)
		}
		mode := a.Mode & 0o777 &^ fuUmask
		if c.o.preserve {
			mode = a.Mode & 0o7777
		}
		if err := env.FS.Mknod(env.Ctx, dp, a.Mode&vfs.S_IFMT|mode, a.Rdev); err != nil {
			env.Errorf("cp", "cannot create special file %s: %s", quoteaf(env, dst), Strerror(err))
			return false
		}
		if c.o.preserve {
			env.FS.Utimens(env.Ctx, dp, a.Atime, a.Mtime, false)
		}
	} else if a.IsSymlink() {
		target, err := env.FS.Readlink(env.Ctx, sp)
		if err == nil {
			if exists {
				env.FS.Remove(env.Ctx, dp)
			}
			err = env.FS.Symlink(env.Ctx, target, dp)
		}
		if err != nil {
			env.Errorf("cp", "cannot create symbolic link %s: %s", quoteaf(env, dst), Strerror(err))
			return false
		}
		if c.o.preserve {
			env.FS.Utimens(env.Ctx, dp, a.Atime, a.Mtime, true)
		}
	} else {
		var h *vfs.File
		if !from.loaded {
			var err error
			h, err = env.FS.Open(env.Ctx, sp)
			if err != nil {
				env.Errorf("cp", "cannot open %s for reading: %s", quoteaf(env, src), Strerror(err))
				return false
			}
		}
		mode := a.Mode & 0o777 &^ fuUmask
		if exists && fuIsLinkMode(dfi.Attr().Mode) {
			// GNU cp writes through a symlink destination.
			if _, serr := env.FS.Stat(env.Ctx, dp); serr != nil {
				env.FS.Remove(env.Ctx, dp)
			}
		}
		var err error
		if h != nil {
			_, err = env.FS.WriteFileFrom(env.Ctx, dp, h, fuPermOf(mode))
			h.Close()
		} else {
			err = env.FS.WriteFile(env.Ctx, dp, from.data, fuPermOf(mode))
		}
		if err != nil {
			if fuErrnoOf(err) == syscall.ENOENT || fuErrnoOf(err) == syscall.ENOTDIR || fuErrnoOf(err) == syscall.EISDIR {
				env.Errorf("cp", "cannot create regular file %s: %s", quoteaf(env, dst), Strerror(err))
			} else {
				env.Errorf("cp", "error writing %s: %s", quoteaf(env, dst), Strerror(err))
			}
			return false
		}
		if c.o.preserve {
			env.FS.Chmod(env.Ctx, dp, fuPermOf(a.Mode&0o7777))
			env.FS.Utimens(env.Ctx, dp, a.Atime, a.Mtime, false)
		}
	}
	if c.o.verbose {
		fuPrintf(env, "%s -> %s\n", quoteaf(env, src), quoteaf(env, dst))
	}
	return true
}

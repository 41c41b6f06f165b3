package jsvm

import (
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// The fs host functions on names and links: rename, copyFile, symlink,
// readlink, realpath, link.

// fsRename is host.fsRename(from, to).
func fsRename(x *execution, args []qjs.Value) (qjs.Value, error) {
	a, b, err := x.twoPaths(args)
	if err != nil {
		return qjs.Undefined, err
	}
	if a.given == "" || b.given == "" {
		err = syscall.ENOENT
	} else {
		err = x.job.FS.Rename(x.ctx, a.abs, b.abs, 0)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, "rename", a.given, b.given, true)
	}
	return qjs.Undefined, nil
}

// fsCopyFile is host.fsCopyFile(src, dest, mode): the content and the
// mode, as libuv copies (COPYFILE_EXCL: dest must not exist).
func fsCopyFile(x *execution, args []qjs.Value) (qjs.Value, error) {
	a, b, err := x.twoPaths(args)
	if err != nil {
		return qjs.Undefined, err
	}
	mode, err := x.argInt(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	fail := func(err error) (qjs.Value, error) {
		return qjs.Undefined, x.fsError(err, "copyfile", a.given, b.given, true)
	}
	fi, err := x.stat(a, true)
	if err != nil {
		return fail(err)
	}
	if fi.IsDir() {
		return fail(syscall.EISDIR)
	}
	if b.given == "" {
		return fail(syscall.ENOENT)
	}
	if mode&1 != 0 {
		if _, err := x.job.FS.Lstat(x.ctx, b.abs); err == nil {
			return fail(syscall.EEXIST)
		}
	}
	if dfi, err := x.job.FS.Stat(x.ctx, b.abs); err == nil && dfi.IsDir() {
		return fail(syscall.EISDIR)
	}
	if err := x.fsBudget(2 * fi.Size()); err != nil {
		return qjs.Undefined, err
	}
	data, err := x.job.FS.ReadFile(x.ctx, a.abs)
	if err != nil {
		return fail(err)
	}
	m := fi.Attr().Mode & 0o7777
	if err := x.job.FS.WriteFile(x.ctx, b.abs, data, vfs.UnixToFileMode(m)); err != nil {
		return fail(err)
	}
	if err := x.job.FS.Chmod(x.ctx, b.abs, vfs.UnixToFileMode(m)); err != nil {
		return fail(err)
	}
	return qjs.Undefined, nil
}

// fsSymlink is host.fsSymlink(target, path): the target is stored as given.
func fsSymlink(x *execution, args []qjs.Value) (qjs.Value, error) {
	target, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	p, err := x.pathArg(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	if p.given == "" || target == "" {
		err = syscall.ENOENT
	} else {
		err = x.job.FS.Symlink(x.ctx, target, p.abs)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, "symlink", target, p.given, true)
	}
	return qjs.Undefined, nil
}

// fsReadlink is host.fsReadlink(path) → the target.
func fsReadlink(x *execution, args []qjs.Value) (qjs.Value, error) {
	return x.pathOp(args, "readlink", func(p fsPath) (string, error) {
		if p.slash {
			// The slash resolves the link: what it names is no symlink.
			if _, err := x.stat(p, true); err != nil {
				return "", err
			}
			return "", syscall.EINVAL
		}
		return x.job.FS.Readlink(x.ctx, p.abs)
	})
}

// fsRealpath is host.fsRealpath(path) → the canonical absolute path.
func fsRealpath(x *execution, args []qjs.Value) (qjs.Value, error) {
	return x.pathOp(args, "realpath", func(p fsPath) (string, error) {
		if _, err := x.stat(p, true); err != nil {
			return "", err
		}
		return x.job.FS.Realpath(x.ctx, p.abs)
	})
}

// fsLink is host.fsLink(existing, new).
func fsLink(x *execution, args []qjs.Value) (qjs.Value, error) {
	a, b, err := x.twoPaths(args)
	if err != nil {
		return qjs.Undefined, err
	}
	if a.given == "" || b.given == "" {
		err = syscall.ENOENT
	} else if fi, serr := x.job.FS.Lstat(x.ctx, a.abs); serr == nil && fi.IsDir() {
		err = syscall.EPERM
	} else {
		err = x.job.FS.Link(x.ctx, a.abs, b.abs)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, "link", a.given, b.given, true)
	}
	return qjs.Undefined, nil
}

package jsvm

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// The fs host functions on directories and removal: mkdir, readdir, rm,
// rmdir, unlink, mkdtemp.

// dirname is Node's path.dirname on the path as given (no cleaning).
func dirname(p string) string {
	s := strings.TrimRight(p, "/")
	if s == "" {
		if p == "" {
			return "."
		}
		return "/"
	}
	i := strings.LastIndexByte(s, '/')
	switch {
	case i < 0:
		return "."
	case i == 0:
		return "/"
	}
	return strings.TrimRight(s[:i], "/")
}

// fsMkdir is host.fsMkdir(path, recursive, mode) → the first directory
// made (recursive) or null.
func fsMkdir(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	recursive := x.argBool(args, 1)
	mode, err := x.argInt(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	if p.given == "" {
		return qjs.Undefined, x.fsError(syscall.ENOENT, "mkdir", p.given, "", true)
	}
	if !recursive {
		if err := x.job.FS.Mkdir(x.ctx, p.abs, perm(mode)); err != nil {
			return qjs.Undefined, x.fsError(err, "mkdir", p.given, "", true)
		}
		return qjs.Null, nil
	}
	first := ""
	for cur := p.given; ; {
		fi, err := x.job.FS.Stat(x.ctx, x.fsPath(cur).abs)
		if err == nil {
			if !fi.IsDir() {
				en := syscall.ENOTDIR
				if cur == p.given {
					en = syscall.EEXIST
				}
				return qjs.Undefined, x.fsError(en, "mkdir", p.given, "", true)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return qjs.Undefined, x.fsError(err, "mkdir", p.given, "", true)
		}
		first = cur
		up := dirname(cur)
		if up == cur {
			break
		}
		cur = up
	}
	if first == "" {
		return qjs.Null, nil
	}
	if err := x.job.FS.MkdirAll(x.ctx, p.abs, perm(mode)); err != nil {
		return qjs.Undefined, x.fsError(err, "mkdir", p.given, "", true)
	}
	return x.c.String(strings.TrimRight(first, "/"))
}

// direntType is the UV_DIRENT_* type of a mode.
func direntType(mode uint32) int64 {
	switch mode & vfs.S_IFMT {
	case vfs.S_IFREG:
		return 1
	case vfs.S_IFDIR:
		return 2
	case vfs.S_IFLNK:
		return 3
	case vfs.S_IFIFO:
		return 4
	case vfs.S_IFSOCK:
		return 5
	case vfs.S_IFCHR:
		return 6
	case vfs.S_IFBLK:
		return 7
	}
	return 0
}

// fsReaddir is host.fsReaddir(path) → [names, types], in name order.
func fsReaddir(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	if p.given == "" {
		return qjs.Undefined, x.fsError(syscall.ENOENT, "scandir", p.given, "", true)
	}
	ents, err := x.job.FS.ReadDir(x.ctx, p.abs)
	if err != nil {
		return qjs.Undefined, x.fsError(err, "scandir", p.given, "", true)
	}
	names, types := x.c.Array(), x.c.Array()
	for i, e := range ents {
		x.c.SetIndex(names, i, x.str(e.Name))
		x.c.SetIndex(types, i, qjs.Int(direntType(e.Mode)))
	}
	return x.array(names, types), nil
}

// fsRm is host.fsRm(path, recursive, force).
func fsRm(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	recursive, force := x.argBool(args, 1), x.argBool(args, 2)
	fi, err := x.stat(p, false)
	if err != nil {
		if force && errors.Is(err, fs.ErrNotExist) {
			return qjs.Undefined, nil
		}
		return qjs.Undefined, x.fsError(err, "lstat", p.given, "", true)
	}
	if fi.IsDir() {
		if !recursive {
			return qjs.Undefined, x.rmIsDirError(p.given)
		}
		err = x.job.FS.RemoveAll(x.ctx, p.abs)
	} else {
		err = x.job.FS.Remove(x.ctx, p.abs)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, "rm", p.given, "", true)
	}
	return qjs.Undefined, nil
}

// fsRmdir is host.fsRmdir(path).
func fsRmdir(x *execution, args []qjs.Value) (qjs.Value, error) {
	return x.removeOne(args, "rmdir", true)
}

// fsUnlink is host.fsUnlink(path).
func fsUnlink(x *execution, args []qjs.Value) (qjs.Value, error) {
	return x.removeOne(args, "unlink", false)
}

// removeOne removes a directory (dir) or anything else (!dir) as rmdir(2)
// and unlink(2) do.
func (x *execution) removeOne(args []qjs.Value, sys string, dir bool) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	fi, err := x.stat(p, false)
	switch {
	case err != nil:
	case dir && !fi.IsDir():
		err = syscall.ENOTDIR
	case !dir && fi.IsDir():
		err = syscall.EISDIR
	default:
		err = x.job.FS.Remove(x.ctx, p.abs)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, sys, p.given, "", true)
	}
	return qjs.Undefined, nil
}

// fsMkdtemp is host.fsMkdtemp(prefix) → prefix and six random characters,
// a new directory (mode 0700).
func fsMkdtemp(x *execution, args []qjs.Value) (qjs.Value, error) {
	prefix, err := x.argString(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for try := 0; ; try++ {
		var r [6]byte
		rand.Read(r[:])
		for i := range r {
			r[i] = letters[int(r[i])%len(letters)]
		}
		name := prefix + string(r[:])
		err := x.job.FS.Mkdir(x.ctx, x.fsPath(name).abs, 0o700)
		if err == nil {
			return x.c.String(name)
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return qjs.Undefined, x.fsError(err, "mkdtemp", name, "", true)
		}
	}
}

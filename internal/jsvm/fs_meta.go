package jsvm

import (
	"errors"
	"io/fs"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// The fs host functions on metadata: stat, chmod, access, truncate,
// utimes, exists.

func ms(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// fsStat is host.fsStat(path, follow, throwIfNoEntry) → the Stats fields
// in order, or null (missing, when not throwing).
func fsStat(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	follow := x.argBool(args, 1)
	fi, err := x.stat(p, follow)
	if err != nil {
		if !x.argBool(args, 2) && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return qjs.Null, nil
		}
		sys := "lstat"
		if follow {
			sys = "stat"
		}
		return qjs.Undefined, x.fsError(err, sys, p.given, "", true)
	}
	return x.statArray(fi), nil
}

// statArray is the array Stats is made of.
func (x *execution) statArray(fi *vfs.FileInfo) qjs.Value {
	a := fi.Attr()
	return x.array(qjs.Int(fakeDev), qjs.Int(int64(a.Mode)), qjs.Int(int64(a.Nlink)), qjs.Int(int64(a.Uid)),
		qjs.Int(int64(a.Gid)), qjs.Int(0), qjs.Int(4096), qjs.Int(int64(a.Ino)), qjs.Int(a.Size), qjs.Int(a.Blocks),
		qjs.Float(ms(a.Atime)), qjs.Float(ms(a.Mtime)), qjs.Float(ms(a.Ctime)), qjs.Float(ms(a.Btime)))
}

// fsChmod is host.fsChmod(path, mode).
func fsChmod(x *execution, args []qjs.Value) (qjs.Value, error) {
	mode, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.pathOp(args, "chmod", func(p fsPath) (string, error) {
		return "", x.job.FS.Chmod(x.ctx, p.abs, vfs.UnixToFileMode(uint32(mode)&0o7777))
	})
}

// fsAccess is host.fsAccess(path, mode), with root's rights: only X_OK can
// fail, on a file with no execute bit.
func fsAccess(x *execution, args []qjs.Value) (qjs.Value, error) {
	mode, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.pathOp(args, "access", func(p fsPath) (string, error) {
		fi, err := x.stat(p, true)
		if err != nil {
			return "", err
		}
		if mode&1 != 0 && !fi.IsDir() && fi.Attr().Mode&0o111 == 0 {
			return "", syscall.EACCES
		}
		return "", nil
	})
}

// fsTruncate is host.fsTruncate(path, len).
func fsTruncate(x *execution, args []qjs.Value) (qjs.Value, error) {
	n, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.pathOp(args, "open", func(p fsPath) (string, error) {
		fi, err := x.stat(p, true)
		if err == nil && fi.IsDir() {
			err = syscall.EISDIR
		}
		if err != nil {
			return "", err
		}
		return "", x.job.FS.Truncate(x.ctx, p.abs, n)
	})
}

// fsUtimes is host.fsUtimes(path, atime, mtime, follow), times in seconds.
func fsUtimes(x *execution, args []qjs.Value) (qjs.Value, error) {
	at, err := x.argFloat(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	mt, err := x.argFloat(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	follow := x.argBool(args, 3)
	sys := "lutime"
	if follow {
		sys = "utime"
	}
	toTime := func(s float64) time.Time { return time.Unix(0, int64(s*1e9)) }
	return x.pathOp(args, sys, func(p fsPath) (string, error) {
		return "", x.job.FS.Utimens(x.ctx, p.abs, toTime(at), toTime(mt), !follow)
	})
}

// fsExists is host.fsExists(path) → whether it exists (following symlinks).
func fsExists(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	_, err = x.stat(p, true)
	return qjs.Bool(err == nil), nil
}

package jsvm

import (
	"io"
	"os"
	"path"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
)

// The fs host functions that read and write whole files.

// readAll reads p with the open flags of flag, within MaxFSBytes.
func (x *execution) readAll(args []qjs.Value) ([]byte, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return nil, err
	}
	if err := x.fsCall(); err != nil {
		return nil, err
	}
	flags, err := openFlags(arg(args, 1), x)
	if err != nil {
		return nil, err
	}
	if flags&(os.O_CREATE|os.O_TRUNC|os.O_APPEND) == 0 {
		fi, err := x.stat(p, true)
		if err != nil {
			return nil, x.fsError(err, "open", p.given, "", true)
		}
		if fi.IsDir() {
			return nil, x.fsError(syscall.EISDIR, "read", "", "", false)
		}
		if err := x.fsBudget(fi.Size()); err != nil {
			return nil, err
		}
		data, err := x.job.FS.ReadFile(x.ctx, p.abs)
		if err != nil {
			return nil, x.fsError(err, "read", "", "", false)
		}
		return data, nil
	}
	if p.given == "" {
		return nil, x.fsError(syscall.ENOENT, "open", p.given, "", true)
	}
	f, err := x.job.FS.OpenFile(x.ctx, p.abs, flags, perm(0o666))
	if err != nil {
		return nil, x.fsError(err, "open", p.given, "", true)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		return nil, x.fsError(syscall.EISDIR, "read", "", "", false)
	}
	room := x.o.MaxFSBytes - x.fsBytes
	data, err := io.ReadAll(io.LimitReader(f, room+1))
	if err != nil {
		return nil, x.fsError(err, "read", "", "", false)
	}
	if err := x.fsBudget(int64(len(data))); err != nil {
		return nil, err
	}
	return data, nil
}

// fsRead is host.fsRead(path, flag) → ArrayBuffer.
func fsRead(x *execution, args []qjs.Value) (qjs.Value, error) {
	data, err := x.readAll(args)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.c.ArrayBuffer(data)
}

// fsReadText is host.fsReadText(path, flag) → string (UTF-8, malformed
// bytes as U+FFFD).
func fsReadText(x *execution, args []qjs.Value) (qjs.Value, error) {
	data, err := x.readAll(args)
	if err != nil {
		return qjs.Undefined, err
	}
	return x.c.String(string(data))
}

// fsWrite is host.fsWrite(path, data, flag, mode).
func fsWrite(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	data, err := x.argData(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	flags, err := openFlags(arg(args, 2), x)
	if err != nil {
		return qjs.Undefined, err
	}
	mode, err := x.argInt(args, 3)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsBudget(int64(len(data))); err != nil {
		return qjs.Undefined, err
	}
	if p.given == "" {
		return qjs.Undefined, x.fsError(syscall.ENOENT, "open", p.given, "", true)
	}
	if p.slash {
		// open(2) with O_CREAT refuses a trailing slash: EISDIR, once the
		// parent is found.
		fi, err := x.job.FS.Stat(x.ctx, path.Dir(p.abs))
		if err == nil && !fi.IsDir() {
			err = syscall.ENOTDIR
		} else if err == nil {
			err = syscall.EISDIR
		}
		return qjs.Undefined, x.fsError(err, "open", p.given, "", true)
	}
	if flags == os.O_TRUNC|os.O_CREATE|os.O_WRONLY || flags == os.O_TRUNC|os.O_CREATE|os.O_RDWR {
		// Plain "w": replace the content atomically.
		if fi, err := x.job.FS.Stat(x.ctx, p.abs); err == nil && fi.IsDir() {
			return qjs.Undefined, x.fsError(syscall.EISDIR, "open", p.given, "", true)
		}
		if err := x.job.FS.WriteFile(x.ctx, p.abs, data, perm(mode)); err != nil {
			return qjs.Undefined, x.fsError(err, "open", p.given, "", true)
		}
		return qjs.Undefined, nil
	}
	f, err := x.job.FS.OpenFile(x.ctx, p.abs, flags, perm(mode))
	if err != nil {
		return qjs.Undefined, x.fsError(err, "open", p.given, "", true)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return qjs.Undefined, x.fsError(err, "write", "", "", false)
	}
	if err := f.Close(); err != nil {
		return qjs.Undefined, x.fsError(err, "close", "", "", false)
	}
	return qjs.Undefined, nil
}

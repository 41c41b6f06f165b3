package jsvm

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// File handles: fs.open/openSync, FileHandle (fs/promises open), and the
// streams made on them (createReadStream, createWriteStream). A handle is a
// vfs.File the execution holds, named by a number as Node's descriptors
// are; every read and write through it counts against MaxFSCalls and
// MaxFSBytes, and at most maxOpenFiles are open at once. Those still open
// when the execution ends are closed then.

// maxOpenFiles bounds the handles an execution holds at once (EMFILE past
// it, as a process past its descriptor limit).
const maxOpenFiles = 256

// firstFD is the number of the first handle (0-2 are the standard streams).
const firstFD = 3

// openFile is one handle.
type openFile struct {
	f      *vfs.File
	append bool
}

func init() {
	for name, f := range map[string]hostFunc{
		"fsOpen": fsOpen, "fsClose": fsClose, "fsReadFD": fsReadFD, "fsWriteFD": fsWriteFD,
		"fsFstat": fsFstat, "fsFtruncate": fsFtruncate,
	} {
		hostFuncs[name] = f
	}
}

// closeFiles closes the handles left open.
func (x *execution) closeFiles() {
	for fd, of := range x.fds {
		of.f.Close()
		delete(x.fds, fd)
	}
}

// fdArg reads handle argument i.
func (x *execution) fdArg(args []qjs.Value, i int, sys string) (*openFile, error) {
	n, err := x.argInt(args, i)
	if err != nil {
		return nil, err
	}
	of := x.fds[int(n)]
	if of == nil {
		return nil, x.fsError(syscall.EBADF, sys, "", "", false)
	}
	return of, x.fsCall()
}

// fsOpen is host.fsOpen(path, flags, mode) → fd.
func fsOpen(x *execution, args []qjs.Value) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	flags, err := openFlags(arg(args, 1), x)
	if err != nil {
		return qjs.Undefined, err
	}
	mode, err := x.argInt(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	if len(x.fds) >= maxOpenFiles {
		return qjs.Undefined, x.fsError(syscall.EMFILE, "open", p.given, "", true)
	}
	if p.given == "" {
		return qjs.Undefined, x.fsError(syscall.ENOENT, "open", p.given, "", true)
	}
	f, err := x.job.FS.OpenFile(x.ctx, p.abs, flags, perm(mode))
	if err != nil {
		return qjs.Undefined, x.fsError(err, "open", p.given, "", true)
	}
	if p.slash {
		if fi, err := f.Stat(); err == nil && !fi.IsDir() {
			f.Close()
			return qjs.Undefined, x.fsError(syscall.ENOTDIR, "open", p.given, "", true)
		}
	}
	fd := firstFD
	for x.fds[fd] != nil {
		fd++
	}
	x.fds[fd] = &openFile{f: f, append: flags&os.O_APPEND != 0}
	return qjs.Int(int64(fd)), nil
}

// fsClose is host.fsClose(fd).
func fsClose(x *execution, args []qjs.Value) (qjs.Value, error) {
	n, _ := x.argInt(args, 0)
	of := x.fds[int(n)]
	if of == nil {
		return qjs.Undefined, x.fsError(syscall.EBADF, "close", "", "", false)
	}
	delete(x.fds, int(n))
	if err := of.f.Close(); err != nil {
		return qjs.Undefined, x.fsError(err, "close", "", "", false)
	}
	return qjs.Undefined, nil
}

// fsReadFD is host.fsReadFD(fd, length, position) → ArrayBuffer (empty at
// the end of the file); position < 0 reads at the handle's offset.
func fsReadFD(x *execution, args []qjs.Value) (qjs.Value, error) {
	of, err := x.fdArg(args, 0, "read")
	if err != nil {
		return qjs.Undefined, err
	}
	n, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	pos, err := x.argInt(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	n = max(0, min(n, 1<<24, x.o.MaxFSBytes-x.fsBytes+1))
	buf := make([]byte, n)
	var k int
	if pos >= 0 {
		k, err = of.f.ReadAt(buf, pos)
	} else {
		k, err = io.ReadFull(of.f, buf)
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return qjs.Undefined, x.fsError(err, "read", "", "", false)
	}
	if err := x.fsBudget(int64(k)); err != nil {
		return qjs.Undefined, err
	}
	return x.c.ArrayBuffer(buf[:k])
}

// fsWriteFD is host.fsWriteFD(fd, data, position) → bytes written;
// position < 0 writes at the handle's offset (the end, for append).
func fsWriteFD(x *execution, args []qjs.Value) (qjs.Value, error) {
	of, err := x.fdArg(args, 0, "write")
	if err != nil {
		return qjs.Undefined, err
	}
	data, err := x.argData(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	pos, err := x.argInt(args, 2)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsBudget(int64(len(data))); err != nil {
		return qjs.Undefined, err
	}
	var k int
	if pos >= 0 && !of.append {
		k, err = of.f.WriteAt(data, pos)
	} else {
		k, err = of.f.Write(data)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, "write", "", "", false)
	}
	return qjs.Int(int64(k)), nil
}

// fsFstat is host.fsFstat(fd) → the stat array of fsStat.
func fsFstat(x *execution, args []qjs.Value) (qjs.Value, error) {
	of, err := x.fdArg(args, 0, "fstat")
	if err != nil {
		return qjs.Undefined, err
	}
	fi, err := of.f.Stat()
	if err != nil {
		return qjs.Undefined, x.fsError(err, "fstat", "", "", false)
	}
	return x.statArray(fi), nil
}

// fsFtruncate is host.fsFtruncate(fd, len).
func fsFtruncate(x *execution, args []qjs.Value) (qjs.Value, error) {
	of, err := x.fdArg(args, 0, "ftruncate")
	if err != nil {
		return qjs.Undefined, err
	}
	n, err := x.argInt(args, 1)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := of.f.Truncate(n); err != nil {
		return qjs.Undefined, x.fsError(err, "ftruncate", "", "", false)
	}
	return qjs.Undefined, nil
}

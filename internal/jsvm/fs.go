package jsvm

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// The fs host functions behind node:fs/promises and node:fs. Paths are
// resolved against the execution's cwd inside the workspace store; errors
// are Node's (fsError), with the path as the script gave it. This file: the
// path arguments, the accounting of MaxFSCalls and MaxFSBytes, and the
// helpers the others share.

// The fs host functions behind node:fs/promises and node:fs. Paths are
// resolved against the execution's cwd inside the workspace store; errors
// are Node's (fsError), with the path as the script gave it.

// umask is applied to the mode of files and directories the fs functions
// create, as a process with umask 022 (Node's usual) would.
const umask = 0o022

// fakeDev is the st_dev every stat reports (a workspace is one device).
const fakeDev = 2049

func init() {
	for name, f := range map[string]hostFunc{
		"fsRead": fsRead, "fsReadText": fsReadText, "fsWrite": fsWrite, "fsMkdir": fsMkdir,
		"fsReaddir": fsReaddir, "fsStat": fsStat, "fsRm": fsRm, "fsRmdir": fsRmdir, "fsUnlink": fsUnlink,
		"fsRename": fsRename, "fsCopyFile": fsCopyFile, "fsSymlink": fsSymlink, "fsReadlink": fsReadlink,
		"fsChmod": fsChmod, "fsAccess": fsAccess, "fsRealpath": fsRealpath, "fsTruncate": fsTruncate,
		"fsUtimes": fsUtimes, "fsLink": fsLink, "fsMkdtemp": fsMkdtemp, "fsExists": fsExists,
	} {
		hostFuncs[name] = f
	}
}

// fsPath is a path argument: as the script gave it, and resolved.
type fsPath struct {
	given string
	abs   string
	slash bool // given ends with a slash: it must name a directory
}

func (x *execution) fsPath(s string) fsPath {
	abs := s
	if !path.IsAbs(abs) {
		abs = path.Join(x.job.Cwd, abs)
	}
	return fsPath{given: s, abs: path.Clean(abs), slash: len(s) > 1 && strings.HasSuffix(s, "/")}
}

// pathArg reads path argument i and counts the call against MaxFSCalls.
func (x *execution) pathArg(args []qjs.Value, i int) (fsPath, error) {
	s, err := x.argString(args, i)
	if err != nil {
		return fsPath{}, err
	}
	return x.fsPath(s), nil
}

// fsCall counts one call against MaxFSCalls.
func (x *execution) fsCall() error {
	x.fsCalls++
	if x.fsCalls > x.o.MaxFSCalls {
		return x.limit("MaxFSCalls", x.o.MaxFSCalls, "fs calls")
	}
	return nil
}

// fsBudget counts n bytes read or written against MaxFSBytes.
func (x *execution) fsBudget(n int64) error {
	if x.fsBytes+n > x.o.MaxFSBytes {
		return x.limit("MaxFSBytes", x.o.MaxFSBytes, "bytes read and written by fs calls")
	}
	x.fsBytes += n
	return nil
}

// stat stats p (following symlinks if follow, or if p ends with a slash),
// with the empty path and the trailing slash checked as the kernel does.
func (x *execution) stat(p fsPath, follow bool) (*vfs.FileInfo, error) {
	if p.given == "" {
		return nil, syscall.ENOENT
	}
	var fi *vfs.FileInfo
	var err error
	if follow || p.slash {
		fi, err = x.job.FS.Stat(x.ctx, p.abs)
	} else {
		fi, err = x.job.FS.Lstat(x.ctx, p.abs)
	}
	if err == nil && p.slash && !fi.IsDir() {
		return nil, syscall.ENOTDIR
	}
	return fi, err
}

// openFlags turns a Node flag ("r", "w", "ax+", ...) into os.O_* flags.
func openFlags(v qjs.Value, x *execution) (int, error) {
	if v.IsNumber() {
		f, err := x.c.ToFloat(v)
		return int(f), err
	}
	s, err := x.c.ToString(v)
	if err != nil {
		return 0, err
	}
	var f int
	switch strings.NewReplacer("s", "", "x", "").Replace(s) {
	case "r":
		f = os.O_RDONLY
	case "r+":
		f = os.O_RDWR
	case "w":
		f = os.O_TRUNC | os.O_CREATE | os.O_WRONLY
	case "w+":
		f = os.O_TRUNC | os.O_CREATE | os.O_RDWR
	case "a":
		f = os.O_APPEND | os.O_CREATE | os.O_WRONLY
	case "a+":
		f = os.O_APPEND | os.O_CREATE | os.O_RDWR
	default:
		return 0, errors.New("invalid flag " + s)
	}
	if strings.Contains(s, "x") {
		f |= os.O_EXCL
	}
	return f, nil
}

// perm is the permission bits of a created file or directory: mode less
// the umask.
func perm(mode int64) fs.FileMode { return vfs.UnixToFileMode(uint32(mode&^umask) & 0o7777) }

// twoPaths reads the path arguments of rename, copyFile, link.
func (x *execution) twoPaths(args []qjs.Value) (fsPath, fsPath, error) {
	a, err := x.pathArg(args, 0)
	if err != nil {
		return a, a, err
	}
	b, err := x.pathArg(args, 1)
	if err != nil {
		return a, b, err
	}
	return a, b, x.fsCall()
}

// pathOp runs a one-path operation that returns a string (or nothing).
func (x *execution) pathOp(args []qjs.Value, sys string, op func(p fsPath) (string, error)) (qjs.Value, error) {
	p, err := x.pathArg(args, 0)
	if err != nil {
		return qjs.Undefined, err
	}
	if err := x.fsCall(); err != nil {
		return qjs.Undefined, err
	}
	var s string
	if p.given == "" {
		err = syscall.ENOENT
	} else {
		s, err = op(p)
	}
	if err != nil {
		return qjs.Undefined, x.fsError(err, sys, p.given, "", true)
	}
	if s == "" {
		return qjs.Undefined, nil
	}
	return x.c.String(s)
}

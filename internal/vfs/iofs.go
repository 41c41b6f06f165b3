package vfs

import (
	"context"
	"io"
	"io/fs"
	"path"
	"syscall"
)

// IOFS returns a read-only io/fs.FS view of the store. Names are unrooted
// ("a/b", "." for the root) as io/fs requires; ctx is used for every call.
func (f *FS) IOFS(ctx context.Context) fs.FS { return ioFS{f: f, ctx: ctx} }

type ioFS struct {
	f   *FS
	ctx context.Context
}

var (
	_ fs.FS         = ioFS{}
	_ fs.StatFS     = ioFS{}
	_ fs.ReadDirFS  = ioFS{}
	_ fs.ReadFileFS = ioFS{}
)

func (x ioFS) abs(op, name string) (string, error) {
	if !fs.ValidPath(name) {
		return "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return "/" + name, nil
}

func ioErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	e := Errno(err)
	switch e {
	case 0:
		return &fs.PathError{Op: op, Path: name, Err: err}
	default:
		return &fs.PathError{Op: op, Path: name, Err: e}
	}
}

// Open opens name for reading.
func (x ioFS) Open(name string) (fs.File, error) {
	p, err := x.abs("open", name)
	if err != nil {
		return nil, err
	}
	h, err := x.f.OpenFile(x.ctx, p, 0, 0)
	if err != nil {
		return nil, ioErr("open", name, err)
	}
	return &ioFile{h: h, name: name}, nil
}

// Stat returns name's attributes.
func (x ioFS) Stat(name string) (fs.FileInfo, error) {
	p, err := x.abs("stat", name)
	if err != nil {
		return nil, err
	}
	fi, err := x.f.Stat(x.ctx, p)
	if err != nil {
		return nil, ioErr("stat", name, err)
	}
	return fi, nil
}

// ReadFile returns name's content.
func (x ioFS) ReadFile(name string) ([]byte, error) {
	p, err := x.abs("readfile", name)
	if err != nil {
		return nil, err
	}
	b, err := x.f.ReadFile(x.ctx, p)
	return b, ioErr("readfile", name, err)
}

// ReadDir lists name sorted by file name.
func (x ioFS) ReadDir(name string) ([]fs.DirEntry, error) {
	p, err := x.abs("readdir", name)
	if err != nil {
		return nil, err
	}
	ents, err := x.f.ReadDir(x.ctx, p)
	if err != nil {
		return nil, ioErr("readdir", name, err)
	}
	return x.dirEntries(p, ents), nil
}

func (x ioFS) dirEntries(dir string, ents []DirEntry) []fs.DirEntry {
	out := make([]fs.DirEntry, len(ents))
	for i, e := range ents {
		out[i] = ioDirEntry{f: x.f, ctx: x.ctx, dir: dir, e: e}
	}
	return out
}

type ioDirEntry struct {
	f   *FS
	ctx context.Context
	dir string
	e   DirEntry
}

func (d ioDirEntry) Name() string               { return d.e.Name }
func (d ioDirEntry) IsDir() bool                { return d.e.Mode&S_IFMT == S_IFDIR }
func (d ioDirEntry) Type() fs.FileMode          { return UnixToFileMode(d.e.Mode).Type() }
func (d ioDirEntry) String() string             { return fs.FormatDirEntry(d) }
func (d ioDirEntry) Info() (fs.FileInfo, error) { return d.f.Lstat(d.ctx, path.Join(d.dir, d.e.Name)) }

type ioFile struct {
	h    *File
	name string
}

func (i *ioFile) Stat() (fs.FileInfo, error) {
	fi, err := i.h.Stat()
	if err != nil {
		return nil, ioErr("stat", i.name, err)
	}
	return fi, nil
}

func (i *ioFile) Read(p []byte) (int, error) {
	n, err := i.h.Read(p)
	if err != nil && err != io.EOF {
		if Errno(err) == syscall.EISDIR {
			return n, &fs.PathError{Op: "read", Path: i.name, Err: syscall.EISDIR}
		}
		return n, ioErr("read", i.name, err)
	}
	return n, err
}

func (i *ioFile) ReadAt(p []byte, off int64) (int, error) { return i.h.ReadAt(p, off) }
func (i *ioFile) Seek(off int64, whence int) (int64, error) {
	return i.h.Seek(off, whence)
}
func (i *ioFile) Close() error { return ioErr("close", i.name, i.h.Close()) }

func (i *ioFile) ReadDir(n int) ([]fs.DirEntry, error) {
	ents, err := i.h.ReadDir(n)
	if err != nil && err != io.EOF {
		return nil, ioErr("readdir", i.name, err)
	}
	dir := "/" + i.name
	if i.name == "." {
		dir = "/"
	}
	return ioFS{f: i.h.f, ctx: i.h.ctx}.dirEntries(dir, ents), err
}

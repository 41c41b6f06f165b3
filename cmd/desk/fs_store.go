package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"syscall"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"

	"github.com/desk-dev/desk/internal/vfs"
)

// fileStore is what the shared `desk fs` verbs need of a workspace. Two
// implementations: localStore, a workspace database opened directly (-db),
// and remoteStore, a workspace on a desk server reached through the Go
// client (-w). Each verb is written once against this interface. Errors are
// those of the store underneath: *fs.PathError with an errno locally, a
// *client.Error with the same errno name as its code over the API.
type fileStore interface {
	// Stat describes p, following symbolic links.
	Stat(ctx context.Context, p string) (fileInfo, error)
	// Lstat describes p without following a final symbolic link.
	Lstat(ctx context.Context, p string) (fileInfo, error)
	// ReadDirPage returns up to n entries of dir sorting after after, in
	// name order, and the after of the next page ("" after the last page).
	ReadDirPage(ctx context.Context, dir, after string, n int) (ents []dirEntry, next string, err error)
	// Readlink returns a symbolic link's target.
	Readlink(ctx context.Context, p string) (string, error)
	// Open streams a regular file's content.
	Open(ctx context.Context, p string) (io.ReadCloser, error)
	// WriteFile replaces p's content with r, creating it with perm if new.
	WriteFile(ctx context.Context, p string, r io.Reader, perm fs.FileMode) error
	// Chmod sets the permission bits, setuid, setgid and sticky included.
	Chmod(ctx context.Context, p string, mode fs.FileMode) error
	// Mkdir creates a directory; with parents, missing parents too and an
	// existing directory is not an error.
	Mkdir(ctx context.Context, p string, perm fs.FileMode, parents bool) error
	// Remove deletes a file, symlink or empty directory; recursive: any tree.
	Remove(ctx context.Context, p string, recursive bool) error
	// Rename moves src to dst atomically (failing with EEXIST if dst exists
	// and noReplace is set).
	Rename(ctx context.Context, src, dst string, noReplace bool) error
	// Stats summarise the store.
	Stats(ctx context.Context) (vfs.Stats, error)
	// Check verifies the store's invariants.
	Check(ctx context.Context) (client.CheckReport, error)
	// Close releases the store.
	Close() error
}

// fileInfo describes a path. Fields a store does not report are zero; attr
// carries every attribute when the store is local.
type fileInfo struct {
	Mode   uint32 // vfs.S_IFMT type bits and the 12 permission bits
	Size   int64
	Mtime  time.Time
	Ino    uint64
	Nlink  uint32    // 0: not reported
	Target string    // a symbolic link's target, when reported
	attr   *vfs.Attr // every attribute (local stores only)
}

// IsDir reports whether fi is a directory.
func (fi fileInfo) IsDir() bool { return fi.Mode&vfs.S_IFMT == vfs.S_IFDIR }

// IsSymlink reports whether fi is a symbolic link.
func (fi fileInfo) IsSymlink() bool { return fi.Mode&vfs.S_IFMT == vfs.S_IFLNK }

// dirEntry is one directory entry. info is set when the listing itself
// carried the entry's attributes (over the API); otherwise ls -l asks Lstat.
type dirEntry struct {
	Name string
	Mode uint32 // type and permission bits
	info *fileInfo
}

// localStore is a fileStore over a workspace database opened directly.
type localStore struct{ fsys *vfs.FS }

var _ fileStore = localStore{}

func localInfo(fi *vfs.FileInfo) fileInfo {
	a := fi.Attr()
	return fileInfo{Mode: a.Mode, Size: a.Size, Mtime: a.Mtime, Ino: a.Ino, Nlink: a.Nlink, attr: &a}
}

// The local store speaks the shown form of paths (quote.Path), as the API
// does: arguments are unquoted, names and targets are quoted.

func (s localStore) Stat(ctx context.Context, p string) (fileInfo, error) {
	p, err := parsePath(p)
	if err != nil {
		return fileInfo{}, err
	}
	fi, err := s.fsys.Stat(ctx, p)
	if err != nil {
		return fileInfo{}, shownErr(err)
	}
	return localInfo(fi), nil
}

func (s localStore) Lstat(ctx context.Context, p string) (fileInfo, error) {
	p, err := parsePath(p)
	if err != nil {
		return fileInfo{}, err
	}
	fi, err := s.fsys.Lstat(ctx, p)
	if err != nil {
		return fileInfo{}, shownErr(err)
	}
	return localInfo(fi), nil
}

func (s localStore) ReadDirPage(ctx context.Context, dir, after string, n int) ([]dirEntry, string, error) {
	dir, err := parsePath(dir)
	if err != nil {
		return nil, "", err
	}
	if after, err = quote.ParseName(after); err != nil {
		return nil, "", err
	}
	ents, err := s.fsys.ReadDirPage(ctx, dir, after, n)
	if err != nil {
		return nil, "", shownErr(err)
	}
	out := make([]dirEntry, len(ents))
	for i, e := range ents {
		out[i] = dirEntry{Name: quote.Name(e.Name), Mode: e.Mode}
	}
	next := ""
	if len(ents) == n && n > 0 {
		next = quote.Name(ents[n-1].Name)
	}
	return out, next, nil
}

func (s localStore) Readlink(ctx context.Context, p string) (string, error) {
	p, err := parsePath(p)
	if err != nil {
		return "", err
	}
	t, err := s.fsys.Readlink(ctx, p)
	return quote.Path(t), shownErr(err)
}

func (s localStore) Open(ctx context.Context, p string) (io.ReadCloser, error) {
	p, err := parsePath(p)
	if err != nil {
		return nil, err
	}
	f, err := s.fsys.Open(ctx, p)
	if err != nil {
		return nil, shownErr(err)
	}
	return f, nil
}

func (s localStore) WriteFile(ctx context.Context, p string, r io.Reader, perm fs.FileMode) error {
	p, err := parsePath(p)
	if err != nil {
		return err
	}
	_, err = s.fsys.WriteFileFrom(ctx, p, r, perm)
	return shownErr(err)
}

func (s localStore) Chmod(ctx context.Context, p string, mode fs.FileMode) error {
	p, err := parsePath(p)
	if err != nil {
		return err
	}
	return shownErr(s.fsys.Chmod(ctx, p, mode))
}

func (s localStore) Mkdir(ctx context.Context, p string, perm fs.FileMode, parents bool) error {
	p, err := parsePath(p)
	if err != nil {
		return err
	}
	if parents {
		return shownErr(s.fsys.MkdirAll(ctx, p, perm))
	}
	return shownErr(s.fsys.Mkdir(ctx, p, perm))
}

func (s localStore) Remove(ctx context.Context, p string, recursive bool) error {
	p, err := parsePath(p)
	if err != nil {
		return err
	}
	if recursive {
		return shownErr(s.fsys.RemoveAll(ctx, p))
	}
	return shownErr(s.fsys.Remove(ctx, p))
}

func (s localStore) Rename(ctx context.Context, src, dst string, noReplace bool) error {
	src, err := parsePath(src)
	if err != nil {
		return err
	}
	if dst, err = parsePath(dst); err != nil {
		return err
	}
	var flags vfs.RenameFlags
	if noReplace {
		flags |= vfs.RenameNoReplace
	}
	return shownErr(s.fsys.Rename(ctx, src, dst, flags))
}

// shownErr gives a store error's path in the shown form, as the API's
// errors do.
func shownErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: quote.Path(pe.Path), Err: pe.Err}
	}
	return err
}

// parsePath unquotes a path argument; a bad quoted element is EINVAL.
func parsePath(p string) (string, error) {
	raw, err := quote.ParsePath(p)
	if err != nil {
		return "", &fs.PathError{Op: "parse", Path: p, Err: syscall.EINVAL}
	}
	return raw, nil
}

func (s localStore) Stats(ctx context.Context) (vfs.Stats, error) { return s.fsys.Stats(ctx) }

func (s localStore) Check(ctx context.Context) (client.CheckReport, error) {
	rep, err := s.fsys.Check(ctx)
	if err != nil {
		return client.CheckReport{}, err
	}
	return client.CheckReport{OK: rep.OK(), Problems: rep.Problems}, nil
}

// Close does nothing: fsCmd closes the database it opened.
func (s localStore) Close() error { return nil }

package vfs

import (
	"errors"
	"io/fs"
	"syscall"
)

// ErrJournalTruncated is returned by Changes when the requested cursor is older than
// the oldest change the journal still holds; the caller must resynchronise.
var ErrJournalTruncated = errors.New("change journal truncated: cursor is older than the retained history")

// ErrClosed is returned by operations on a closed store.
var ErrClosed = errors.New("vfs: store is closed")

// ErrLocked is returned by Open when another process has the store open.
var ErrLocked = errors.New("vfs: store is open in another process")

func perr(op, path string, errno syscall.Errno) error {
	return &fs.PathError{Op: op, Path: path, Err: errno}
}

// Errno extracts the syscall.Errno from err (a *fs.PathError or a bare Errno).
// It returns 0 when err carries none.
func Errno(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}

// asPathErr makes sure err is a *fs.PathError with op and path; internal errors
// (SQLite failures) become EIO so callers always see an errno, except a full
// disk, which is ENOSPC.
func asPathErr(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var se *spaceError
	if errors.As(err, &se) {
		return &fs.PathError{Op: op, Path: path, Err: se}
	}
	if full(err) {
		return &fs.PathError{Op: op, Path: path, Err: &spaceError{why: diskFullWhy, cause: err}}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Op == op && pe.Path == path {
			return pe
		}
		return &fs.PathError{Op: op, Path: path, Err: pe.Err}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &fs.PathError{Op: op, Path: path, Err: errno}
	}
	if errors.Is(err, ErrClosed) {
		return &fs.PathError{Op: op, Path: path, Err: fs.ErrClosed}
	}
	return &fs.PathError{Op: op, Path: path, Err: &ioError{err}}
}

// ioError is an internal failure (SQLite, disk). It reads as EIO for errno
// matching and keeps the cause for logs.
type ioError struct{ cause error }

func (e *ioError) Error() string   { return "input/output error: " + e.cause.Error() }
func (e *ioError) Unwrap() []error { return []error{syscall.EIO, e.cause} }

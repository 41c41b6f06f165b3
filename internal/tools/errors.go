package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// Error codes. Every error a tool returns is an *Error with one of these
// codes and a message written for the model: what went wrong and what to do
// instead.
const (
	CodeInvalid        = "invalid"         // the input is malformed or out of range
	CodeUnknownTool    = "unknown_tool"    // no tool has that name
	CodeForbidden      = "forbidden"       // the caller may not use this tool
	CodeNotFound       = "not_found"       // the path does not exist
	CodeExists         = "exists"          // something already exists there
	CodeIsDirectory    = "is_directory"    // a file was expected, the path is a directory
	CodeNotDirectory   = "not_directory"   // a directory was expected (or a path element is a file)
	CodeNotEmpty       = "not_empty"       // a directory with entries, without recursive
	CodeTooLarge       = "too_large"       // a cap was exceeded (content, file, image, quota)
	CodeBinary         = "binary"          // a text operation on a binary file
	CodeNoMatch        = "no_match"        // edit: old text not found
	CodeAmbiguousMatch = "ambiguous_match" // edit: old text found more than once
	CodeConflict       = "conflict"        // edit: the file changed since expected_revision
	CodeReadOnly       = "read_only"       // the workspace (or path) cannot be written
	CodeBusy           = "busy"            // too many executions running; retry later
	CodeUnknownBackend = "unknown_backend" // exec: no such backend
	CodeUnavailable    = "unavailable"     // the workspace or runtime is closed or shutting down
	CodeCancelled      = "cancelled"       // the call was cancelled
	CodeInternal       = "internal"        // a bug or an I/O failure
)

// Error is a tool failure: a stable code and a message a model can act on.
// It never carries a raw Go error text that names internals.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// err is the cause, for logs (errors.Unwrap); never shown to the model.
	err error
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.err }

// errorf returns an *Error with code and a formatted message. Paths in
// messages are shown with quote.Path, as everywhere in the tools' output.
func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError converts any error to an *Error. A store error on path p (a store
// path, shown in the message with quote.Path) becomes the code of its errno
// with a message about p; run's sentinels get their
// codes; anything unexpected is CodeInternal with a generic message (the
// cause is kept for Unwrap).
func AsError(err error, p string) *Error {
	if err == nil {
		return nil
	}
	p = quote.Path(p)
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	wrap := func(code, format string, args ...any) *Error {
		e := errorf(code, format, args...)
		e.err = err
		return e
	}
	switch {
	case errors.Is(err, context.Canceled):
		return wrap(CodeCancelled, "the call was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return wrap(CodeCancelled, "the call ran out of time")
	case errors.Is(err, run.ErrUnknownBackend):
		return wrap(CodeUnknownBackend, "%s", err.Error())
	case errors.Is(err, run.ErrNotAllowed):
		return wrap(CodeForbidden, "%s", err.Error())
	case errors.Is(err, policy.ErrDenied), errors.Is(err, policy.ErrApprovalDenied), errors.Is(err, policy.ErrApprovalTimeout):
		// A command rule's refusal, an approver's no, or nobody's answer:
		// the message names the rule (and the approver).
		return wrap(CodeForbidden, "%s", err.Error())
	case errors.Is(err, policy.ErrTooManyPending):
		return wrap(CodeBusy, "%s; wait for one to be decided and retry", err.Error())
	case errors.Is(err, run.ErrQuota):
		return wrap(CodeBusy, "%s", err.Error())
	case errors.Is(err, run.ErrBusy):
		return wrap(CodeBusy, "too many executions are running in this workspace; wait for one to end and retry")
	case errors.Is(err, run.ErrTooLarge):
		return wrap(CodeTooLarge, "%s", err.Error())
	case errors.Is(err, run.ErrTimeoutTooLong), errors.Is(err, run.ErrInvalid):
		return wrap(CodeInvalid, "%s", err.Error())
	case errors.Is(err, run.ErrClosed), errors.Is(err, vfs.ErrClosed):
		return wrap(CodeUnavailable, "the workspace is closing; retry in a moment")
	}
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) {
		errors.As(pe.Err, &errno)
	} else {
		errors.As(err, &errno)
	}
	switch errno {
	case 0:
		return wrap(CodeInternal, "internal error on %s", p)
	case syscall.ENOENT:
		return wrap(CodeNotFound, "%s does not exist", p)
	case syscall.EEXIST:
		return wrap(CodeExists, "%s already exists", p)
	case syscall.EISDIR:
		return wrap(CodeIsDirectory, "%s is a directory", p)
	case syscall.ENOTDIR:
		return wrap(CodeNotDirectory, "a component of %s is not a directory", p)
	case syscall.ENOTEMPTY:
		return wrap(CodeNotEmpty, "%s is a directory that is not empty", p)
	case syscall.EFBIG:
		return wrap(CodeTooLarge, "%s would exceed the workspace's largest file size", p)
	case syscall.ENOSPC, syscall.EDQUOT:
		// The store's message says which bound: the workspace's quota, the
		// disk, or the data directory's bound.
		why := errno.Error()
		if pe != nil {
			why = pe.Err.Error()
		}
		return wrap(CodeTooLarge, "%s: %s: delete or truncate files to make room (deleting always works)", p, why)
	case syscall.EROFS:
		return wrap(CodeReadOnly, "the workspace is read-only")
	case syscall.EACCES, syscall.EPERM:
		return wrap(CodeForbidden, "permission denied on %s", p)
	case syscall.ENAMETOOLONG:
		return wrap(CodeInvalid, "the path %s is too long (names at most 255 bytes, paths 4096)", p)
	case syscall.ELOOP:
		return wrap(CodeInvalid, "too many levels of symbolic links in %s", p)
	case syscall.EINVAL:
		return wrap(CodeInvalid, "invalid operation on %s", p)
	case syscall.EBUSY:
		return wrap(CodeInvalid, "%s is busy (the root cannot be removed)", p)
	default:
		return wrap(CodeInternal, "%s: %s", p, errno.Error())
	}
}

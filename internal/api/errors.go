package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// Named error codes. Errors of the store carry their errno name instead
// ("ENOENT", "EEXIST", "ENOTDIR", ...).
const (
	CodeBadName          = "bad_name"          // 400: a workspace name breaks the name rule
	CodeBadPath          = "bad_path"          // 400: a file path with ".." or NUL
	CodeBadJSON          = "bad_json"          // 400: the body is not the expected JSON
	CodeBadRange         = "bad_range"         // 416: a Range header that cannot be served
	CodeInvalid          = "invalid"           // 400: a bad parameter
	CodeUnknownBackend   = "unknown_backend"   // 400
	CodeUnauthorized     = "unauthorized"      // 401
	CodeForbidden        = "forbidden"         // 403
	CodeNotFound         = "not_found"         // 404: workspace, execution, token or route
	CodeExists           = "exists"            // 409
	CodeInUse            = "in_use"            // 409: workspace has users / is open elsewhere
	CodeRunning          = "running"           // 409: dispose of a running execution
	CodeNotRunning       = "not_running"       // 409: kill of an ended execution
	CodeStdinTaken       = "stdin_taken"       // 409: a second stdin stream for an execution
	CodeTooMany          = "too_many"          // 409: token limit; 429: a workspace's or token's share held; 503: a host-wide bound held
	CodeJournalTruncated = "journal_truncated" // 410: a change cursor older than the journal keeps
	CodeGone             = "gone"              // 410: a share link that expired or was revoked
	CodeTooLarge         = "too_large"         // 413
	CodeTimeout          = "timeout"           // 408: a request body that stopped arriving; 504: a deadline passed
	CodeBusy             = "busy"              // 429: too many running executions
	CodeInternal         = "internal"          // 500
	CodeUnavailable      = "unavailable"       // 503: too many workspaces open, or shutting down
	CodePolicyDenied     = "policy_denied"     // 403: a command rule denies the execution
	CodeApprovalDenied   = "approval_denied"   // 403: an approver denied the execution
	CodeApprovalTimeout  = "approval_timeout"  // 408: nobody approved the execution in time
	CodeCloneFailed      = "clone_failed"      // 502: a workspace's import from git failed (git's message)
)

// Error is an error with an HTTP status and a stable code.
type Error struct {
	Status  int
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// classify maps an error to its HTTP status, code and message.
func classify(err error) *Error {
	var ae *Error
	if errors.As(err, &ae) {
		return ae
	}
	if e := shareError(err); e != nil {
		return e
	}
	if e := artifactError(err); e != nil {
		return e
	}
	msg := err.Error()
	var pe0 *fs.PathError
	if errors.As(err, &pe0) && pe0.Path != "" {
		msg = strings.ReplaceAll(msg, pe0.Path, quote.Path(pe0.Path)) // the path as responses show it
	}
	var le *fair.LimitError
	if errors.As(err, &le) {
		// A token's or a workspace's share is the caller's to free (429);
		// the server's bound is everyone's (503).
		status := http.StatusTooManyRequests
		if le.Scope == fair.ScopeHost {
			status = http.StatusServiceUnavailable
		}
		return &Error{status, CodeTooMany, le.Error()}
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &Error{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("request body over the limit of %d bytes", mbe.Limit)}
	}
	type sentinel struct {
		err    error
		status int
		code   string
	}
	for _, s := range []sentinel{
		{auth.ErrUnauthorized, http.StatusUnauthorized, CodeUnauthorized},
		{auth.ErrForbidden, http.StatusForbidden, CodeForbidden},
		{auth.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{auth.ErrInvalid, http.StatusBadRequest, CodeInvalid},
		{auth.ErrTooMany, http.StatusConflict, CodeTooMany},
		{auth.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
		{host.ErrBadName, http.StatusBadRequest, CodeBadName},
		{host.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{host.ErrExists, http.StatusConflict, CodeExists},
		{host.ErrInUse, http.StatusConflict, CodeInUse},
		{host.ErrTooManyOpen, http.StatusServiceUnavailable, CodeUnavailable},
		{host.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
		{vfs.ErrLocked, http.StatusConflict, CodeInUse},
		{vfs.ErrJournalTruncated, http.StatusGone, CodeJournalTruncated},
		{run.ErrUnknownBackend, http.StatusBadRequest, CodeUnknownBackend},
		{run.ErrNotAllowed, http.StatusForbidden, CodeForbidden},
		{run.ErrBusy, http.StatusTooManyRequests, CodeBusy},
		{run.ErrQuota, http.StatusTooManyRequests, CodeTooMany},
		{run.ErrTooLarge, http.StatusRequestEntityTooLarge, CodeTooLarge},
		{run.ErrTimeoutTooLong, http.StatusBadRequest, CodeInvalid},
		{run.ErrInvalid, http.StatusBadRequest, CodeInvalid},
		{run.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{run.ErrExists, http.StatusConflict, CodeExists},
		{run.ErrRunning, http.StatusConflict, CodeRunning},
		{run.ErrNotRunning, http.StatusConflict, CodeNotRunning},
		{run.ErrStdinTaken, http.StatusConflict, CodeStdinTaken},
		{run.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
		{vfs.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
		{policy.ErrInvalid, http.StatusBadRequest, CodeInvalid},
		{policy.ErrDenied, http.StatusForbidden, CodePolicyDenied},
		{policy.ErrApprovalDenied, http.StatusForbidden, CodeApprovalDenied},
		{policy.ErrApprovalTimeout, http.StatusRequestTimeout, CodeApprovalTimeout},
		{policy.ErrTooManyPending, http.StatusTooManyRequests, CodeTooMany},
		{policy.ErrNoApproval, http.StatusNotFound, CodeNotFound},
		{context.Canceled, 499, "cancelled"},
		{context.DeadlineExceeded, http.StatusGatewayTimeout, CodeTimeout},
	} {
		if errors.Is(err, s.err) {
			return &Error{s.status, s.code, msg}
		}
	}
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(pe.Err, &errno) || errors.As(err, &errno) {
		name := unix.ErrnoName(errno)
		if name == "" {
			name = fmt.Sprintf("errno%d", int(errno))
		}
		return &Error{errnoStatus(errno), name, msg}
	}
	return &Error{http.StatusInternalServerError, CodeInternal, msg}
}

// errnoStatus is the HTTP status of a store error.
func errnoStatus(e syscall.Errno) int {
	switch e {
	case syscall.ENOENT:
		return http.StatusNotFound
	case syscall.EEXIST, syscall.ENOTEMPTY, syscall.EBUSY, syscall.ETXTBSY:
		return http.StatusConflict
	case syscall.EACCES, syscall.EPERM, syscall.EROFS:
		return http.StatusForbidden
	case syscall.EFBIG, syscall.E2BIG:
		return http.StatusRequestEntityTooLarge
	case syscall.EDQUOT:
		// The workspace's own quota (bytes or inodes): the client's
		// request is over a bound set for it, which no retry lifts (507
		// would read as the server's trouble).
		return http.StatusForbidden
	case syscall.ENOSPC:
		return http.StatusInsufficientStorage
	case syscall.EIO:
		return http.StatusInternalServerError
	default: // ENOTDIR, EISDIR, EINVAL, ELOOP, ENAMETOOLONG, EXDEV, ...
		return http.StatusBadRequest
	}
}

// writeError writes err as a JSON error response.
func writeError(w http.ResponseWriter, e *Error) {
	var body client.ErrorBody
	body.Error.Code, body.Error.Message = e.Code, printable(e.Message)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Del("Content-Length")
	h.Del("Content-Range")
	switch e.Status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="desk"`)
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		h.Set("Retry-After", "1")
	}
	status := e.Status
	if status == 499 { // the client went away; nobody reads this
		status = http.StatusBadRequest
	}
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// printable returns msg with what is not printable UTF-8 (control
// characters, bytes that are not UTF-8) escaped as strconv.Quote would: an
// error message is one line, and lossless where it names a path.
func printable(msg string) string {
	if quote.Plain(strings.ReplaceAll(msg, `"`, "'")) {
		return msg
	}
	var b strings.Builder
	for i, r := range msg {
		switch _, n := utf8.DecodeRuneInString(msg[i:]); {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", msg[i])
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

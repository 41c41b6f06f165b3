package jsvm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/internal/jsvm/qjs"
	"github.com/desk-dev/desk/internal/vfs"
)

// errnoText is what libuv (and so Node) calls each errno: its code and the
// words in the message ("ENOENT: no such file or directory, open 'x'").
var errnoText = map[syscall.Errno][2]string{
	syscall.EPERM:        {"EPERM", "operation not permitted"},
	syscall.ENOENT:       {"ENOENT", "no such file or directory"},
	syscall.EIO:          {"EIO", "i/o error"},
	syscall.E2BIG:        {"E2BIG", "argument list too long"},
	syscall.EBADF:        {"EBADF", "bad file descriptor"},
	syscall.EACCES:       {"EACCES", "permission denied"},
	syscall.EBUSY:        {"EBUSY", "resource busy or locked"},
	syscall.EEXIST:       {"EEXIST", "file already exists"},
	syscall.EXDEV:        {"EXDEV", "cross-device link not permitted"},
	syscall.ENOTDIR:      {"ENOTDIR", "not a directory"},
	syscall.EISDIR:       {"EISDIR", "illegal operation on a directory"},
	syscall.EINVAL:       {"EINVAL", "invalid argument"},
	syscall.EMFILE:       {"EMFILE", "too many open files"},
	syscall.EFBIG:        {"EFBIG", "file too large"},
	syscall.ENOSPC:       {"ENOSPC", "no space left on device"},
	syscall.EDQUOT:       {"EDQUOT", "disk quota exceeded"},
	syscall.EROFS:        {"EROFS", "read-only file system"},
	syscall.EMLINK:       {"EMLINK", "too many links"},
	syscall.ENAMETOOLONG: {"ENAMETOOLONG", "name too long"},
	syscall.ENOTEMPTY:    {"ENOTEMPTY", "directory not empty"},
	syscall.ELOOP:        {"ELOOP", "too many symbolic links encountered"},
	syscall.ENOSYS:       {"ENOSYS", "function not implemented"},
	syscall.ENODATA:      {"ENODATA", "no data available"},
	syscall.ENOTSUP:      {"ENOTSUP", "operation not supported on socket"},
	syscall.ENXIO:        {"ENXIO", "no such device or address"},
}

// errnoOf returns the errno of a store error (EIO for anything else).
func errnoOf(err error) syscall.Errno {
	var en syscall.Errno
	if errors.As(err, &en) {
		return en
	}
	return vfs.Errno(err)
}

// fsError is the Error object Node's fs throws for err: message "CODE:
// description, syscall 'path'" (with " -> 'dest'" for two-path calls), and
// errno (negative), code, syscall, path and dest properties, with no stack
// frames (as Node's fs/promises errors).
func (x *execution) fsError(err error, sys, path, dest string, hasPath bool) error {
	if le := new(LimitError); errors.As(err, &le) {
		return err
	}
	if x.c.Reason() != nil {
		return x.c.Reason()
	}
	en := errnoOf(err)
	text, ok := errnoText[en]
	if !ok {
		text = [2]string{fmt.Sprintf("E%d", int(en)), en.Error()}
	}
	msg := fmt.Sprintf("%s: %s, %s", text[0], text[1], sys)
	props := []prop{{"errno", -int(en)}, {"code", text[0]}, {"syscall", sys}}
	if hasPath {
		msg += fmt.Sprintf(" '%s'", path)
		props = append(props, prop{"path", path})
		if dest != "" {
			msg += fmt.Sprintf(" -> '%s'", dest)
			props = append(props, prop{"dest", dest})
		}
	}
	return x.jsError("Error", "", msg, props, false)
}

// rmIsDirError is Node's SystemError for rm of a directory without
// recursive: "SystemError [ERR_FS_EISDIR]: Path is a directory: rm returned
// EISDIR (is a directory) PATH".
func (x *execution) rmIsDirError(path string) error {
	msg := "Path is a directory: rm returned EISDIR (is a directory) " + path
	p, _ := json.Marshal(path)
	info := json.RawMessage(`{"code":"EISDIR","message":"is a directory","path":` + string(p) + `,"syscall":"rm","errno":21}`)
	return x.jsError("Error", "SystemError", msg, []prop{
		{"code", "ERR_FS_EISDIR"}, {"info", info}, {"errno", 21}, {"syscall", "rm"}, {"path", path},
	}, false)
}

// prop is a property of an error made by jsError, in order.
type prop struct {
	k string
	v any
}

// jsError returns a *qjs.Throw of a new kind(msg) (kind: Error, TypeError,
// RangeError...) with the properties props, named name if not empty. A code
// "ERR_*" shows in its toString, as Node's errors do. Without frames its
// stack is its first line only.
func (x *execution) jsError(kind, name, msg string, props []prop, frames bool) error {
	if x.c.Reason() != nil {
		return x.c.Reason()
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range props {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(p.k)
		v, err := json.Marshal(p.v)
		if err != nil {
			return fmt.Errorf("encode error property %s: %w", p.k, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	v, err := x.callInternal("makeError", x.str(kind), x.str(msg), x.str(b.String()), x.str(name), qjs.Bool(frames))
	if err != nil {
		return err
	}
	return &qjs.Throw{Value: v}
}

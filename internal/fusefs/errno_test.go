package fusefs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"strings"
	"syscall"
	"testing"

	"github.com/desk-dev/desk/internal/vfs"
)

func TestServer_errno(t *testing.T) {
	var logbuf bytes.Buffer
	s := &Server{dir: "/mnt", opts: Options{Logger: log.New(&logbuf, "", 0)}}
	pe := func(e syscall.Errno) error { return &fs.PathError{Op: "open", Path: "/x", Err: e} }
	for _, tc := range []struct {
		name   string
		err    error
		want   syscall.Errno
		logged bool
	}{
		{"nil", nil, 0, false},
		{"path error", pe(syscall.ENOENT), syscall.ENOENT, false},
		{"wrapped path error", fmt.Errorf("rename a: %w", pe(syscall.EXDEV)), syscall.EXDEV, false},
		{"bare errno", syscall.ENOTEMPTY, syscall.ENOTEMPTY, false},
		{"ENOSYS never reaches the kernel", pe(syscall.ENOSYS), syscall.EIO, true},
		{"internal failure", &fs.PathError{Op: "write", Path: "/x", Err: errors.Join(syscall.EIO, errors.New("disk I/O error"))}, syscall.EIO, true},
		{"closed store", &fs.PathError{Op: "read", Path: "/x", Err: fs.ErrClosed}, syscall.EBADF, false},
		{"store closed sentinel", vfs.ErrClosed, syscall.EBADF, false},
		{"canceled", context.Canceled, syscall.EINTR, false},
		{"unknown", errors.New("something odd"), syscall.EIO, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logbuf.Reset()
			if got := s.errno("op", tc.err); got != tc.want {
				t.Errorf("errno(%v) = %v, want %v", tc.err, got, tc.want)
			}
			if logged := logbuf.Len() > 0; logged != tc.logged {
				t.Errorf("logged %q, want a log line: %v", logbuf.String(), tc.logged)
			}
			if tc.logged && !strings.Contains(logbuf.String(), tc.err.Error()) {
				t.Errorf("log line %q lacks the cause", logbuf.String())
			}
		})
	}
}

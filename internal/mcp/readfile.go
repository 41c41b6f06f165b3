package mcp

import (
	"context"
	"fmt"

	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
)

// readFile reads a regular file of at most max bytes from a store.
func readFile(ctx context.Context, fsys *vfs.FS, p string, max int64) ([]byte, error) {
	fi, err := fsys.Stat(ctx, p)
	if err != nil {
		return nil, tools.AsError(err, p)
	}
	if !fi.Mode().IsRegular() {
		return nil, &tools.Error{Code: tools.CodeIsDirectory, Message: fmt.Sprintf("%s is not a regular file", p)}
	}
	if fi.Size() > max {
		return nil, &tools.Error{Code: tools.CodeTooLarge, Message: fmt.Sprintf("%s is %d bytes, over the %d-byte cap for resources: use the read tool, which pages", p, fi.Size(), max)}
	}
	b, err := fsys.ReadFile(ctx, p)
	if err != nil {
		return nil, tools.AsError(err, p)
	}
	return b, nil
}

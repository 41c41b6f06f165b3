package mcp

import (
	"context"
	"fmt"

	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/tools"
	"github.com/desk-dev/desk/internal/vfs"
)

// readFile reads a regular file of at most max bytes from a store. p is in
// the shown form (quote.Path), as resource URIs carry it.
func readFile(ctx context.Context, fsys *vfs.FS, shown string, max int64) ([]byte, error) {
	p, err := quote.ParsePath(shown)
	if err != nil {
		return nil, &tools.Error{Code: tools.CodeInvalid, Message: err.Error()}
	}
	fi, err := fsys.Stat(ctx, p)
	if err != nil {
		return nil, tools.AsError(err, p)
	}
	if !fi.Mode().IsRegular() {
		return nil, &tools.Error{Code: tools.CodeIsDirectory, Message: fmt.Sprintf("%s is not a regular file", quote.Path(p))}
	}
	if fi.Size() > max {
		return nil, &tools.Error{Code: tools.CodeTooLarge, Message: fmt.Sprintf("%s is %d bytes, over the %d-byte cap for resources: use the read tool, which pages", quote.Path(p), fi.Size(), max)}
	}
	b, err := fsys.ReadFile(ctx, p)
	if err != nil {
		return nil, tools.AsError(err, p)
	}
	return b, nil
}

package share

import (
	"context"
	"fmt"
	"path"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Workspace is a Store seen from one workspace: what the API's share route
// and the publish tool use to share a file of that workspace's store.
type Workspace struct {
	Store *Store
	Name  string
}

// Publish shares the regular file at p (absolute, symlinks followed) of
// fsys: its content as it is now, for ttl (0: DefaultTTL), shown as
// disposition ("": Inline). A directory is EISDIR, anything else but a
// regular file EINVAL, a file over MaxFileBytes ErrTooLarge (checked
// before it is read), each an *fs.PathError.
func (w Workspace) Publish(ctx context.Context, fsys *vfs.FS, p string, ttl time.Duration, disposition string) (Created, error) {
	if _, err := checkTTL(ttl); err != nil {
		return Created{}, err
	}
	if _, err := CheckDisposition(disposition); err != nil {
		return Created{}, err
	}
	p = path.Clean(p)
	f, err := fsys.Open(ctx, p)
	if err != nil {
		return Created{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Created{}, err
	}
	switch {
	case fi.IsDir():
		return Created{}, errno("share", p, syscall.EISDIR)
	case !fi.Mode().IsRegular():
		return Created{}, errno("share", p, syscall.EINVAL)
	case fi.Size() > w.Store.o.MaxFileBytes:
		return Created{}, fmt.Errorf("share %s: %w: %d bytes, over the limit of %d", p, ErrTooLarge, fi.Size(), w.Store.o.MaxFileBytes)
	}
	return w.Store.Create(ctx, w.Name, Source{Path: p, Content: f, TTL: ttl, Disposition: disposition})
}

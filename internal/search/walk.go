package search

import (
	"context"
	"errors"
	"path"
	"strings"

	"github.com/desk-dev/desk/internal/vfs"
)

// page is the directory page size of walks. With inline content of up to
// the store's chunk size per file, a page holds at most a few MiB, and a
// walk holds one page at a time.
const page = 128

// Walk visits a tree depth first in name (byte) order without following
// symlinks, reading each directory page with its entries' attributes (and
// the content of small files, when Load is set) in one statement
// (vfs.ReadDirFiles). It visits at most Limits.MaxEntries entries and stops
// at Limits.MaxTime. It holds one directory page at a time: a page is
// dropped when the walk goes down into a subdirectory, and read again after
// it, so memory does not grow with depth.
type Walk struct {
	FS     *vfs.FS
	Limits Limits
	// Load reads the content of regular files up to the store's chunk size
	// with their listing (vfs.DirFile.Loaded).
	Load bool
	// Skip, if set, prunes a path before it is visited (and, for a
	// directory, its subtree); a pruned entry costs no part of MaxEntries.
	Skip func(p string, f *vfs.DirFile) bool
	// Visit is called for every entry below the root; returning false
	// stops the walk.
	Visit func(p string, f *vfs.DirFile) (bool, error)
	// From, if set, is a path below the root to start at: entries before
	// it in the walk's order are neither read nor visited (a cursor, as
	// the API's grep pages with).
	From string

	left int
	// Last is the last entry visited.
	Last string
}

// Run walks the tree under root (a directory). It returns nil when the
// walk ended or Visit stopped it, a *LimitError (wrapping ErrLimit) when a
// limit did, ctx's error when it is done, and the store's error otherwise.
func (w *Walk) Run(ctx context.Context, root string) error {
	w.Limits = w.Limits.WithDefaults()
	w.left = w.Limits.MaxEntries
	tctx, cancel := context.WithTimeout(ctx, w.Limits.MaxTime)
	defer cancel()
	_, err := w.dir(tctx, root)
	return timeLimit(ctx, err, w.Limits)
}

// timeLimit turns the expiry of a call's MaxTime (a deadline of its own
// context, not of the caller's) into a LimitError.
func timeLimit(parent context.Context, err error, l Limits) error {
	if errors.Is(err, context.DeadlineExceeded) && parent.Err() == nil {
		return &LimitError{Limit: "MaxTime", Value: int64(l.MaxTime)}
	}
	return err
}

// dir walks dir's subtree; false: the walk stopped.
func (w *Walk) dir(ctx context.Context, dir string) (bool, error) {
	var load int64
	if w.Load {
		load = w.Limits.MaxFileBytes
	}
	after := ""
	if rest, ok := strings.CutPrefix(w.From, strings.TrimSuffix(dir, "/")+"/"); ok && rest != "" {
		first, _, _ := strings.Cut(rest, "/")
		after = before(first)
	}
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		ents, err := w.FS.ReadDirFiles(ctx, dir, after, page, load)
		if err != nil {
			return false, err
		}
		var sub string
		for i := range ents {
			e := &ents[i]
			p := path.Join(dir, e.Name)
			if err := ctx.Err(); err != nil {
				return false, err
			}
			if w.Skip != nil && w.Skip(p, e) {
				continue
			}
			if strings.HasPrefix(w.From, p+"/") {
				if !e.Attr.IsDir() {
					// Was an ancestor of From, is no directory now: it
					// sorts before From, so it counts as visited.
					continue
				}
				// An ancestor of From: visited before it, on the way.
				sub = e.Name
				break
			}
			if w.left--; w.left < 0 {
				return false, &LimitError{Limit: "MaxEntries", Value: int64(w.Limits.MaxEntries)}
			}
			w.Last = p
			ok, err := w.Visit(p, e)
			if !ok || err != nil {
				return false, err
			}
			if e.Attr.IsDir() {
				sub = e.Name
				break
			}
		}
		if sub != "" {
			// Drop the page before going down; read on after sub.
			ents = nil
			if ok, err := w.dir(ctx, path.Join(dir, sub)); !ok || err != nil {
				return ok, err
			}
			after = sub
			continue
		}
		if len(ents) < page {
			return true, nil
		}
		after = ents[len(ents)-1].Name
	}
}

// before returns the greatest name that sorts before name (names are at
// most 255 bytes and hold no NUL), so that a listing after it starts at name.
func before(name string) string {
	last := name[len(name)-1]
	if last <= 1 {
		return name[:len(name)-1]
	}
	return name[:len(name)-1] + string([]byte{last - 1}) + strings.Repeat("\xff", max(255-len(name), 0))
}

// Rel returns p relative to base (a directory p is below).
func Rel(base, p string) string {
	if base == "/" {
		return strings.TrimPrefix(p, "/")
	}
	return strings.TrimPrefix(p, base+"/")
}

// Type names an entry's type: "file", "dir", "symlink" or "other".
func Type(mode uint32) string {
	switch mode & vfs.S_IFMT {
	case vfs.S_IFDIR:
		return "dir"
	case vfs.S_IFLNK:
		return "symlink"
	case vfs.S_IFREG:
		return "file"
	}
	return "other"
}

package vfs

import (
	"context"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// DirFile is one entry of ReadDirFiles: a directory entry with the full
// attributes of its inode and, for a small regular file, its content.
type DirFile struct {
	Name string
	Attr Attr
	// Data is the file's content when Loaded (nil for an empty file).
	Data []byte
	// Loaded reports whether Data holds the content. It is false for
	// anything but a regular file, for a file larger than the limit given to
	// ReadDirFiles, and for a file open with a handle (whose unflushed writes
	// only a read through the store sees): read those with Open.
	Loaded bool
}

// dirFilesQuery lists a directory page with each inode's row and the content
// of its first chunk when the file fits in one chunk (size <= ?4), or its
// inline content (inline.go), or the chunk file's slot holding it; 61440 is
// S_IFMT and 32768 S_IFREG.
var dirFilesQuery = "SELECT i." + strings.ReplaceAll(inodeCols, ", ", ", i.") + `, d.name, coalesce(cd.data, i.data), ch.slot
	FROM dentries d JOIN inodes i ON i.ino = d.ino
	LEFT JOIN file_chunks fc ON fc.ino = i.ino AND fc.idx = 0 AND (i.mode & 61440) = 32768 AND i.size <= ?4
	LEFT JOIN chunks ch ON ch.id = fc.chunk
	LEFT JOIN chunk_data cd ON cd.id = fc.chunk AND ch.slot IS NULL
	WHERE d.parent = ?1 AND d.name > ?2 ORDER BY d.name LIMIT ?3`

// ReadDirFiles lists up to limit entries of a directory whose names sort
// after after (byte order, as ReadDirPage), with every entry's attributes and
// the content of the regular files of at most maxSize bytes (capped at the chunk
// size), all from one snapshot in one statement. It is the read path for
// walks that read many small files (grep -r, rg): one query per page instead
// of an open, a read and a close per file. Reading a file's content this way
// updates its access time as a read through Open does (relatime).
func (f *FS) ReadDirFiles(ctx context.Context, name, after string, limit int, maxSize int64) ([]DirFile, error) {
	r, limit, err := f.resolveDir(ctx, name, limit)
	if err != nil {
		return nil, err
	}
	if accessOf(ctx) == nil {
		return f.readDirFiles(ctx, r, name, after, limit, maxSize)
	}
	// Entries the caller may not see are left out; pages are refilled so
	// that a short page still means the end.
	var out []DirFile
	for len(out) < limit {
		want := limit - len(out)
		page, err := f.readDirFiles(ctx, r, name, after, want, maxSize)
		if err != nil {
			return nil, err
		}
		if len(page) > 0 {
			after = page[len(page)-1].Name
		}
		n := len(page)
		out = append(out, visible(ctx, r.path, page, func(e *DirFile) string { return e.Name })...)
		if n < want {
			break
		}
	}
	return out, nil
}

func (f *FS) readDirFiles(ctx context.Context, r resolved, name, after string, limit int, maxSize int64) ([]DirFile, error) {
	var err error
	maxSize = min(maxSize, f.chunkSize)
	var out []DirFile
	// A file of exactly one full chunk may have it in the chunk file
	// (slots.go), read inside the statement's epoch.
	e := f.slots.enter()
	defer f.slots.leave(e)
	var rerr error
	err = f.queryRows(ctx, dirFilesQuery, []any{r.ino, after, limit, maxSize}, func(st *sqlite.Stmt) {
		in := scanInode(st)
		e := DirFile{Name: st.Text(18), Attr: in.Attr}
		if in.IsRegular() && in.Size <= maxSize {
			e.Loaded = true
			if in.Size > 0 {
				// A short last chunk is stored short; holes read as zeros.
				e.Data = make([]byte, in.Size)
				switch {
				case !st.IsNull(20):
					if err := f.slots.read(st.Int64(20), 0, e.Data); err != nil && rerr == nil {
						rerr = err
					}
				case !st.IsNull(19):
					copy(e.Data, st.RawBlob(19))
				}
			}
		}
		out = append(out, e)
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, asPathErr("readdir", name, err)
	}
	f.omu.Lock()
	for i := range out {
		if e := &out[i]; e.Loaded && f.opens[e.Attr.Ino] != nil {
			e.Loaded, e.Data = false, nil
		}
	}
	f.omu.Unlock()
	if f.opts.ReadOnly {
		return out, nil
	}
	now := f.opts.Now()
	for _, e := range out {
		if a := e.Attr; e.Loaded && (!a.Atime.After(a.Mtime) || !a.Atime.After(a.Ctime) || now.Sub(a.Atime) > 24*time.Hour) {
			f.deferAtime(a.Ino, now)
		}
	}
	return out, nil
}

package sqlite

import (
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs"
)

// walVFS is SQLite's own VFS ("os") with one change: writes to a write-ahead
// log are gathered and reach the file as one write per transaction instead of
// two per page.
//
// SQLite appends a transaction to the WAL as frames, each a 24-byte header
// written with one pwrite(2) and a page written with another, and makes the
// transaction visible (the wal-index header, in shared memory) only after the
// last frame, whose header carries the database size: the commit frame. A
// create dirties five to eight pages, so it cost 10–16 system calls, about
// half the time of a small transaction on ext4. walFile keeps the frames of a
// transaction in memory while they are contiguous and writes them when the
// commit frame is complete, inside the write call that completes it, before
// SQLite returns to publish the commit. So:
//
//   - a transaction is in the file (the page cache) before any other
//     connection can see it and before COMMIT returns: durability against
//     kill -9 and what readers see are exactly as without the buffer;
//   - frames of an unfinished transaction live only in the writer's memory,
//     where only the writer can want them (nothing else reads past the last
//     commit); the writer's own reads of them, truncation, syncing and size
//     queries write the buffer first;
//   - a failed write is reported by the write that completes the commit frame,
//     so SQLite fails and rolls back the transaction as it would have with
//     the error on any earlier frame.
//
// Frames are recognised by shape: a 24-byte write is a frame header (the WAL
// header is 32 bytes, pages are the page size), and its bytes 4..7 are
// non-zero for a commit frame. The buffer is bounded (walBufMax): a large
// transaction is written in pieces as it goes.
type walVFS struct {
	vfs.VFSFilename
}

// walVFSName is the name the store's connections open their database with.
const walVFSName = "desk-walbuf"

// walBufMax bounds the frames kept in memory by one WAL handle.
const walBufMax = 1 << 20

// walBufCap is the capacity of a frame buffer: walBufMax and room for the
// frame that crosses it (a header and a page of at most 64 KiB).
const walBufCap = walBufMax + 128<<10

// walBufs holds frame buffers between transactions: a handle takes one for
// the frames of a transaction and gives it back once they are written, so
// idle stores hold none and a large transaction reuses one buffer instead of
// growing a new one for every megabyte.
var walBufs = sync.Pool{New: func() any { b := make([]byte, 0, walBufCap); return &b }}

// walPending counts the bytes held in WAL buffers, for FlushWAL's check.
var walPending atomic.Int64

func init() {
	vfs.Register(walVFSName, walVFS{vfs.Find("os").(vfs.VFSFilename)})
}

// Open is never called: SQLite opens files through OpenFilename.
func (w walVFS) Open(name string, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	f, flags, err := w.VFSFilename.Open(name, flags)
	return wrapWAL(f, flags), flags, err
}

// OpenFilename opens a file with the default VFS and wraps write-ahead logs.
// Files it creates are private (privateFiles).
func (w walVFS) OpenFilename(name *vfs.Filename, flags vfs.OpenFlag) (vfs.File, vfs.OpenFlag, error) {
	if name != nil {
		privateFiles(name.String(), flags)
	}
	f, flags, err := w.VFSFilename.OpenFilename(name, flags)
	return wrapWAL(f, flags), flags, err
}

func wrapWAL(f vfs.File, flags vfs.OpenFlag) vfs.File {
	if f == nil || flags&vfs.OPEN_WAL == 0 {
		return f
	}
	return &walFile{File: f}
}

// walFile is a write-ahead log whose frames are written a transaction at a
// time (see walVFS). SQLite uses a WAL handle from one connection at a time.
type walFile struct {
	vfs.File
	buf []byte // frames not yet written, at file offset off
	off int64
	// commitEnd is where the page of the commit frame whose header was just
	// written ends: the buffer is written when a write reaches it.
	commitEnd int64
}

// Unwrap returns the file the frames are written to.
func (w *walFile) Unwrap() vfs.File { return w.File }

// WriteAt buffers p at off, then writes the buffer if p completes a commit
// frame or the buffer is full.
func (w *walFile) WriteAt(p []byte, off int64) (int, error) {
	end := w.off + int64(len(w.buf))
	switch {
	case len(p) > walBufCap-walBufMax:
		// Not a frame (never seen: pages are at most 64 KiB).
		if err := w.flush(); err != nil {
			return 0, err
		}
		n, err := w.File.WriteAt(p, off)
		return n, full(err)
	case len(w.buf) > 0 && off == end && len(w.buf)+len(p) <= cap(w.buf):
		w.buf = append(w.buf, p...)
		walPending.Add(int64(len(p)))
	case len(w.buf) > 0 && off >= w.off && off+int64(len(p)) <= end:
		copy(w.buf[off-w.off:], p) // a frame rewritten in place (checksums)
	default:
		if err := w.flush(); err != nil {
			return 0, err
		}
		if w.buf == nil {
			w.buf = *walBufs.Get().(*[]byte)
		}
		w.off = off
		w.buf = append(w.buf[:0], p...)
		walPending.Add(int64(len(p)))
	}
	pend := off + int64(len(p))
	if len(p) == walFrameHeader {
		w.commitEnd = 0
		if binary.BigEndian.Uint32(p[4:8]) != 0 {
			w.commitEnd = -pend // the page follows the header; its size is not known yet
		}
	} else if w.commitEnd < 0 && off == -w.commitEnd {
		w.commitEnd = 0
		return len(p), w.flush() // the commit frame is complete
	}
	if len(w.buf) >= walBufMax {
		return len(p), w.flush()
	}
	return len(p), nil
}

// walFrameHeader is the size of a WAL frame header.
const walFrameHeader = 24

// flush writes the buffered frames.
func (w *walFile) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	n := int64(len(w.buf))
	_, err := w.File.WriteAt(w.buf, w.off)
	walPending.Add(-n)
	b := w.buf[:0]
	walBufs.Put(&b)
	w.buf = nil
	return full(err)
}

// full tags a write error of a full disk (ENOSPC, or EDQUOT: the user's disk
// quota) as SQLITE_FULL, which SQLite reports as such. Without it SQLite
// sees a plain I/O error (its unix VFS does this mapping; the Go one only
// for a bare errno, and os.File wraps it).
func full(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return vfs.SystemError(err, sqlite3.FULL)
	}
	return err
}

// ReadAt writes the buffer first if the read overlaps it.
func (w *walFile) ReadAt(p []byte, off int64) (int, error) {
	if len(w.buf) > 0 && off < w.off+int64(len(w.buf)) && off+int64(len(p)) > w.off {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	return w.File.ReadAt(p, off)
}

// Truncate writes the buffer, then truncates.
func (w *walFile) Truncate(size int64) error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.File.Truncate(size)
}

// Sync writes the buffer, then syncs.
func (w *walFile) Sync(flags vfs.SyncFlag) error {
	if err := w.flush(); err != nil {
		return err
	}
	return w.File.Sync(flags)
}

// Size writes the buffer, then reports the file's size.
func (w *walFile) Size() (int64, error) {
	if err := w.flush(); err != nil {
		return 0, err
	}
	return w.File.Size()
}

// Close writes the buffer and closes the file.
func (w *walFile) Close() error {
	err := w.flush()
	if cerr := w.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// SizeHint passes the hint on.
func (w *walFile) SizeHint(size int64) error {
	if h, ok := w.File.(vfs.FileSizeHint); ok {
		return h.SizeHint(size)
	}
	return nil
}

// PowersafeOverwrite passes the setting through.
func (w *walFile) PowersafeOverwrite() bool {
	if p, ok := w.File.(vfs.FilePowersafeOverwrite); ok {
		return p.PowersafeOverwrite()
	}
	return false
}

// SetPowersafeOverwrite passes the setting through.
func (w *walFile) SetPowersafeOverwrite(psow bool) {
	if p, ok := w.File.(vfs.FilePowersafeOverwrite); ok {
		p.SetPowersafeOverwrite(psow)
	}
}

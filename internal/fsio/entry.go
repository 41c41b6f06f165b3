package fsio

import (
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/vfs"
)

// Every copy is a source of entries feeding a sink. Sources: a tar stream
// (readTar), a zip (readZip), a host directory (hostWalker) and a workspace
// directory (wsWalker). Sinks: a workspace (importer), a host directory
// (extractor) and an archive being written (tarSink, zipSink). Each pair is
// one exported function of the package.

// kind is the type of an entry.
type kind int

const (
	kindDir kind = iota
	kindFile
	kindSymlink
	kindHardlink
	kindSpecial // a FIFO, socket or device: typ and rdev say which
)

// xattr is one extended attribute of an entry.
type xattr struct {
	name  string
	value []byte
}

// entry is one item of a source tree, whatever it came from.
type entry struct {
	src    string // the name as the source spells it, for messages
	rel    string // cleaned relative name; "" is the root of the tree
	kind   kind
	perm   uint32 // the 12 permission bits
	uid    int
	gid    int
	atime  time.Time // zero: not given
	mtime  time.Time // zero: not given
	target string    // symlink target (verbatim) or hard link name (cleaned relative)
	xattrs []xattr
	body   io.Reader // file content, when the source is a stream
	// open, when body is nil, opens the file's content: walkers open files
	// only when a sink wants them (a zip sink wants a hard link's too).
	open func() (io.ReadCloser, error)
	size int64 // expected size of the content; negative if unknown
	// typ and rdev describe a kindSpecial entry: its Unix type bits
	// (vfs.S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK) and device number. A
	// kindHardlink entry to a special file has its typ too.
	typ  uint32
	rdev uint64
}

// content returns the entry's content and a function to release it.
func (e *entry) content() (io.Reader, func(), error) {
	switch {
	case e.body != nil:
		return e.body, func() {}, nil
	case e.open != nil:
		rc, err := e.open()
		if err != nil {
			return nil, nil, err
		}
		return rc, func() { rc.Close() }, nil
	}
	return eofReader{}, func() {}, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// sink receives the entries of a source, parents before children.
type sink interface {
	// add copies one entry.
	add(e *entry) error
	// skip records an entry left out, with the reason.
	skip(src, why string)
}

// specialName names the type of a kindSpecial entry for messages.
func specialName(typ uint32) string {
	switch typ {
	case vfs.S_IFIFO:
		return "FIFO"
	case vfs.S_IFSOCK:
		return "socket"
	case vfs.S_IFCHR:
		return "character device"
	case vfs.S_IFBLK:
		return "block device"
	}
	return "special file"
}

// special handles a special file a sink cannot make (a zip's, a device
// extracted to the host): skipped with a warning when skipOK, else refused.
func special(s sink, name, what string, skipOK bool) error {
	if skipOK {
		s.skip(name, "a "+what+" cannot be stored")
		return nil
	}
	return &EntryError{name, fmt.Errorf("%w: a %s cannot be stored (%w); skip such entries with ImportOptions.SkipSpecial (the API's skip_special=1)", ErrSpecialFile, what, errno(syscall.EPERM))}
}

// guard counts the entries a sink receives against the limits of the
// options, and the memory it keeps for them.
type guard struct {
	entries int64
	meta    int64
	opts    *ImportOptions // limits set (withDefaults)
}

// entry counts one more entry of the source.
func (g *guard) entry() error {
	if g.entries++; g.entries > g.opts.MaxEntries {
		return limitErr("MaxEntries", g.opts.MaxEntries, "entries")
	}
	return nil
}

// keep counts n more bytes of names and attributes kept to the end.
func (g *guard) keep(n int) error {
	if g.meta += int64(n); g.meta > g.opts.MaxMetaBytes {
		return limitErr("MaxMetaBytes", g.opts.MaxMetaBytes, "bytes of names and attributes to keep until the end (directories, a zip's directory)")
	}
	return nil
}

// keptEntry is about the memory an entry kept to the end holds: the
// struct, its names and its xattrs, with map overhead.
func keptEntry(e *entry) int {
	n := 200 + len(e.src) + len(e.rel) + len(e.target)
	for _, x := range e.xattrs {
		n += 32 + len(x.name) + len(x.value)
	}
	return n
}

// checkXattrs refuses an entry whose extended attributes no store would
// take: the store's limits, checked early so that the memory they take
// stays bounded (E2BIG, ENOSPC).
func checkXattrs(e *entry) error {
	total := 0
	for _, x := range e.xattrs {
		if len(x.value) > 64<<10 {
			return &EntryError{e.src, fmt.Errorf("extended attribute %s of %d bytes, over 64 KiB: %w", x.name, len(x.value), errno(syscall.E2BIG))}
		}
		if total += len(x.name) + len(x.value); total > 1<<20 {
			return &EntryError{e.src, fmt.Errorf("extended attributes of more than 1 MiB together: %w", errno(syscall.ENOSPC))}
		}
	}
	return nil
}

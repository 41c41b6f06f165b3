package fsio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultProgressInterval is how often progress is reported when the options
// leave ProgressInterval zero.
const DefaultProgressInterval = time.Second

// Defaults of the batching fields of ImportOptions.
const (
	DefaultBatchEntries  = 512      // ImportOptions.BatchEntries
	DefaultBatchBytes    = 16 << 20 // ImportOptions.BatchBytes: 16 MiB
	DefaultBatchFileSize = 1 << 20  // ImportOptions.BatchFileSize: 1 MiB
)

// Defaults of the limits of ImportOptions. They bound what one archive (or
// host directory) may make an import or an extraction do, whatever the
// archive says about itself.
const (
	DefaultMaxEntries   = 1_000_000 // ImportOptions.MaxEntries
	DefaultMaxBytes     = 64 << 30  // ImportOptions.MaxBytes: 64 GiB of file content
	DefaultMaxMetaBytes = 64 << 20  // ImportOptions.MaxMetaBytes: 64 MiB
)

// Fixed limits on entry names, as the store's defaults (vfs.DefaultMaxNameLen,
// vfs.DefaultMaxPathLen) and Linux's: an entry over them is refused with
// ENAMETOOLONG before anything is written.
const (
	MaxNameLen   = 255  // bytes in one element of an entry name
	MaxPathLen   = 4096 // bytes in an entry name joined to its destination, and in a symlink target
	MaxHeaderLen = 1 << 20
	// MaxHeaderLen is the largest tar header record (a PAX record set, a GNU
	// long name or link name) read: archive/tar's own bound
	// (tar.ErrFieldTooLong past it), reported as ErrLimit.
)

// Progress is a snapshot of a running import or export.
type Progress struct {
	Entries int64         // entries of every kind handled so far
	Files   int64         // regular files (hard links included) handled so far
	Bytes   int64         // file content bytes copied so far
	Elapsed time.Duration // time since the start
}

// Summary describes a finished import or export.
type Summary struct {
	Files     int64         // regular files with their content (hard links not counted)
	Dirs      int64         // directories, the root of the copied tree included
	Symlinks  int64         // symbolic links
	Hardlinks int64         // extra names of files already counted in Files
	Special   int64         // FIFOs, sockets and devices
	Bytes     int64         // file content bytes copied
	Xattrs    int64         // extended attributes copied
	Skipped   int64         // entries not copied: special files a format or a host cannot hold, unknown tar types
	Elapsed   time.Duration // wall time of the whole run
}

// Entries is the number of entries copied: files, directories, symlinks, hard
// links and special files.
func (s Summary) Entries() int64 { return s.Files + s.Dirs + s.Symlinks + s.Hardlinks + s.Special }

// ImportOptions configure ImportDir and ImportTar. The zero value is usable.
type ImportOptions struct {
	// Owners applies the source's uid and gid to every entry. Only a privileged
	// caller can reproduce other users' ownership faithfully; the CLI sets it
	// when running as root. When false, entries get the store's default owner.
	Owners bool
	// Exclude, if set, is asked about every host path ImportDir meets below the
	// source root (info is from lstat); returning true skips it (and, for a
	// directory, everything under it). The CLI uses it to skip the workspace's
	// own database files when they lie inside the imported directory.
	Exclude func(hostPath string, info fs.FileInfo) bool
	// Progress, if set, is called about once a ProgressInterval.
	Progress func(Progress)
	// ProgressInterval defaults to DefaultProgressInterval.
	ProgressInterval time.Duration
	// Warn, if set, receives a message for every entry that is skipped.
	Warn func(msg string)

	// Imports write entries to the store in batches, one transaction (and one
	// commit) for many entries, which is much faster than a transaction per
	// entry. The fields below bound a batch; zero or negative means the
	// default. They affect speed and memory use only: a failed import leaves
	// the workspace as it was whatever the batch size.

	// BatchEntries is the most entries (including parent directories the
	// source leaves implicit and the deferred attribute changes of
	// directories) written in one batch. Default DefaultBatchEntries.
	BatchEntries int
	// BatchBytes is about the most file content held in memory for one batch:
	// a batch is written once its files reach this size. Default
	// DefaultBatchBytes.
	BatchBytes int64
	// BatchFileSize is the size of the largest file whose content is read
	// into memory and written in a batch. Larger files are streamed to the
	// store in transactions of their own (their attributes still go in a
	// batch). Default DefaultBatchFileSize.
	BatchFileSize int64

	// Limits. Past one, the import fails with an error wrapping ErrLimit and
	// changes nothing. Zero or negative means the default.

	// MaxEntries bounds the entries of the source (of every kind, skipped
	// ones included). Default DefaultMaxEntries.
	MaxEntries int64
	// MaxBytes bounds the file content written, counted as it is
	// decompressed (a zip's declared sizes are checked before anything is
	// written). Default DefaultMaxBytes.
	MaxBytes int64
	// MaxMetaBytes bounds the memory an import holds for the names and
	// attributes it must keep to the end: the directories it created and
	// their deferred attributes, a zip's central directory, the moves of a
	// merge. Default DefaultMaxMetaBytes.
	MaxMetaBytes int64

	// SkipSpecial skips the FIFOs and device files of an archive with a
	// warning. By default a tar's are imported into a workspace (a zip's
	// are refused, ErrSpecialFile: a zip has no device numbers), and
	// ExtractHost makes FIFOs and refuses devices (ErrSpecialFile): a
	// device made on the host would reach its hardware.
	SkipSpecial bool
	// Format, if set, is what the archive must be (FormatTar: tar, plain or
	// gzip-compressed; FormatZip: zip); by default it is recognised from its
	// first bytes. A mismatch is ErrNotArchive.
	Format Format
	// TempDir is the host directory where a zip read from a stream (not a
	// seekable file) is spooled, since a zip is read from its end. Default
	// os.TempDir(). The spool file is removed before the import returns.
	TempDir string
	// KeepDestAttrs keeps an existing destination directory's own mode,
	// owner, xattrs and times: the attributes of the archive's "." entry are
	// then not applied to it. (A destination the import creates always gets
	// them.)
	KeepDestAttrs bool
}

// withDefaults returns the options with every limit set.
func (o ImportOptions) withDefaults() ImportOptions {
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxMetaBytes <= 0 {
		o.MaxMetaBytes = DefaultMaxMetaBytes
	}
	return o
}

// ExportOptions configure ExportTar, ExportArchive and ArchiveHost. The zero
// value is usable.
type ExportOptions struct {
	// Progress, if set, is called about once a ProgressInterval.
	Progress func(Progress)
	// ProgressInterval defaults to DefaultProgressInterval.
	ProgressInterval time.Duration
	// OmitRoot leaves out the "./" entry of a directory, which carries the
	// directory's own attributes: an import of the archive into an existing
	// directory then leaves that directory's attributes alone.
	OmitRoot bool
	// Name, for a source that is not a directory, names its one entry
	// (default: the source's base name).
	Name string
	// NoFollow, for ExportTar and ExportArchive, archives a symlink at src
	// itself (one entry) instead of what it points to.
	NoFollow bool
	// Warn, if set, receives a message for every entry or attribute the
	// archive cannot carry (ArchiveHost: a host FIFO, socket or device; a
	// zip: extended attributes).
	Warn func(msg string)
}

// xattrPrefix is the only extended-attribute namespace fsio copies: the others
// (security.*, trusted.*, system.*) belong to the host's kernel and policy.
const xattrPrefix = "user."

// paxXattr prefixes extended attributes in PAX records (the GNU/star convention).
const paxXattr = "SCHILY.xattr."

// progress rate-limits calls to a Progress callback. It is used from one
// goroutine only.
type progress struct {
	fn    func(Progress)
	every time.Duration
	start time.Time
	last  time.Time
	p     Progress
}

func newProgress(fn func(Progress), every time.Duration) *progress {
	if every <= 0 {
		every = DefaultProgressInterval
	}
	now := time.Now()
	return &progress{fn: fn, every: every, start: now, last: now}
}

// tick reports progress if the interval has passed since the last report.
func (p *progress) tick() {
	if p.fn == nil {
		return
	}
	now := time.Now()
	if now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	p.p.Elapsed = now.Sub(p.start)
	p.fn(p.p)
}

func (p *progress) elapsed() time.Duration { return time.Since(p.start) }

// countingReader counts the bytes read through it into a progress and a summary.
// With max set, a read that brings sum.Bytes past max fails with ErrLimit.
type countingReader struct {
	r   io.Reader
	p   *progress
	sum *Summary
	max int64 // 0: no limit
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.p.p.Bytes += int64(n)
		c.sum.Bytes += int64(n)
		c.p.tick()
		if c.max > 0 && c.sum.Bytes > c.max {
			return n, limitErr("MaxBytes", c.max, "bytes of file content")
		}
	}
	return n, err
}

// ErrLimit is wrapped by the error of an import that went past one of its
// limits (ImportOptions.MaxEntries, MaxBytes, MaxMetaBytes, MaxHeaderLen).
var ErrLimit = errors.New("over a limit")

// limitErr reports that the limit named name (value max) was passed.
func limitErr(name string, max int64, what string) error {
	return fmt.Errorf("%w: the archive holds more than %d %s (%s)", ErrLimit, max, what, name)
}

// ErrSpecialFile is wrapped by the error for a special file a destination
// cannot hold (a zip's FIFO, socket or device; a device extracted to the
// host), unless ImportOptions.SkipSpecial is set.
var ErrSpecialFile = errors.New("special file")

// ErrUnsafePath is wrapped by the error for an entry whose name is absolute or
// contains a ".." element.
var ErrUnsafePath = errors.New("unsafe path")

// EntryError reports a problem with one entry of the source.
type EntryError struct {
	Entry string // the entry's name as given in the source
	Err   error
}

// Error describes the problem with the entry's name quoted.
func (e *EntryError) Error() string { return fmt.Sprintf("entry %q: %v", e.Entry, e.Err) }

// Unwrap returns the underlying error.
func (e *EntryError) Unwrap() error { return e.Err }

// cleanEntryName validates a relative entry name from an archive and returns it
// cleaned, with "" for the root of the archive ("." or "./"). Absolute names and
// names with a ".." element are rejected, even when they would stay inside, and
// so are names with an element longer than MaxNameLen or longer than
// MaxPathLen as a whole (ENAMETOOLONG).
func cleanEntryName(name string) (string, error) {
	switch {
	case name == "":
		return "", &EntryError{name, fmt.Errorf("%w: empty name", ErrUnsafePath)}
	case strings.HasPrefix(name, "/"):
		return "", &EntryError{name, fmt.Errorf("%w: absolute path", ErrUnsafePath)}
	case strings.IndexByte(name, 0) >= 0:
		return "", &EntryError{name, fmt.Errorf("%w: NUL byte in name", ErrUnsafePath)}
	}
	if len(name) > MaxPathLen+1 { // one more for a directory's trailing slash
		return "", &EntryError{shortName(name), fmt.Errorf("name of %d bytes, over %d: %w", len(name), MaxPathLen, errno(syscall.ENAMETOOLONG))}
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == ".." {
			return "", &EntryError{name, fmt.Errorf("%w: \"..\" leads outside the destination", ErrUnsafePath)}
		}
		if len(elem) > MaxNameLen {
			return "", &EntryError{shortName(name), fmt.Errorf("an element of %d bytes, over %d: %w", len(elem), MaxNameLen, errno(syscall.ENAMETOOLONG))}
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

// shortName cuts a long entry name for a message.
func shortName(name string) string {
	if len(name) <= 200 {
		return name
	}
	return name[:200] + "..."
}

// depth is the number of elements of a cleaned relative name ("" has 0).
// deepestFirst sorts relative names deepest first, each depth in byte
// order: the order directories get their attributes in, so that setting one
// (its mode, its times) comes after every change inside it.
func deepestFirst(rels []string) {
	slices.SortFunc(rels, func(a, b string) int {
		if da, db := depth(a), depth(b); da != db {
			return db - da
		}
		return strings.Compare(a, b)
	})
}

func depth(rel string) int {
	if rel == "" {
		return 0
	}
	return strings.Count(rel, "/") + 1
}

// join joins a workspace directory and a cleaned relative name.
func join(dir, rel string) string {
	if rel == "" {
		return dir
	}
	return path.Join(dir, rel)
}

// cleanAbs turns a workspace path given by a caller into a clean absolute one.
func cleanAbs(p string) string {
	if p == "" {
		return "/"
	}
	return path.Clean("/" + p)
}

// entryErr reports err for entry, hiding the staging directory that a
// *fs.PathError from the store would name.
func entryErr(entry string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	if entry == "" {
		entry = "."
	}
	return &EntryError{Entry: entry, Err: err}
}

// checkTarget refuses a symlink target longer than MaxPathLen
// (ENAMETOOLONG) or holding a NUL byte.
func checkTarget(name, target string) error {
	if len(target) > MaxPathLen {
		return &EntryError{shortName(name), fmt.Errorf("symlink target of %d bytes, over %d: %w", len(target), MaxPathLen, errno(syscall.ENAMETOOLONG))}
	}
	if strings.IndexByte(target, 0) >= 0 {
		return &EntryError{name, fmt.Errorf("%w: NUL byte in the symlink target", ErrUnsafePath)}
	}
	return nil
}

// errnoError is an errno that reads with its name: "file exists (EEXIST)".
type errnoError struct{ errno syscall.Errno }

func (e errnoError) Error() string {
	return e.errno.Error() + " (" + unix.ErrnoName(e.errno) + ")"
}

func (e errnoError) Unwrap() error { return e.errno }

// errno returns e as an error whose message names it.
func errno(e syscall.Errno) error { return errnoError{e} }

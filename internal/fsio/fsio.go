package fsio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
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
	Bytes     int64         // file content bytes copied
	Xattrs    int64         // extended attributes copied
	Skipped   int64         // entries not copied: devices, FIFOs, sockets, unknown tar types
	Elapsed   time.Duration // wall time of the whole run
}

// Entries is the number of entries copied: files, directories, symlinks and hard links.
func (s Summary) Entries() int64 { return s.Files + s.Dirs + s.Symlinks + s.Hardlinks }

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
}

// ExportOptions configure ExportTar. The zero value is usable.
type ExportOptions struct {
	// Progress, if set, is called about once a ProgressInterval.
	Progress func(Progress)
	// ProgressInterval defaults to DefaultProgressInterval.
	ProgressInterval time.Duration
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
type countingReader struct {
	r   io.Reader
	p   *progress
	sum *Summary
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.p.p.Bytes += int64(n)
		c.sum.Bytes += int64(n)
		c.p.tick()
	}
	return n, err
}

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
// names with a ".." element are rejected, even when they would stay inside.
func cleanEntryName(name string) (string, error) {
	switch {
	case name == "":
		return "", &EntryError{name, fmt.Errorf("%w: empty name", ErrUnsafePath)}
	case strings.HasPrefix(name, "/"):
		return "", &EntryError{name, fmt.Errorf("%w: absolute path", ErrUnsafePath)}
	case strings.IndexByte(name, 0) >= 0:
		return "", &EntryError{name, fmt.Errorf("%w: NUL byte in name", ErrUnsafePath)}
	}
	for _, elem := range strings.Split(name, "/") {
		if elem == ".." {
			return "", &EntryError{name, fmt.Errorf("%w: \"..\" leads outside the destination", ErrUnsafePath)}
		}
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

// depth is the number of elements of a cleaned relative name ("" has 0).
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

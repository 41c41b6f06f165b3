package wsfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// DefaultMaxBytes bounds a document when Options.MaxBytes is 0: more than
// any valid document of desk's stores (a policy of 512 rules of 1 KiB
// patterns, every byte escaped, is about 3 MiB).
const DefaultMaxBytes = 16 << 20

// ErrBadName is wrapped by the error of a bad workspace name or document
// path when Options.Invalid is nil.
var ErrBadName = errors.New("bad name")

// tmpPrefix starts the name of a temporary file of Write; no document is
// called so, and List leaves them out.
const tmpPrefix = ".tmp-"

// Options configure a Store.
type Options struct {
	// Name names the store in errors ("policy store").
	Name string
	// Invalid is wrapped by the error of a bad workspace name or document
	// path (default ErrBadName), so that a caller's errors.Is test for its
	// own "invalid" error holds.
	Invalid error
	// MaxBytes bounds a document: Write refuses, and Read does not read,
	// one larger (syscall.EFBIG). Default DefaultMaxBytes.
	MaxBytes int64
}

// Store keeps documents per workspace below a directory: DIR/WS/REL.
type Store struct {
	dir string
	o   Options
}

// Open returns the Store of directory dir (nothing is made until something
// is written).
func Open(dir string, o Options) *Store {
	if o.Invalid == nil {
		o.Invalid = ErrBadName
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Name == "" {
		o.Name = "store"
	}
	return &Store{dir: dir, o: o}
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// WorkspaceDir returns the directory of workspace ws (DIR/WS), or an error
// wrapping Options.Invalid when ws is not a name a directory can have ("",
// ".", "..", or holding "/" or NUL).
func (s *Store) WorkspaceDir(ws string) (string, error) {
	if ws == "" || ws == "." || ws == ".." || strings.ContainsAny(ws, "/\x00") {
		return "", fmt.Errorf("%s: bad workspace name %q: %w", s.o.Name, ws, s.o.Invalid)
	}
	return filepath.Join(s.dir, ws), nil
}

// Path returns the file name of document rel of workspace ws. rel is a
// slash-separated relative path without "." or ".." elements (fs.ValidPath),
// none of whose elements starts as a temporary file's name.
func (s *Store) Path(ws, rel string) (string, error) {
	d, err := s.WorkspaceDir(ws)
	if err != nil {
		return "", err
	}
	if !fs.ValidPath(rel) || rel == "." || strings.HasPrefix(rel, tmpPrefix) || strings.Contains(rel, "/"+tmpPrefix) {
		return "", fmt.Errorf("%s: bad document name %q: %w", s.o.Name, rel, s.o.Invalid)
	}
	return filepath.Join(d, filepath.FromSlash(rel)), nil
}

// Version identifies a state of a file: its size, modification time and
// inode. A replaced document (Write renames a new file over it) has another
// inode, so a Version names one content as long as only Write changes it.
type Version struct {
	Size    int64
	ModTime int64 // nanoseconds since the epoch
	Ino     uint64
}

func versionOf(fi fs.FileInfo) Version {
	v := Version{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		v.Ino = st.Ino
	}
	return v
}

// Stat returns the Version of document (or directory) rel of ws; the error
// wraps fs.ErrNotExist when there is none.
func (s *Store) Stat(ws, rel string) (Version, error) {
	p, err := s.Path(ws, rel)
	if err != nil {
		return Version{}, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return Version{}, err
	}
	return versionOf(fi), nil
}

// Read returns document rel of ws and the Version of what it read (taken
// from the open file, so the two agree). The error wraps fs.ErrNotExist
// when there is none, and is an *fs.PathError with syscall.EFBIG when the
// file is larger than Options.MaxBytes (read no further than that) or
// syscall.EISDIR when it is not a regular file.
func (s *Store) Read(ws, rel string) ([]byte, Version, error) {
	p, err := s.Path(ws, rel)
	if err != nil {
		return nil, Version{}, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, Version{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Version{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	if fi.Size() > s.o.MaxBytes {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: syscall.EFBIG}
	}
	// The file may grow after the stat: read one byte past the bound at
	// most, to tell.
	b := make([]byte, 0, fi.Size()+1)
	b, err = readAll(io.LimitReader(f, s.o.MaxBytes+1), b)
	if err != nil {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	if int64(len(b)) > s.o.MaxBytes {
		return nil, Version{}, &fs.PathError{Op: "read", Path: p, Err: syscall.EFBIG}
	}
	return b, versionOf(fi), nil
}

// readAll appends r's bytes to b until EOF.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// Write replaces document rel of ws with data, atomically: a reader sees
// the old document or the new one, never a part, and a crash at any point
// leaves one of the two. Directories are made 0700, the file is 0600. The
// data goes to a temporary file of the same directory, is synced, renamed
// over the document, and the directory is synced. A temporary file a
// crashed writer left behind is removed by the next Write to its directory
// (a writer holds a lock on its own, so no live writer's is taken).
func (s *Store) Write(ws, rel string, data []byte) error {
	p, err := s.Path(ws, rel)
	if err != nil {
		return err
	}
	name := filepath.Base(p)
	if int64(len(data)) > s.o.MaxBytes {
		return fmt.Errorf("write %s: %d bytes, over the store's limit of %d: %w", name, len(data), s.o.MaxBytes, syscall.EFBIG)
	}
	if err := write(filepath.Dir(p), name, data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// testHookSynced, if set, runs when Write has written and synced its
// temporary file, before the rename: the crash test kills a writer there.
var testHookSynced func()

func write(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	removeStale(dir)
	f, err := createLocked(dir)
	if err != nil {
		return err
	}
	// The lock is held until after the rename (the file is closed last), so
	// removeStale cannot take the file from under a live writer.
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if err == nil && testHookSynced != nil {
		testHookSynced()
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return syncDir(dir)
}

// createLocked makes a temporary file in dir (0600) and takes an exclusive
// lock on it, which it holds until closed: removeStale leaves locked files
// alone. removeStale may take a file between its creation and the lock;
// the writer then finds its name gone and makes another.
func createLocked(dir string) (*os.File, error) {
	for range 8 {
		f, err := os.CreateTemp(dir, tmpPrefix+"*")
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		if same(f, f.Name()) {
			return f, nil
		}
		f.Close() // removed meanwhile: its name may be another's now
	}
	return nil, fmt.Errorf("make a temporary file in %s: removed under us repeatedly", dir)
}

// same reports whether name is still the file f.
func same(f *os.File, name string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(name)
	return err == nil && os.SameFile(a, b)
}

// removeStale removes the temporary files in dir that no writer holds (a
// crashed writer's). Errors are ignored: a file it cannot remove stays,
// which Read and List do not mind.
func removeStale(dir string) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), tmpPrefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil && same(f, p) {
			os.Remove(p)
		}
		f.Close()
	}
}

func syncDir(dir string) error {
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove removes document rel of ws; the error (os.Remove's) wraps
// fs.ErrNotExist when there is none.
func (s *Store) Remove(ws, rel string) error {
	p, err := s.Path(ws, rel)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

// List returns the names in directory rel of ws ("." for the workspace's
// own), in order, without temporary files; none when it does not exist.
func (s *Store) List(ws, rel string) ([]string, error) {
	var p string
	var err error
	if rel == "." {
		p, err = s.WorkspaceDir(ws)
	} else {
		p, err = s.Path(ws, rel)
	}
	if err != nil {
		return nil, err
	}
	es, err := os.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// RemoveWorkspace removes everything kept for ws.
func (s *Store) RemoveWorkspace(ws string) error {
	d, err := s.WorkspaceDir(ws)
	if err != nil {
		return err
	}
	return os.RemoveAll(d)
}

package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Store keeps each workspace's policy in a file of the data directory
// (DATA/policy/WS/policy.json, 0600 in 0700 directories, written to a
// temporary file and renamed), outside the workspace's store, as
// egress.Store keeps the egress policy: no execution, file read or export
// reaches it. desk serve's front writes it (the admin's API), its workers
// read it for each call.
//
// Policy keeps what it read (compiled) while the file's size, modification
// time and inode stay the same: a call costs one stat.
type Store struct {
	dir   string
	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	size  int64
	mtime time.Time
	ino   uint64
	p     Policy
}

// OpenStore returns the Store of the data directory dataDir (nothing is
// made until something is written).
func OpenStore(dataDir string) *Store {
	return &Store{dir: filepath.Join(dataDir, "policy"), cache: map[string]cached{}}
}

func (s *Store) wsDir(ws string) (string, error) {
	if ws == "" || ws == "." || ws == ".." || strings.ContainsAny(ws, "/\x00") {
		return "", fmt.Errorf("policy store: bad workspace name %q: %w", ws, ErrInvalid)
	}
	return filepath.Join(s.dir, ws), nil
}

// Policy returns the workspace's policy (the zero Policy, restricting
// nothing, when it has none).
func (s *Store) Policy(ws string) (Policy, error) {
	var p Policy
	d, err := s.wsDir(ws)
	if err != nil {
		return p, err
	}
	name := filepath.Join(d, "policy.json")
	fi, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = st.Ino
	}
	s.mu.Lock()
	c, ok := s.cache[ws]
	s.mu.Unlock()
	if ok && c.size == fi.Size() && c.mtime.Equal(fi.ModTime()) && c.ino == ino {
		return c.p, nil
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	s.mu.Lock()
	if len(s.cache) >= 1024 {
		clear(s.cache)
	}
	s.cache[ws] = cached{size: fi.Size(), mtime: fi.ModTime(), ino: ino, p: p}
	s.mu.Unlock()
	return p, nil
}

// SetPolicy stores the workspace's policy (validated); a zero policy
// removes the file.
func (s *Store) SetPolicy(ws string, p Policy) error {
	p, err := p.Validate()
	if err != nil {
		return err
	}
	if p.IsZero() {
		return s.DeletePolicy(ws)
	}
	d, err := s.wsDir(ws)
	if err != nil {
		return err
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("write policy of %s: %w", ws, err)
	}
	return writeFile(d, "policy.json", b)
}

// DeletePolicy removes the workspace's policy.
func (s *Store) DeletePolicy(ws string) error {
	d, err := s.wsDir(ws)
	if err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(d, "policy.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete policy of %s: %w", ws, err)
	}
	return nil
}

// RemoveWorkspace removes everything kept for the workspace.
func (s *Store) RemoveWorkspace(ws string) error {
	d, err := s.wsDir(ws)
	if err != nil {
		return err
	}
	return os.RemoveAll(d)
}

// writeFile writes name in dir (made 0700) as 0600, through a temporary
// file renamed over it, and syncs the directory.
func writeFile(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer os.Remove(f.Name())
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	dd, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer dd.Close()
	return dd.Sync()
}

package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"

	"github.com/desk-dev/desk/internal/wsfile"
)

// Store keeps each workspace's policy in a file of the data directory
// (DATA/policy/WS/policy.json, 0600 in 0700 directories, replaced
// atomically: package wsfile), outside the workspace's store, as
// egress.Store keeps the egress policy: no execution, file read or export
// reaches it. desk serve's front writes it (the admin's API), its workers
// read it for each call.
//
// Policy keeps what it read (compiled) while the file's size, modification
// time and inode stay the same: a call costs one stat.
type Store struct {
	files *wsfile.Store
	mu    sync.Mutex
	cache map[string]cached
}

// policyFile is the document a workspace's policy is kept in.
const policyFile = "policy.json"

type cached struct {
	v wsfile.Version
	p Policy
}

// OpenStore returns the Store of the data directory dataDir (nothing is
// made until something is written).
func OpenStore(dataDir string) *Store {
	files := wsfile.Open(filepath.Join(dataDir, "policy"), wsfile.Options{Name: "policy store", Invalid: ErrInvalid})
	return &Store{files: files, cache: map[string]cached{}}
}

// Policy returns the workspace's policy (the zero Policy, restricting
// nothing, when it has none).
func (s *Store) Policy(ws string) (Policy, error) {
	var p Policy
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return p, err
	}
	v, err := s.files.Stat(ws, policyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	s.mu.Lock()
	c, ok := s.cache[ws]
	s.mu.Unlock()
	if ok && c.v == v {
		return c.p, nil
	}
	b, v, err := s.files.Read(ws, policyFile)
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
	s.cache[ws] = cached{v: v, p: p}
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
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("write policy of %s: %w", ws, err)
	}
	return s.files.Write(ws, policyFile, b)
}

// DeletePolicy removes the workspace's policy.
func (s *Store) DeletePolicy(ws string) error {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return err
	}
	if err := s.files.Remove(ws, policyFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete policy of %s: %w", ws, err)
	}
	return nil
}

// RemoveWorkspace removes everything kept for the workspace.
func (s *Store) RemoveWorkspace(ws string) error { return s.files.RemoveWorkspace(ws) }

package egress

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/desk-dev/desk/internal/wsfile"
)

// Limits of the Store.
const (
	MaxSecrets          = 64       // per workspace
	MaxSecretValueBytes = 16 << 10 // a secret's value
	MaxSecretHosts      = 16
)

// ErrNotFound: no such policy or secret.
var ErrNotFound = errors.New("not found")

// secretName is what a secret may be called: an environment variable name.
var secretName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// Store keeps each workspace's policy and secrets in files below a
// directory of the data directory (DATA/egress/WS/: policy.json and
// secrets/NAME.json), outside the workspace's store, so that no execution,
// file read or export reaches them. Directories are 0700 and files 0600,
// replaced atomically (package wsfile). The server's front writes (the
// admin's API), the workers read; nothing else opens them.
type Store struct {
	dir   string // DATA/egress
	files *wsfile.Store
}

// The documents of a workspace.
const (
	policyFile = "policy.json"
	secretsDir = "secrets"
	caFile     = "ca.pem"
)

// OpenStore returns the Store of the data directory dataDir (nothing is
// made until something is written).
func OpenStore(dataDir string) *Store {
	dir := filepath.Join(dataDir, "egress")
	return &Store{dir: dir, files: wsfile.Open(dir, wsfile.Options{Name: "egress store", Invalid: ErrInvalid})}
}

func secretFile(name string) string { return secretsDir + "/" + name + ".json" }

// Policy returns the workspace's own policy; ok is false when it has none
// (the server's default applies).
func (s *Store) Policy(ws string) (p Policy, ok bool, err error) {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return p, false, err
	}
	b, _, err := s.files.Read(ws, policyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, false, fmt.Errorf("read policy of %s: %w", ws, err)
	}
	p, err = p.Validate()
	return p, err == nil, err
}

// SetPolicy stores the workspace's policy (validated).
func (s *Store) SetPolicy(ws string, p Policy) error {
	p, err := p.Validate()
	if err != nil {
		return err
	}
	b, _ := json.Marshal(p)
	return s.files.Write(ws, policyFile, b)
}

// DeletePolicy removes the workspace's own policy (the server's default
// applies again).
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

// SecretInfo describes a stored secret: never its value.
type SecretInfo struct {
	Name string `json:"name"`
	// Hosts are where its value may go (rule hosts: a name, *.domain or an
	// address).
	Hosts []string `json:"hosts"`
	// Placeholder is what executions see in the environment variable Name.
	Placeholder string `json:"placeholder"`
}

type storedSecret struct {
	SecretInfo
	Value string `json:"value"`
}

// SetSecret stores (or replaces) a secret bound to hosts. The placeholder
// is new each time.
func (s *Store) SetSecret(ws, name, value string, hosts []string) (SecretInfo, error) {
	var info SecretInfo
	if !secretName.MatchString(name) {
		return info, fmt.Errorf("set secret %q: want an environment variable name (letters, digits, _; at most 64): %w", name, ErrInvalid)
	}
	if len(value) == 0 || len(value) > MaxSecretValueBytes || strings.ContainsAny(value, "\x00\r\n") {
		return info, fmt.Errorf("set secret %s: the value must be 1 to %d bytes without NUL or line breaks: %w", name, MaxSecretValueBytes, ErrInvalid)
	}
	if len(hosts) == 0 || len(hosts) > MaxSecretHosts {
		return info, fmt.Errorf("set secret %s: give 1 to %d hosts it may be sent to: %w", name, MaxSecretHosts, ErrInvalid)
	}
	for i, h := range hosts {
		r, err := (Rule{Host: h}).normalize()
		if err != nil {
			return info, fmt.Errorf("set secret %s: %w", name, err)
		}
		hosts[i] = r.Host
	}
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return info, err
	}
	names, err := s.secretNames(ws)
	if err != nil {
		return info, err
	}
	if !slices.Contains(names, name) && len(names) >= MaxSecrets {
		return info, fmt.Errorf("set secret %s: the workspace has %d secrets, the limit: %w", name, len(names), ErrInvalid)
	}
	var b [12]byte
	rand.Read(b[:])
	info = SecretInfo{Name: name, Hosts: hosts, Placeholder: "desk-secret-" + name + "-" + hex.EncodeToString(b[:])}
	data, _ := json.Marshal(storedSecret{SecretInfo: info, Value: value})
	if err := s.files.Write(ws, secretFile(name), data); err != nil {
		return SecretInfo{}, err
	}
	return info, nil
}

// DeleteSecret removes a secret.
func (s *Store) DeleteSecret(ws, name string) error {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return err
	}
	if !secretName.MatchString(name) {
		return fmt.Errorf("delete secret %q: %w", name, ErrNotFound)
	}
	err := s.files.Remove(ws, secretFile(name))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("delete secret %s: %w", name, ErrNotFound)
	}
	return err
}

func (s *Store) secretNames(ws string) ([]string, error) {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return nil, err
	}
	es, err := s.files.List(ws, secretsDir)
	if err != nil {
		return nil, fmt.Errorf("list secrets of %s: %w", ws, err)
	}
	var out []string
	for _, e := range es {
		if n, ok := strings.CutSuffix(e, ".json"); ok && secretName.MatchString(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// Secrets lists the workspace's secrets (never their values).
func (s *Store) Secrets(ws string) ([]SecretInfo, error) {
	all, err := s.secrets(ws)
	out := make([]SecretInfo, len(all))
	for i, x := range all {
		out[i] = x.SecretInfo
	}
	return out, err
}

func (s *Store) secrets(ws string) ([]storedSecret, error) {
	names, err := s.secretNames(ws)
	if err != nil {
		return nil, err
	}
	var out []storedSecret
	for _, n := range names {
		b, _, err := s.files.Read(ws, secretFile(n))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("read secret %s of %s: %w", n, ws, err)
		}
		var x storedSecret
		if err := json.Unmarshal(b, &x); err != nil {
			return nil, fmt.Errorf("read secret %s of %s: malformed", n, ws)
		}
		out = append(out, x)
	}
	return out, nil
}

// Bound returns the workspace's secrets for a Client (WithSecrets), with
// the environment an execution gets: NAME=placeholder for each.
func (s *Store) Bound(ws string) ([]Secret, map[string]string, error) {
	all, err := s.secrets(ws)
	if err != nil {
		return nil, nil, err
	}
	var out []Secret
	env := map[string]string{}
	for _, x := range all {
		sec := Secret{Name: x.Name, Placeholder: x.Placeholder, Value: x.Value}
		for _, h := range x.Hosts {
			sec.Hosts = append(sec.Hosts, Rule{Host: h})
		}
		out = append(out, sec)
		env[x.Name] = x.Placeholder
	}
	return out, env, nil
}

// CA returns the workspace's CA (DATA/egress/WS/ca.pem, 0600: certificate
// and key), made on first use. Only one process at a time may call it for a
// workspace (its worker).
func (s *Store) CA(ws string) (*CA, error) {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return nil, err
	}
	b, _, err := s.files.Read(ws, caFile)
	if err == nil {
		return ParseCA(b)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read CA of %s: %w", ws, err)
	}
	ca, data, err := NewCA(ws)
	if err != nil {
		return nil, err
	}
	if err := s.files.Write(ws, caFile, data); err != nil {
		return nil, err
	}
	return ca, nil
}

// SecretsStamp identifies the state of the workspace's secrets (the
// modification time of their directory, which every set and delete
// changes; 0 when it has none), so that a cache of Bound can tell when to
// read them again.
func (s *Store) SecretsStamp(ws string) (int64, error) {
	if _, err := s.files.WorkspaceDir(ws); err != nil {
		return 0, err
	}
	v, err := s.files.Stat(ws, secretsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return v.ModTime, nil
}

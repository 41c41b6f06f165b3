package auth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/desk-dev/desk/internal/egress"
	"github.com/desk-dev/desk/internal/policy"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Files in the data directory.
const (
	// AdminTokenFile holds the generated admin token (mode 0600).
	AdminTokenFile = "admin.token"
	// StoreFile is the SQLite database holding the workspace tokens (see storage.go).
	StoreFile = "host.db"
	// DefaultMaxTokens bounds the stored token records (see Options.MaxTokens).
	DefaultMaxTokens = 10_000
	// TokenPrefix starts every workspace token.
	TokenPrefix = "desk_"
)

// Errors. Test with errors.Is.
var (
	// ErrUnauthorized: no token, a malformed, unknown or revoked one (HTTP 401).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: the token is valid but not for this workspace, scope or
	// backend (HTTP 403).
	ErrForbidden = errors.New("forbidden")
	// ErrNotFound: no token has that id (HTTP 404).
	ErrNotFound = errors.New("no such token")
	// ErrInvalid: a bad mint request (HTTP 400).
	ErrInvalid = errors.New("invalid token request")
	// ErrTooMany: Options.MaxTokens tokens are stored and none is revoked (HTTP 409).
	ErrTooMany = errors.New("too many tokens")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("token store is closed")
)

// Scope is a permission a workspace token carries.
type Scope string

// Scopes. They are independent: write does not imply read.
const (
	ScopeRead  Scope = "read"  // read files, list and follow changes, read execution records and events
	ScopeWrite Scope = "write" // change files
	ScopeExec  Scope = "exec"  // start, kill and dispose executions (on the token's backends)
	// ScopeApprove: list, approve and deny the workspace's calls pending
	// approval (package policy). A token never approves its own calls.
	ScopeApprove Scope = "approve"
)

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool {
	return s == ScopeRead || s == ScopeWrite || s == ScopeExec || s == ScopeApprove
}

// Token is a workspace token as stored (without its secret).
type Token struct {
	ID        string   `json:"id"`
	Workspace string   `json:"workspace"`
	Scopes    []Scope  `json:"scopes"`
	Backends  []string `json:"backends,omitempty"` // exec backends allowed; empty: all
	// Egress, if set, narrows the workspace's egress policy for the
	// executions the token starts (package egress: a layer after the
	// workspace's, which can only narrow).
	Egress *egress.Policy `json:"egress,omitempty"`
	// Policy, if set, narrows the workspace's path and command rules for
	// the token's calls (package policy: a layer after the workspace's).
	Policy    *policy.Policy `json:"policy,omitempty"`
	Created   time.Time      `json:"created"`
	Revoked   bool           `json:"revoked,omitempty"`
	RevokedAt time.Time      `json:"revoked_at,omitzero"`
	// Digest is the hex SHA-256 of the secret.
	Digest string `json:"sha256"`
}

// Has reports whether the token carries scope sc.
func (t *Token) Has(sc Scope) bool { return slices.Contains(t.Scopes, sc) }

// Principal is who made a request: the admin, or the holder of a token.
type Principal struct {
	Admin bool
	Token *Token // nil for the admin
}

// ID names the principal for logs: "admin" or the token id.
func (p Principal) ID() string {
	if p.Admin {
		return "admin"
	}
	if p.Token == nil {
		return ""
	}
	return p.Token.ID
}

// Allow checks that the principal may act on workspace ws with scope sc; the
// admin may do anything. The error wraps ErrForbidden and says what is missing.
func (p Principal) Allow(ws string, sc Scope) error {
	if p.Admin {
		return nil
	}
	if p.Token == nil {
		return fmt.Errorf("check access: %w: no token", ErrUnauthorized)
	}
	if p.Token.Workspace != ws {
		return fmt.Errorf("check access: %w: token %s is for workspace %q, not %q", ErrForbidden, p.Token.ID, p.Token.Workspace, ws)
	}
	if !p.Token.Has(sc) {
		return fmt.Errorf("check access: %w: token %s lacks the %q scope", ErrForbidden, p.Token.ID, sc)
	}
	return nil
}

// AllowBackend checks that the principal may run executions on backend b.
func (p Principal) AllowBackend(b string) error {
	if p.Admin || p.Token == nil || len(p.Token.Backends) == 0 || slices.Contains(p.Token.Backends, b) {
		return nil
	}
	return fmt.Errorf("check access: %w: token %s may not use backend %q (allowed: %s)",
		ErrForbidden, p.Token.ID, b, strings.Join(p.Token.Backends, ", "))
}

// Options configure a Store. The zero value gives the documented defaults.
type Options struct {
	// AdminToken, if set, is the admin token (at least 16 bytes); admin.token
	// is then neither read nor written.
	AdminToken string
	// MaxTokens bounds the stored token records. Default DefaultMaxTokens.
	MaxTokens int
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// MintOptions describe a token to mint.
type MintOptions struct {
	Workspace string
	Scopes    []Scope
	Backends  []string       // empty: every backend
	Egress    *egress.Policy // nil: the workspace's policy as is
	Policy    *policy.Policy // nil: the workspace's path and command rules as is
}

// Store holds the admin token and the workspace tokens of one data directory.
// It is safe for concurrent use.
type Store struct {
	opts      Options
	adminSum  [sha256.Size]byte
	admin     string
	generated bool
	db        *tokenDB

	mu     sync.RWMutex
	tokens map[string]*Token
	closed bool
}

// Open opens the token store of dataDir (creating dataDir with mode 0700 and
// the store if needed) and loads or generates the admin token.
func Open(ctx context.Context, dataDir string, opts Options) (*Store, error) {
	if opts.MaxTokens < 0 {
		return nil, fmt.Errorf("open token store: %w: negative MaxTokens", ErrInvalid)
	}
	if opts.MaxTokens == 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open token store: %w", err)
	}
	s := &Store{opts: opts, tokens: map[string]*Token{}}
	switch {
	case opts.AdminToken != "":
		if len(opts.AdminToken) < 16 {
			return nil, fmt.Errorf("open token store: %w: the admin token must be at least 16 bytes", ErrInvalid)
		}
		s.admin = opts.AdminToken
	default:
		tok, gen, err := loadAdmin(filepath.Join(dataDir, AdminTokenFile))
		if err != nil {
			return nil, fmt.Errorf("open token store: %w", err)
		}
		s.admin, s.generated = tok, gen
	}
	s.adminSum = sha256.Sum256([]byte(s.admin))
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open token store: %w", err)
	}
	db, err := openTokenDB(filepath.Join(dataDir, StoreFile))
	if err != nil {
		return nil, fmt.Errorf("open token store: %w", err)
	}
	err = db.load(func(id string, val []byte) error {
		var t Token
		if err := json.Unmarshal(val, &t); err != nil || t.ID != id {
			return fmt.Errorf("token record %q is corrupt", id)
		}
		s.tokens[t.ID] = &t
		return nil
	})
	if err != nil {
		db.close()
		return nil, fmt.Errorf("open token store: %w", err)
	}
	s.db = db
	return s, nil
}

// loadAdmin reads the admin token file, or creates it with a new token.
func loadAdmin(path string) (tok string, generated bool, err error) {
	b, err := os.ReadFile(path)
	if err == nil {
		tok = strings.TrimSpace(string(b))
		if len(tok) < 16 {
			return "", false, fmt.Errorf("read admin token: %s holds no token (delete it to generate a new one)", path)
		}
		return tok, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", false, fmt.Errorf("read admin token: %w", err)
	}
	tok = randomString(32)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", false, fmt.Errorf("write admin token: %w", err)
	}
	_, err = f.WriteString(tok + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", false, fmt.Errorf("write admin token: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return tok, true, nil
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// AdminToken returns the admin token.
func (s *Store) AdminToken() string { return s.admin }

// Generated reports whether Open generated the admin token just now (the
// caller should print it once).
func (s *Store) Generated() bool { return s.generated }

// Close closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if err := s.db.close(); err != nil {
		return fmt.Errorf("close token store: %w", err)
	}
	return nil
}

// Authenticate returns the principal a bearer token stands for, or an error
// wrapping ErrUnauthorized.
func (s *Store) Authenticate(token string) (Principal, error) {
	if token == "" {
		return Principal{}, fmt.Errorf("authenticate: %w: no token (send Authorization: Bearer <token>)", ErrUnauthorized)
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], s.adminSum[:]) == 1 {
		return Principal{Admin: true}, nil
	}
	id, secret, ok := parseToken(token)
	if !ok {
		return Principal{}, fmt.Errorf("authenticate: %w: malformed token", ErrUnauthorized)
	}
	s.mu.RLock()
	t, found := s.tokens[id]
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return Principal{}, fmt.Errorf("authenticate: %w", ErrClosed)
	}
	want := make([]byte, sha256.Size)
	if found {
		if d, err := hex.DecodeString(t.Digest); err == nil && len(d) == sha256.Size {
			want = d
		}
	}
	got := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(got[:], want) != 1 || !found {
		return Principal{}, fmt.Errorf("authenticate: %w: unknown token", ErrUnauthorized)
	}
	if t.Revoked {
		return Principal{}, fmt.Errorf("authenticate: %w: token %s was revoked", ErrUnauthorized, id)
	}
	c := *t
	return Principal{Token: &c}, nil
}

// parseToken splits "desk_<id>_<secret>".
func parseToken(tok string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(tok, TokenPrefix)
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 16 || secret == "" {
		return "", "", false
	}
	if _, err := hex.DecodeString(id); err != nil {
		return "", "", false
	}
	return id, secret, true
}

// Mint creates a workspace token and returns it with its secret, the full
// token string to send as a bearer token. The secret is not kept: this is the
// only time it is seen. Mint does not check that the workspace exists.
func (s *Store) Mint(ctx context.Context, o MintOptions) (Token, string, error) {
	if o.Workspace == "" {
		return Token{}, "", fmt.Errorf("mint token: %w: no workspace", ErrInvalid)
	}
	if len(o.Scopes) == 0 {
		return Token{}, "", fmt.Errorf("mint token: %w: no scopes (give some of read, write, exec, approve)", ErrInvalid)
	}
	scopes := slices.Clone(o.Scopes)
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	for _, sc := range scopes {
		if !sc.Valid() {
			return Token{}, "", fmt.Errorf("mint token: %w: unknown scope %q (want read, write, exec or approve)", ErrInvalid, sc)
		}
	}
	backends := slices.Clone(o.Backends)
	slices.Sort(backends)
	backends = slices.Compact(backends)
	for _, b := range backends {
		if b == "" || len(b) > 64 || strings.ContainsAny(b, " /\x00") {
			return Token{}, "", fmt.Errorf("mint token: %w: bad backend id %q", ErrInvalid, b)
		}
	}
	idb := make([]byte, 8)
	rand.Read(idb)
	id := hex.EncodeToString(idb)
	secret := randomString(32)
	sum := sha256.Sum256([]byte(secret))
	if o.Egress != nil {
		p, err := o.Egress.Validate()
		if err != nil {
			return Token{}, "", fmt.Errorf("mint token: %w: %w", ErrInvalid, err)
		}
		o.Egress = &p
	}
	if o.Policy != nil {
		p, err := o.Policy.Validate()
		if err != nil {
			return Token{}, "", fmt.Errorf("mint token: %w: %w", ErrInvalid, err)
		}
		if p.IsZero() {
			o.Policy = nil
		} else {
			o.Policy = &p
		}
	}
	t := &Token{
		ID: id, Workspace: o.Workspace, Scopes: scopes, Backends: backends, Egress: o.Egress, Policy: o.Policy,
		Created: s.opts.Now().UTC(), Digest: hex.EncodeToString(sum[:]),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Token{}, "", fmt.Errorf("mint token: %w", ErrClosed)
	}
	var drop []string
	if over := len(s.tokens) + 1 - s.opts.MaxTokens; over > 0 {
		var revoked []*Token
		for _, t := range s.tokens {
			if t.Revoked {
				revoked = append(revoked, t)
			}
		}
		if len(revoked) < over {
			return Token{}, "", fmt.Errorf("mint token: %w: %d tokens are active (revoke some)", ErrTooMany, len(s.tokens)-len(revoked))
		}
		slices.SortFunc(revoked, func(a, b *Token) int { return a.RevokedAt.Compare(b.RevokedAt) })
		for _, r := range revoked[:over] {
			drop = append(drop, r.ID)
		}
	}
	val, err := json.Marshal(t)
	if err != nil {
		return Token{}, "", fmt.Errorf("mint token: %w", err)
	}
	if err := s.db.put(ctx, id, val, drop...); err != nil {
		return Token{}, "", fmt.Errorf("mint token: %w", err)
	}
	for _, id := range drop {
		delete(s.tokens, id)
	}
	s.tokens[id] = t
	return *t, TokenPrefix + id + "_" + secret, nil
}

// Revoke revokes the token id; it stops working at once. Revoking a revoked
// token does nothing.
func (s *Store) Revoke(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("revoke token: %w", ErrClosed)
	}
	t, ok := s.tokens[id]
	if !ok {
		return fmt.Errorf("revoke token %q: %w", id, ErrNotFound)
	}
	if t.Revoked {
		return nil
	}
	return s.revokeLocked(ctx, t)
}

func (s *Store) revokeLocked(ctx context.Context, t *Token) error {
	c := *t
	c.Revoked, c.RevokedAt = true, s.opts.Now().UTC()
	val, err := json.Marshal(&c)
	if err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	if err := s.db.put(ctx, c.ID, val); err != nil {
		return fmt.Errorf("revoke token: %w", err)
	}
	*t = c
	return nil
}

// RevokeWorkspace revokes every active token of workspace ws (when it is
// deleted, so that a new workspace of the same name does not inherit them)
// and returns how many it revoked.
func (s *Store) RevokeWorkspace(ctx context.Context, ws string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, fmt.Errorf("revoke tokens: %w", ErrClosed)
	}
	n := 0
	for _, t := range s.tokens {
		if t.Workspace == ws && !t.Revoked {
			if err := s.revokeLocked(ctx, t); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// DeleteWorkspace removes every token of workspace ws, active or revoked,
// from the store (when the workspace is deleted: nothing of it remains; a
// deleted token's secret is then unknown, not revoked). It returns how many
// it removed.
func (s *Store) DeleteWorkspace(ctx context.Context, ws string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, fmt.Errorf("delete tokens: %w", ErrClosed)
	}
	var ids []string
	for id, t := range s.tokens {
		if t.Workspace == ws {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	if err := s.db.remove(ctx, ids); err != nil {
		return 0, fmt.Errorf("delete tokens of %s: %w", ws, err)
	}
	for _, id := range ids {
		delete(s.tokens, id)
	}
	return len(ids), nil
}

// Get returns the token id.
func (s *Store) Get(id string) (Token, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tokens[id]
	if !ok {
		return Token{}, fmt.Errorf("get token %q: %w", id, ErrNotFound)
	}
	return *t, nil
}

// List returns up to limit tokens whose ids sort after after, in id order
// (limit <= 0: all of them).
func (s *Store) List(after string, limit int) []Token {
	s.mu.RLock()
	out := make([]Token, 0, len(s.tokens))
	for _, t := range s.tokens {
		if t.ID > after {
			out = append(out, *t)
		}
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b Token) int { return cmp.Compare(a.ID, b.ID) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

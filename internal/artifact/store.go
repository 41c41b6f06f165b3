package artifact

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/desk-dev/desk/internal/sqlite"
)

// Defaults and fixed bounds.
const (
	DefaultTTL = 24 * time.Hour      // a token's life when none is asked
	MaxTTL     = 30 * 24 * time.Hour // the longest life of a token

	MaxArtifacts = 100 // published repositories per workspace
	MaxTokens    = 100 // tokens per artifact, ended ones included (the oldest ended are forgotten first)

	// TokenPrefix starts every artifact token, so that a leaked one is
	// recognisable (secret scanners, logs).
	TokenPrefix = "deskgit_"
	// TokenBytes is the randomness of a token: 192 bits.
	TokenBytes = 24
)

// Scopes of a token.
const (
	ScopeRead  = "read"  // clone and fetch
	ScopeWrite = "write" // clone, fetch and push
)

// Token states (Token.State).
const (
	StateActive  = "active"
	StateExpired = "expired"
	StateRevoked = "revoked"
)

// Errors. Each is wrapped with what was asked.
var (
	// ErrNotFound: no such artifact (in that workspace) or token id.
	ErrNotFound = errors.New("no such artifact")
	// ErrExists: the workspace has an artifact of that name.
	ErrExists = errors.New("artifact exists")
	// ErrInvalid: a bad name, path, scope or life.
	ErrInvalid = errors.New("invalid artifact request")
	// ErrTooMany: the workspace has MaxArtifacts artifacts, or the
	// artifact MaxTokens live tokens.
	ErrTooMany = errors.New("too many artifacts or tokens")
	// ErrUnauthorized: no token, or one the store does not know for the
	// artifact, or one that expired or was revoked.
	ErrUnauthorized = errors.New("artifact token refused")
	// ErrForbidden: a read token used to push.
	ErrForbidden = errors.New("artifact token not allowed")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("artifact store closed")
)

// Options configure a Store.
type Options struct {
	// Dir holds the index (index.db). Required. desk serve uses
	// DATA/artifacts, shared by its front and its workers.
	Dir string
	// Now is the clock. Default time.Now.
	Now func() time.Time
}

// Artifact is a published repository: a workspace's git repository served
// at /git/{ws}/{name}.git.
type Artifact struct {
	Workspace string
	Name      string
	// Path is the repository's absolute workspace path: a work tree with
	// .git in it, or a bare repository.
	Path    string
	Created time.Time
}

// Token is an artifact token's record (never its secret).
type Token struct {
	ID        string // 16 hex digits: names the token in lists and revocations
	Workspace string
	Artifact  string
	Scope     string // ScopeRead or ScopeWrite
	Created   time.Time
	Expires   time.Time
	Revoked   time.Time // zero: not revoked
}

// State is the token's state at now.
func (t Token) State(now time.Time) string {
	switch {
	case !t.Revoked.IsZero():
		return StateRevoked
	case !now.Before(t.Expires):
		return StateExpired
	}
	return StateActive
}

// Minted is what Mint returns: the token's record and its secret, shown
// only here (the store keeps its SHA-256).
type Minted struct {
	Token
	Secret string
}

// The index: two tables in DIR/index.db, marked with their own
// application id.
const (
	indexAppID   = 0x64736b61 // "dska"
	indexSchemaV = 1
	indexSchema  = `CREATE TABLE IF NOT EXISTS artifacts (
	workspace TEXT NOT NULL,
	name      TEXT NOT NULL,
	path      TEXT NOT NULL,
	created   INTEGER NOT NULL, -- Unix nanoseconds
	PRIMARY KEY (workspace, name)
) STRICT;
CREATE TABLE IF NOT EXISTS tokens (
	id        TEXT PRIMARY KEY,     -- 16 hex digits
	digest    BLOB NOT NULL UNIQUE, -- SHA-256 of the secret
	workspace TEXT NOT NULL,
	artifact  TEXT NOT NULL,
	scope     TEXT NOT NULL,
	created   INTEGER NOT NULL,
	expires   INTEGER NOT NULL,
	revoked   INTEGER               -- NULL: not revoked
) STRICT;
CREATE INDEX IF NOT EXISTS tokens_artifact ON tokens(workspace, artifact);`
)

// Store is the artifact index of a data directory: the published
// repositories and their tokens. Several processes may open the same Dir
// at once (desk serve's front and its workers do): the index is SQLite in
// WAL mode and every change is one BEGIN IMMEDIATE transaction. It is safe
// for concurrent use.
type Store struct {
	o  Options
	mu sync.Mutex // serialises use of c
	c  *sqlite.Conn
}

// Open opens (creating if needed) the store in o.Dir.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Dir == "" {
		return nil, errors.New("open artifact store: no directory")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open artifact store: %w", err)
	}
	p := filepath.Join(o.Dir, "index.db")
	c, err := sqlite.Open(p, false)
	if err != nil {
		return nil, fmt.Errorf("open artifact store: %w", err)
	}
	s := &Store{o: o, c: c}
	if err := s.init(); err != nil {
		c.Close()
		return nil, fmt.Errorf("open artifact store: %s: %w", p, err)
	}
	return s, nil
}

func (s *Store) init() error {
	c := s.c
	if err := c.Exec("PRAGMA busy_timeout=10000; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL"); err != nil {
		return err
	}
	return c.Claim(sqlite.Schema{AppID: indexAppID, Version: indexSchemaV, SQL: indexSchema, What: "artifact index"})
}

// tx runs fn in a write transaction (s.mu held or not yet shared).
func (s *Store) tx(fn func() error) error { return s.c.Tx(fn) }

// write runs fn in one write transaction; read runs fn alone on the
// connection (a read sees every commit, whichever process made it).
func (s *Store) write(fn func(c *sqlite.Conn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return ErrClosed
	}
	return s.tx(func() error { return fn(s.c) })
}

func (s *Store) read(fn func(c *sqlite.Conn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return ErrClosed
	}
	return fn(s.c)
}

// Close closes the index.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		return nil
	}
	err := s.c.Close()
	s.c = nil
	return err
}

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.o.Now() }

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidateName checks an artifact name: 1 to 63 of a-z, 0-9, '.', '_',
// '-', starting with a letter or digit, not ending in ".git" (the URL
// adds it).
func ValidateName(name string) error {
	if !nameRE.MatchString(name) || strings.HasSuffix(name, ".git") || strings.Contains(name, "..") {
		return fmt.Errorf("%w: name %q: want 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or digit, without \"..\" and not ending in .git", ErrInvalid, name)
	}
	return nil
}

// CheckPath returns the clean absolute workspace path p names ("":
// /workspace), or ErrInvalid.
func CheckPath(p string) (string, error) {
	if p == "" {
		return "/workspace", nil
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: path contains NUL", ErrInvalid)
	}
	if !path.IsAbs(p) {
		p = "/workspace/" + p
	}
	return path.Clean(p), nil
}

// Create records artifact name of ws for the repository at p (absolute;
// the caller checked it is a repository).
func (s *Store) Create(ctx context.Context, ws, name, p string) (Artifact, error) {
	if err := ValidateName(name); err != nil {
		return Artifact{}, err
	}
	if !path.IsAbs(p) {
		return Artifact{}, fmt.Errorf("%w: path %q is not absolute", ErrInvalid, p)
	}
	a := Artifact{Workspace: ws, Name: name, Path: path.Clean(p), Created: s.o.Now()}
	err := s.write(func(c *sqlite.Conn) error {
		var n int64
		exists := false
		if err := c.Query("SELECT count(*), count(CASE WHEN name = ? THEN 1 END) FROM artifacts WHERE workspace = ?", []any{name, ws},
			func(st *sqlite.Stmt) { n, exists = st.Int64(0), st.Int64(1) > 0 }); err != nil {
			return err
		}
		switch {
		case exists:
			return fmt.Errorf("%w: %s in workspace %s (desk artifact rm deletes it)", ErrExists, name, ws)
		case n >= MaxArtifacts:
			return fmt.Errorf("%w: the workspace has %d artifacts, the limit", ErrTooMany, n)
		}
		st, err := c.Prep("INSERT INTO artifacts(workspace, name, path, created) VALUES (?, ?, ?, ?)")
		if err != nil {
			return err
		}
		return st.Exec(ws, name, a.Path, a.Created.UnixNano())
	})
	if err != nil {
		return Artifact{}, fmt.Errorf("create artifact %s: %w", name, err)
	}
	return a, nil
}

func getArtifact(c *sqlite.Conn, ws, name string) (Artifact, error) {
	var a Artifact
	found := false
	err := c.Query("SELECT path, created FROM artifacts WHERE workspace = ? AND name = ?", []any{ws, name}, func(st *sqlite.Stmt) {
		a = Artifact{Workspace: ws, Name: name, Path: st.Text(0), Created: time.Unix(0, st.Int64(1))}
		found = true
	})
	if err != nil {
		return Artifact{}, err
	}
	if !found {
		return Artifact{}, fmt.Errorf("%w: %s in workspace %s", ErrNotFound, name, ws)
	}
	return a, nil
}

// Get returns artifact name of ws.
func (s *Store) Get(ctx context.Context, ws, name string) (Artifact, error) {
	var a Artifact
	err := s.read(func(c *sqlite.Conn) (err error) { a, err = getArtifact(c, ws, name); return err })
	return a, err
}

// List returns the artifacts of ws by name.
func (s *Store) List(ctx context.Context, ws string) ([]Artifact, error) {
	var out []Artifact
	err := s.read(func(c *sqlite.Conn) error {
		return c.Query("SELECT name, path, created FROM artifacts WHERE workspace = ? ORDER BY name", []any{ws}, func(st *sqlite.Stmt) {
			out = append(out, Artifact{Workspace: ws, Name: st.Text(0), Path: st.Text(1), Created: time.Unix(0, st.Int64(2))})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list artifacts: %w", err)
	}
	return out, nil
}

// Delete removes artifact name of ws and all its tokens: its URL stops
// working at once. The repository itself is not touched.
func (s *Store) Delete(ctx context.Context, ws, name string) error {
	err := s.write(func(c *sqlite.Conn) error {
		if _, err := getArtifact(c, ws, name); err != nil {
			return err
		}
		for _, q := range []string{"DELETE FROM tokens WHERE workspace = ? AND artifact = ?", "DELETE FROM artifacts WHERE workspace = ? AND name = ?"} {
			st, err := c.Prep(q)
			if err != nil {
				return err
			}
			if err := st.Exec(ws, name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete artifact %s: %w", name, err)
	}
	return nil
}

// DeleteWorkspace forgets every artifact and token of ws (the workspace
// was deleted).
func (s *Store) DeleteWorkspace(ctx context.Context, ws string) error {
	err := s.write(func(c *sqlite.Conn) error {
		for _, q := range []string{"DELETE FROM tokens WHERE workspace = ?", "DELETE FROM artifacts WHERE workspace = ?"} {
			st, err := c.Prep(q)
			if err != nil {
				return err
			}
			if err := st.Exec(ws); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete artifacts of %s: %w", ws, err)
	}
	return nil
}

// CheckTTL turns a requested life into the token's (0: DefaultTTL).
func CheckTTL(ttl time.Duration) (time.Duration, error) {
	switch {
	case ttl == 0:
		return DefaultTTL, nil
	case ttl < time.Second:
		return 0, fmt.Errorf("%w: ttl %v: want at least 1 second", ErrInvalid, ttl)
	case ttl > MaxTTL:
		return 0, fmt.Errorf("%w: ttl %v is over the limit of 30 days (720h)", ErrInvalid, ttl)
	}
	return ttl.Truncate(time.Second), nil
}

// CheckScope returns the scope s names ("": ScopeRead), or ErrInvalid.
func CheckScope(s string) (string, error) {
	switch s {
	case "", ScopeRead:
		return ScopeRead, nil
	case ScopeWrite:
		return ScopeWrite, nil
	}
	return "", fmt.Errorf("%w: scope %q: want read or write", ErrInvalid, s)
}

func digestOf(secret string) []byte {
	d := sha256.Sum256([]byte(secret))
	return d[:]
}

const tokenColumns = "id, workspace, artifact, scope, created, expires, revoked"

func scanToken(st *sqlite.Stmt) Token {
	t := Token{ID: st.Text(0), Workspace: st.Text(1), Artifact: st.Text(2), Scope: st.Text(3),
		Created: time.Unix(0, st.Int64(4)), Expires: time.Unix(0, st.Int64(5))}
	if !st.IsNull(6) {
		t.Revoked = time.Unix(0, st.Int64(6))
	}
	return t
}

// Mint makes a token for artifact name of ws with scope, living ttl (0:
// DefaultTTL). When the artifact has MaxTokens tokens, its ended ones are
// forgotten (oldest first) to make room; with MaxTokens live ones it is
// ErrTooMany.
func (s *Store) Mint(ctx context.Context, ws, name, scope string, ttl time.Duration) (Minted, error) {
	scope, err := CheckScope(scope)
	if err != nil {
		return Minted{}, err
	}
	if ttl, err = CheckTTL(ttl); err != nil {
		return Minted{}, err
	}
	b := make([]byte, TokenBytes+8)
	if _, err := rand.Read(b); err != nil {
		return Minted{}, fmt.Errorf("make artifact token: %w", err)
	}
	secret := TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:TokenBytes])
	now := s.o.Now()
	m := Minted{Secret: secret, Token: Token{ID: hex.EncodeToString(b[TokenBytes:]), Workspace: ws, Artifact: name,
		Scope: scope, Created: now, Expires: now.Add(ttl)}}
	err = s.write(func(c *sqlite.Conn) error {
		if _, err := getArtifact(c, ws, name); err != nil {
			return err
		}
		var total, live int64
		n := now.UnixNano()
		if err := c.Query("SELECT count(*), count(CASE WHEN revoked IS NULL AND expires > ? THEN 1 END) FROM tokens WHERE workspace = ? AND artifact = ?",
			[]any{n, ws, name}, func(st *sqlite.Stmt) { total, live = st.Int64(0), st.Int64(1) }); err != nil {
			return err
		}
		if live >= MaxTokens {
			return fmt.Errorf("%w: the artifact has %d live tokens, the limit (desk artifact revoke some)", ErrTooMany, live)
		}
		if total >= MaxTokens {
			st, err := c.Prep("DELETE FROM tokens WHERE id IN (SELECT id FROM tokens WHERE workspace = ? AND artifact = ? AND (revoked IS NOT NULL OR expires <= ?) ORDER BY min(coalesce(revoked, expires), expires) LIMIT ?)")
			if err != nil {
				return err
			}
			if err := st.Exec(ws, name, n, total-MaxTokens+1); err != nil {
				return err
			}
		}
		st, err := c.Prep("INSERT INTO tokens(id, digest, workspace, artifact, scope, created, expires, revoked) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)")
		if err != nil {
			return err
		}
		return st.Exec(m.ID, digestOf(secret), ws, name, scope, now.UnixNano(), m.Expires.UnixNano())
	})
	if err != nil {
		return Minted{}, fmt.Errorf("mint token for artifact %s: %w", name, err)
	}
	return m, nil
}

// Tokens returns the tokens of artifact name of ws, oldest first.
func (s *Store) Tokens(ctx context.Context, ws, name string) ([]Token, error) {
	var out []Token
	err := s.read(func(c *sqlite.Conn) error {
		if _, err := getArtifact(c, ws, name); err != nil {
			return err
		}
		return c.Query("SELECT "+tokenColumns+" FROM tokens WHERE workspace = ? AND artifact = ? ORDER BY rowid", []any{ws, name},
			func(st *sqlite.Stmt) { out = append(out, scanToken(st)) })
	})
	if err != nil {
		return nil, fmt.Errorf("list tokens of artifact %s: %w", name, err)
	}
	return out, nil
}

// Revoke ends token id of artifact name of ws at once. Revoking an ended
// token changes nothing.
func (s *Store) Revoke(ctx context.Context, ws, name, id string) (Token, error) {
	var t Token
	now := s.o.Now()
	err := s.write(func(c *sqlite.Conn) error {
		found := false
		if err := c.Query("SELECT "+tokenColumns+" FROM tokens WHERE id = ? AND workspace = ? AND artifact = ?", []any{id, ws, name},
			func(st *sqlite.Stmt) { t = scanToken(st); found = true }); err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("%w: token %s of artifact %s", ErrNotFound, id, name)
		}
		if !t.Revoked.IsZero() {
			return nil
		}
		t.Revoked = now
		st, err := c.Prep("UPDATE tokens SET revoked = ? WHERE id = ?")
		if err != nil {
			return err
		}
		return st.Exec(now.UnixNano(), id)
	})
	if err != nil {
		return Token{}, fmt.Errorf("revoke token: %w", err)
	}
	return t, nil
}

// Authorize checks that secret is a live token of artifact name of ws
// allowing write (a push) or reading, and returns the artifact and the
// token. A missing, unknown, expired or revoked token is ErrUnauthorized
// saying which; a read token asked to write is ErrForbidden; an unknown
// artifact is ErrNotFound.
func (s *Store) Authorize(ctx context.Context, ws, name, secret string, write bool) (Artifact, Token, error) {
	var a Artifact
	var t Token
	found := false
	err := s.read(func(c *sqlite.Conn) (err error) {
		if a, err = getArtifact(c, ws, name); err != nil {
			return err
		}
		if secret == "" {
			return nil
		}
		return c.Query("SELECT "+tokenColumns+" FROM tokens WHERE digest = ?", []any{digestOf(secret)},
			func(st *sqlite.Stmt) { t = scanToken(st); found = true })
	})
	if err != nil {
		return Artifact{}, Token{}, err
	}
	now := s.o.Now()
	switch {
	case secret == "":
		return a, t, fmt.Errorf("%w: artifact %s/%s needs a token (desk artifact token %s %s): give it as the password of the URL", ErrUnauthorized, ws, name, ws, name)
	case !found || t.Workspace != ws || t.Artifact != name:
		return a, t, fmt.Errorf("%w: not a token of artifact %s/%s", ErrUnauthorized, ws, name)
	case t.State(now) == StateRevoked:
		return a, t, fmt.Errorf("%w: token %s was revoked at %s", ErrUnauthorized, t.ID, t.Revoked.UTC().Format(time.RFC3339))
	case t.State(now) == StateExpired:
		return a, t, fmt.Errorf("%w: token %s expired at %s", ErrUnauthorized, t.ID, t.Expires.UTC().Format(time.RFC3339))
	case write && t.Scope != ScopeWrite:
		return a, t, fmt.Errorf("%w: token %s is read-only (scope read): pushing needs a token of scope write (desk artifact token %s %s --scope write)", ErrForbidden, t.ID, ws, name)
	}
	return a, t, nil
}

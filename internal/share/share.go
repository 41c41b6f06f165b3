package share

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/desk-dev/desk/internal/mediatype"
)

// Defaults and fixed bounds. A zero Options field takes its default.
const (
	DefaultTTL               = time.Hour          // a share's life when none is asked
	MaxTTL                   = 7 * 24 * time.Hour // the longest life (also SigV4's longest presigned URL)
	DefaultMaxFileBytes      = 1 << 30            // the largest file shared (the API's upload bound)
	DefaultMaxShares         = 1000               // shares kept per workspace, ended ones included
	DefaultMaxWorkspaceBytes = 8 << 30            // content of a workspace's live shares
	DefaultRetain            = 24 * time.Hour     // an ended share stays listed (and answers 410) this long
	DefaultSweepBatch        = 500                // shares one sweep transaction handles

	// TokenBytes is the randomness of a link's token: 192 bits, shown as
	// 32 base64url characters.
	TokenBytes = 24
)

// Dispositions: how a browser shows the content (Content-Disposition).
const (
	Inline     = "inline"     // shown in the browser when it can (the default)
	Attachment = "attachment" // downloaded, under the file's name
)

// Share states (Share.State).
const (
	StateActive  = "active"
	StateExpired = "expired"
	StateRevoked = "revoked"
)

// Errors. Each is wrapped with what was asked.
var (
	// ErrNotFound: no share has that id (in that workspace) or token.
	ErrNotFound = errors.New("no such share")
	// ErrGone: the share expired or was revoked.
	ErrGone = errors.New("the share has ended")
	// ErrTooLarge: the file is over MaxFileBytes.
	ErrTooLarge = errors.New("file too large to share")
	// ErrTooMany: the workspace has MaxShares shares, or its live shares
	// hold MaxWorkspaceBytes.
	ErrTooMany = errors.New("too many shares")
	// ErrInvalid: a bad expiry or disposition.
	ErrInvalid = errors.New("invalid share request")
	// ErrClosed: the store is closed.
	ErrClosed = errors.New("share store closed")
)

// Options configure a Store. The zero value of each field is its default.
type Options struct {
	// Dir holds the index (index.db) and the local content (blobs/, tmp/).
	// Required. desk serve uses DATA/shares, shared by its front and its
	// workers.
	Dir string
	// BaseURL is the public URL of the server that serves /s/{token}
	// (e.g. "https://desk.example.com"): links are BaseURL/s/TOKEN.
	// Required unless Remote is set.
	BaseURL string
	// Remote, if set, keeps new shares' content there (an S3 bucket) and
	// makes their links presigned URLs of its own; nil: in Dir, served by
	// desk at /s/{token}.
	Remote Remote
	// MaxFileBytes bounds the size of a shared file. Default 1 GiB.
	MaxFileBytes int64
	// MaxShares bounds the shares a workspace has, live and ended (ended
	// ones are dropped first to make room). Default 1000.
	MaxShares int
	// MaxWorkspaceBytes bounds the content of a workspace's live shares.
	// Default 8 GiB.
	MaxWorkspaceBytes int64
	// Retain is how long an ended share stays listed (and its link answers
	// 410 Gone rather than 404) before Sweep forgets it. Default 24h.
	Retain time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives the errors of clean-ups that have no caller to
	// return them to. Default slog.Default().
	Logger *slog.Logger
}

// Share is one share: a frozen copy of a workspace file behind a link.
type Share struct {
	ID          string    // 16 hex digits: names the share in lists and revocations (not a capability)
	Workspace   string    // the workspace it was made in
	Path        string    // the file's absolute workspace path at share time
	Size        int64     // bytes of content
	SHA256      string    // hex digest of the content (also its ETag)
	ContentType string    // by the name's extension, else sniffed
	Disposition string    // Inline or Attachment
	Created     time.Time // when it was made
	Expires     time.Time // when the link stops working
	Revoked     time.Time // when it was revoked (zero: not revoked)
	Remote      bool      // the content is in the Remote store (the link is a presigned URL)
}

// State is the share's state at now: StateRevoked, StateExpired or StateActive.
func (sh Share) State(now time.Time) string {
	switch {
	case !sh.Revoked.IsZero():
		return StateRevoked
	case !now.Before(sh.Expires):
		return StateExpired
	}
	return StateActive
}

// Name is the file's name (the last element of Path).
func (sh Share) Name() string { return path.Base(sh.Path) }

// ContentDisposition is the Content-Disposition header of the content:
// the disposition with the file's name (RFC 6266; a name that is not
// plain ASCII is sent in the RFC 2231 form, a name that cannot be encoded is
// left out).
func (sh Share) ContentDisposition() string {
	if v := mime.FormatMediaType(sh.Disposition, map[string]string{"filename": sh.Name()}); v != "" {
		return v
	}
	return sh.Disposition
}

// Created is what Create returns: the share and its link, shown only here
// (the store keeps only the token's digest, as for API tokens).
type Created struct {
	Share
	URL string
}

// Source is what Create shares.
type Source struct {
	// Path is the file's absolute workspace path: its name gives the
	// content type and the download name.
	Path string
	// Content is read to its end (at most MaxFileBytes).
	Content io.Reader
	// TTL is the share's life: 0 for DefaultTTL, at most MaxTTL.
	TTL time.Duration
	// Disposition is Inline or Attachment ("": Inline).
	Disposition string
}

// Store is the share index and content of a data directory. Several
// processes may open the same Dir at once (desk serve's front and its
// workers do): the index is SQLite in WAL mode, and content files are
// created and removed only inside the index's write transactions. It is
// safe for concurrent use.
type Store struct {
	o   Options
	idx *index

	mu     sync.Mutex
	closed bool
}

// Open opens (creating if needed) the store in o.Dir.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Dir == "" {
		return nil, errors.New("open share store: no directory")
	}
	if o.BaseURL == "" && o.Remote == nil {
		return nil, errors.New("open share store: no base URL for links")
	}
	if o.MaxFileBytes < 0 || o.MaxShares < 0 || o.MaxWorkspaceBytes < 0 || o.Retain < 0 {
		return nil, errors.New("open share store: negative option")
	}
	if o.MaxFileBytes == 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxShares == 0 {
		o.MaxShares = DefaultMaxShares
	}
	if o.MaxWorkspaceBytes == 0 {
		o.MaxWorkspaceBytes = DefaultMaxWorkspaceBytes
	}
	if o.Retain == 0 {
		o.Retain = DefaultRetain
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	for _, d := range []string{o.Dir, filepath.Join(o.Dir, "blobs"), filepath.Join(o.Dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open share store: %w", err)
		}
	}
	idx, err := openIndex(filepath.Join(o.Dir, "index.db"))
	if err != nil {
		return nil, fmt.Errorf("open share store: %w", err)
	}
	s := &Store{o: o, idx: idx}
	s.cleanTmp()
	return s, nil
}

// Options returns the store's options, defaults filled in.
func (s *Store) Options() Options { return s.o }

// Close closes the index. Content being served through files Open
// returned stays readable until they are closed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	return s.idx.close()
}

// tmpMaxAge: a spool file older than this is a leftover of a killed process.
const tmpMaxAge = 24 * time.Hour

// cleanTmp removes spool files a killed process left (old enough that no
// live Create can still be writing them).
func (s *Store) cleanTmp() {
	dir := filepath.Join(s.o.Dir, "tmp")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > tmpMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// checkTTL turns a requested life into the share's (0: DefaultTTL).
func checkTTL(ttl time.Duration) (time.Duration, error) {
	switch {
	case ttl == 0:
		return DefaultTTL, nil
	case ttl < time.Second:
		return 0, fmt.Errorf("%w: expiry %v: want at least 1 second", ErrInvalid, ttl)
	case ttl > MaxTTL:
		return 0, fmt.Errorf("%w: expiry %v is over the limit of 7 days (168h)", ErrInvalid, ttl)
	}
	return ttl.Truncate(time.Second), nil
}

// CheckDisposition returns the disposition d names ("": Inline), or an
// ErrInvalid error.
func CheckDisposition(d string) (string, error) {
	switch d {
	case "", Inline:
		return Inline, nil
	case Attachment:
		return Attachment, nil
	}
	return "", fmt.Errorf("%w: disposition %q: want inline or attachment", ErrInvalid, d)
}

// Create freezes a copy of src's content and returns the new share with
// its link.
func (s *Store) Create(ctx context.Context, ws string, src Source) (Created, error) {
	ttl, err := checkTTL(src.TTL)
	if err != nil {
		return Created{}, err
	}
	disp, err := CheckDisposition(src.Disposition)
	if err != nil {
		return Created{}, err
	}
	if !path.IsAbs(src.Path) {
		return Created{}, fmt.Errorf("%w: path %q is not absolute", ErrInvalid, src.Path)
	}
	sp, err := s.spool(ctx, src.Content)
	if err != nil {
		return Created{}, fmt.Errorf("share %s: %w", src.Path, err)
	}
	defer sp.remove()
	token, digest, id, err := newToken()
	if err != nil {
		return Created{}, err
	}
	now := s.o.Now()
	sh := Share{
		ID: id, Workspace: ws, Path: path.Clean(src.Path), Size: sp.size, SHA256: sp.sum,
		ContentType: mediatype.Of(src.Path, sp.head), Disposition: disp,
		Created: now, Expires: now.Add(ttl), Remote: s.o.Remote != nil,
	}
	content := localKey(sp.sum)
	if s.o.Remote != nil {
		content = remoteKey(ws, id)
		if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
			return Created{}, fmt.Errorf("share %s: %w", src.Path, err)
		}
		if err := s.o.Remote.Put(ctx, objectKey(content), sp.f, sp.size, sh.ContentType, sh.ContentDisposition()); err != nil {
			return Created{}, fmt.Errorf("share %s: upload to %s: %w", src.Path, s.o.Remote, err)
		}
	}
	err = s.idx.write(ctx, func(tx *tx) error {
		if err := s.makeRoom(tx, ws, sh.Size, now); err != nil {
			return err
		}
		if s.o.Remote == nil {
			if err := s.link(sp.f.Name(), sp.sum); err != nil {
				return err
			}
		}
		return tx.insert(sh, digest, content)
	})
	if err != nil {
		if s.o.Remote != nil {
			s.removeRemote(context.WithoutCancel(ctx), []string{content})
		}
		return Created{}, fmt.Errorf("share %s: %w", src.Path, err)
	}
	out := Created{Share: sh}
	if s.o.Remote != nil {
		out.URL, err = s.o.Remote.URL(ctx, objectKey(content), now, ttl)
		if err != nil {
			return Created{}, fmt.Errorf("share %s: presign: %w", src.Path, err)
		}
	} else {
		out.URL = s.o.BaseURL + "/s/" + token
	}
	return out, nil
}

// makeRoom checks the workspace's bounds for a new share of size bytes,
// forgetting its ended shares (oldest first) when it has MaxShares.
func (s *Store) makeRoom(tx *tx, ws string, size int64, now time.Time) error {
	if size > s.o.MaxFileBytes {
		return fmt.Errorf("%w: %d bytes, over the limit of %d", ErrTooLarge, size, s.o.MaxFileBytes)
	}
	total, live, liveBytes, err := tx.counts(ws, now)
	if err != nil {
		return err
	}
	if live >= s.o.MaxShares {
		return fmt.Errorf("%w: the workspace has %d live shares, the limit (revoke some: desk share ls, desk share rm)", ErrTooMany, live)
	}
	if liveBytes+size > s.o.MaxWorkspaceBytes {
		return fmt.Errorf("%w: the workspace's live shares hold %d bytes; %d more would pass the limit of %d (revoke some)", ErrTooMany, liveBytes, size, s.o.MaxWorkspaceBytes)
	}
	if total >= s.o.MaxShares {
		ended, err := tx.ended(ws, now, total-s.o.MaxShares+1)
		if err != nil {
			return err
		}
		return s.forget(tx, ended)
	}
	return nil
}

// newToken returns a new link token, its digest and a share id.
func newToken() (token string, digest []byte, id string, err error) {
	b := make([]byte, TokenBytes+8)
	if _, err := rand.Read(b); err != nil {
		return "", nil, "", fmt.Errorf("make share token: %w", err)
	}
	token = base64.RawURLEncoding.EncodeToString(b[:TokenBytes])
	return token, tokenDigest(token), hex.EncodeToString(b[TokenBytes:]), nil
}

func tokenDigest(token string) []byte {
	d := sha256.Sum256([]byte(token))
	return d[:]
}

// ValidToken reports whether t has the form of a link token (so that
// garbage is refused before the index is asked).
func ValidToken(t string) bool {
	if len(t) != base64.RawURLEncoding.EncodedLen(TokenBytes) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(t)
	return err == nil
}

// Content keys in the index: "blob:HEX" for content in Dir/blobs,
// "s3:WS/ID" for content in the Remote store.
func localKey(sum string) string      { return "blob:" + sum }
func remoteKey(ws, id string) string  { return "s3:" + ws + "/" + id }
func objectKey(content string) string { return strings.TrimPrefix(content, "s3:") }
func isRemoteKey(content string) bool { return strings.HasPrefix(content, "s3:") }
func (s *Store) blobPath(sum string) string {
	return filepath.Join(s.o.Dir, "blobs", sum[:2], sum)
}

// spooled is a share's content copied to a spool file.
type spooled struct {
	f    *os.File
	size int64
	sum  string
	head []byte // the first mediatype.SniffLen bytes
}

func (sp *spooled) remove() {
	sp.f.Close()
	os.Remove(sp.f.Name())
}

// spool copies r (at most MaxFileBytes) to a file in Dir/tmp, hashing it.
func (s *Store) spool(ctx context.Context, r io.Reader) (*spooled, error) {
	f, err := os.CreateTemp(filepath.Join(s.o.Dir, "tmp"), "spool-*")
	if err != nil {
		return nil, err
	}
	sp := &spooled{f: f}
	h := sha256.New()
	head := &headWriter{max: mediatype.SniffLen}
	n, err := io.Copy(io.MultiWriter(f, h, head), io.LimitReader(ctxReader{ctx, r}, s.o.MaxFileBytes+1))
	if err == nil && n > s.o.MaxFileBytes {
		err = fmt.Errorf("%w: over the limit of %d bytes", ErrTooLarge, s.o.MaxFileBytes)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		sp.remove()
		return nil, err
	}
	sp.size, sp.sum, sp.head = n, hex.EncodeToString(h.Sum(nil)), head.b
	return sp, nil
}

// headWriter keeps the first max bytes written.
type headWriter struct {
	b   []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// ctxReader stops reading when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// link gives the spool file at tmp its content-addressed name (inside the
// index's write transaction, so that no clean-up removes it in between;
// content already there is the same bytes).
func (s *Store) link(tmp, sum string) error {
	dst := s.blobPath(sum)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	if err := os.Link(tmp, dst); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("store content: %w", err)
	}
	return nil
}

// Open returns the share a link token names and its content, for serving
// at /s/{token}: ErrNotFound for a token the store does not know,
// ErrGone for an ended share. The caller closes the file. A share whose
// content is in the Remote store is ErrNotFound here (its link is the
// store's own).
func (s *Store) Open(ctx context.Context, token string) (Share, *os.File, error) {
	if !ValidToken(token) {
		return Share{}, nil, ErrNotFound
	}
	sh, content, err := s.idx.byDigest(ctx, tokenDigest(token))
	if err != nil {
		return Share{}, nil, err
	}
	now := s.o.Now()
	switch st := sh.State(now); {
	case st == StateRevoked:
		return sh, nil, fmt.Errorf("%w: revoked at %s", ErrGone, sh.Revoked.UTC().Format(time.RFC3339))
	case st == StateExpired:
		return sh, nil, fmt.Errorf("%w: expired at %s", ErrGone, sh.Expires.UTC().Format(time.RFC3339))
	case content == "":
		return sh, nil, fmt.Errorf("%w: its content was removed", ErrGone)
	case isRemoteKey(content):
		return Share{}, nil, ErrNotFound
	}
	f, err := os.Open(s.blobPath(strings.TrimPrefix(content, "blob:")))
	if errors.Is(err, os.ErrNotExist) {
		return sh, nil, fmt.Errorf("%w: revoked", ErrGone) // removed since the lookup
	}
	if err != nil {
		return Share{}, nil, fmt.Errorf("open share content: %w", err)
	}
	return sh, f, nil
}

// Get returns the share id of workspace ws.
func (s *Store) Get(ctx context.Context, ws, id string) (Share, error) {
	sh, _, err := s.idx.byID(ctx, ws, id)
	return sh, err
}

// List returns up to limit shares of ws made after the share after ("":
// from the first), oldest first, and whether more follow.
func (s *Store) List(ctx context.Context, ws, after string, limit int) ([]Share, bool, error) {
	if limit <= 0 {
		limit = s.o.MaxShares
	}
	return s.idx.list(ctx, ws, after, limit)
}

// Revoke ends share id of ws at once and removes its content (a download
// already under way finishes). Revoking an ended share changes nothing.
func (s *Store) Revoke(ctx context.Context, ws, id string) (Share, error) {
	now := s.o.Now()
	var sh Share
	var gone []string
	err := s.idx.write(ctx, func(tx *tx) error {
		var content string
		var err error
		if sh, content, err = tx.byID(ws, id); err != nil {
			return err
		}
		if sh.Revoked.IsZero() {
			sh.Revoked = now
			if err := tx.revoke(id, now); err != nil {
				return err
			}
		}
		if content != "" {
			gone, err = s.dropContent(tx, []row{{id: id, content: content}})
		}
		return err
	})
	if err != nil {
		return Share{}, err
	}
	s.removeRemote(ctx, gone)
	return sh, nil
}

// DeleteWorkspace revokes and forgets every share of ws (the workspace
// was deleted: a new one of the same name starts with none).
func (s *Store) DeleteWorkspace(ctx context.Context, ws string) error {
	for {
		var gone []string
		var n int
		err := s.idx.write(ctx, func(tx *tx) error {
			rows, err := tx.rowsOf(ws, DefaultSweepBatch)
			if err != nil {
				return err
			}
			n = len(rows)
			if gone, err = s.dropContent(tx, rows); err != nil {
				return err
			}
			return tx.deleteRows(rows)
		})
		if err != nil {
			return fmt.Errorf("delete shares of %s: %w", ws, err)
		}
		s.removeRemote(ctx, gone)
		if n < DefaultSweepBatch {
			return nil
		}
	}
}

// SweepResult counts what Sweep did.
type SweepResult struct {
	Dropped   int // ended shares whose content was removed
	Forgotten int // shares ended more than Retain ago, removed from the index
}

// Sweep removes the content of ended shares and forgets those ended more
// than Retain ago. desk serve's front runs it periodically; links stop at
// their end whether or not it ran.
func (s *Store) Sweep(ctx context.Context) (SweepResult, error) {
	var res SweepResult
	now := s.o.Now()
	for {
		var gone []string
		var n int
		err := s.idx.write(ctx, func(tx *tx) error {
			rows, err := tx.endedWithContent(now, DefaultSweepBatch)
			if err != nil {
				return err
			}
			n = len(rows)
			gone, err = s.dropContent(tx, rows)
			return err
		})
		if err != nil {
			return res, fmt.Errorf("sweep shares: %w", err)
		}
		s.removeRemote(ctx, gone)
		res.Dropped += n
		if n < DefaultSweepBatch {
			break
		}
	}
	for {
		var n int
		err := s.idx.write(ctx, func(tx *tx) error {
			rows, err := tx.endedBefore(now.Add(-s.o.Retain), DefaultSweepBatch)
			if err != nil {
				return err
			}
			n = len(rows)
			return tx.deleteRows(rows)
		})
		if err != nil {
			return res, fmt.Errorf("sweep shares: %w", err)
		}
		res.Forgotten += n
		if n < DefaultSweepBatch {
			return res, nil
		}
	}
}

// forget removes ended shares from the index, content first.
func (s *Store) forget(tx *tx, rows []row) error {
	gone, err := s.dropContent(tx, rows)
	if err != nil {
		return err
	}
	if err := tx.deleteRows(rows); err != nil {
		return err
	}
	tx.after = append(tx.after, func(ctx context.Context) { s.removeRemote(ctx, gone) })
	return nil
}

// dropContent detaches the content of rows inside a write transaction and
// removes local blobs no other share holds; it returns the remote objects
// to delete once the transaction committed.
func (s *Store) dropContent(tx *tx, rows []row) (remote []string, err error) {
	sums := map[string]bool{}
	for _, r := range rows {
		if r.content == "" {
			continue
		}
		if err := tx.clearContent(r.id); err != nil {
			return nil, err
		}
		if isRemoteKey(r.content) {
			remote = append(remote, r.content)
		} else {
			sums[r.content] = true
		}
	}
	for key := range sums {
		held, err := tx.contentHeld(key)
		if err != nil {
			return nil, err
		}
		if held {
			continue
		}
		if err := os.Remove(s.blobPath(strings.TrimPrefix(key, "blob:"))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove share content: %w", err)
		}
	}
	return remote, nil
}

// removeRemote deletes objects of the Remote store; failures are logged
// (the share is ended either way: its presigned URL expires with it).
func (s *Store) removeRemote(ctx context.Context, keys []string) {
	for _, k := range keys {
		if s.o.Remote == nil {
			s.o.Logger.Warn("share content is in a remote store this server is not configured with; left there", "object", objectKey(k))
			continue
		}
		if err := s.o.Remote.Delete(ctx, objectKey(k)); err != nil {
			s.o.Logger.Warn("cannot delete a share's content from the remote store", "store", s.o.Remote.String(), "object", objectKey(k), "err", err)
		}
	}
}

// Remote is a store of share content elsewhere (an S3 bucket, package
// s3remote): new content is put there and its link is the store's own
// (presigned) URL.
type Remote interface {
	// Put stores size bytes of r as key, with the headers a GET returns.
	Put(ctx context.Context, key string, r io.ReadSeeker, size int64, contentType, contentDisposition string) error
	// URL returns a URL that GETs key without credentials, valid for ttl
	// from signed (the share's creation time).
	URL(ctx context.Context, key string, signed time.Time, ttl time.Duration) (string, error)
	// Delete removes key (no error if it is gone already).
	Delete(ctx context.Context, key string) error
	// String names the store in messages ("s3://bucket/prefix").
	String() string
}

// errno wraps a system error for a path, for callers that report errno names.
func errno(op, p string, e syscall.Errno) error { return &os.PathError{Op: op, Path: p, Err: e} }

package api

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/share"
)

// wireShare converts a share to the wire type (without its URL).
func wireShare(sh share.Share, now time.Time) client.Share {
	store := "local"
	if sh.Remote {
		store = "s3"
	}
	return client.Share{
		ID: sh.ID, Workspace: sh.Workspace, Path: quote.Path(sh.Path), Size: sh.Size, SHA256: sh.SHA256,
		ContentType: sh.ContentType, Disposition: sh.Disposition, State: sh.State(now),
		Created: sh.Created.UTC(), Expires: sh.Expires.UTC(), RevokedAt: sh.Revoked.UTC(), Store: store,
	}
}

// shares returns the share store, or 501 when the server has none.
func (s *Server) shares() (*share.Store, error) {
	if s.opts.Shares == nil {
		return nil, errorf(http.StatusNotImplemented, CodeUnavailable, "this server keeps no share links (api.Options.Shares)")
	}
	return s.opts.Shares, nil
}

// sharePath is a share request's path: absolute, or relative to
// /workspace (cleanPath); ".." and NUL refused as in URLs.
func sharePath(p string) (string, error) {
	if p == "" {
		return "", errorf(http.StatusBadRequest, CodeInvalid, "path is required: the file to share")
	}
	return cleanPath(p)
}

// handleCreateShare (a worker's, in desk serve: it reads the file) freezes
// a copy of a workspace file behind a new link.
func (s *Server) handleCreateShare(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.shares()
	if err != nil {
		return err
	}
	var req client.ShareRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	p, err := sharePath(req.Path)
	if err != nil {
		return err
	}
	if req.ExpiresIn < 0 || req.ExpiresIn > int64(share.MaxTTL/time.Second) {
		return errorf(http.StatusBadRequest, CodeInvalid, "expires_in %d: want seconds from 1 to %d (7 days); 0 or absent: %d", req.ExpiresIn, int64(share.MaxTTL/time.Second), int64(share.DefaultTTL/time.Second))
	}
	cr, err := share.Workspace{Store: st, Name: c.ws}.Publish(r.Context(), c.lease.Workspace().FS(), p, time.Duration(req.ExpiresIn)*time.Second, req.Disposition)
	if err != nil {
		return err
	}
	out := wireShare(cr.Share, cr.Created)
	out.URL = cr.URL
	return writeJSON(w, http.StatusCreated, out)
}

// handleListShares lists a workspace's shares (the front's: it needs no
// worker).
func (s *Server) handleListShares(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.shares()
	if err != nil {
		return err
	}
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	l, more, err := st.List(r.Context(), c.ws, r.URL.Query().Get("after"), limit)
	if err != nil {
		return err
	}
	now := st.Options().Now()
	out := client.ShareList{Shares: []client.Share{}}
	for _, sh := range l {
		out.Shares = append(out.Shares, wireShare(sh, now))
	}
	if more {
		out.Next = l[len(l)-1].ID
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleRevokeShare ends a share at once (the front's).
func (s *Server) handleRevokeShare(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.shares()
	if err != nil {
		return err
	}
	if _, err := st.Revoke(r.Context(), c.ws, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleGetShare serves a link's frozen content to anyone holding it (no
// token: the link's token is the capability), with its content type,
// ranges, and the content's digest as a strong ETag. desk serve's front
// answers it from the share store without waking the workspace's worker.
func (s *Server) handleGetShare(w http.ResponseWriter, r *http.Request, _ *call) error {
	st, err := s.shares()
	if err != nil {
		return err
	}
	sh, f, err := st.Open(r.Context(), r.PathValue("token"))
	if err != nil {
		return err
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", sh.ContentType)
	h.Set("Content-Disposition", sh.ContentDisposition())
	h.Set("ETag", `"`+sh.SHA256+`"`)
	h.Set("X-Content-Type-Options", "nosniff")
	// The content is the workspace's, not desk's: a page shown inline runs
	// in an opaque origin, so its scripts cannot call desk's API as desk.
	h.Set("Content-Security-Policy", "sandbox allow-scripts allow-forms allow-popups allow-downloads")
	h.Set("Cache-Control", "private, max-age="+strconv.FormatInt(max(0, int64(sh.Expires.Sub(st.Options().Now())/time.Second)), 10))
	h.Set("Expires", sh.Expires.UTC().Format(http.TimeFormat))
	h.Set("Referrer-Policy", "no-referrer")
	// http.ServeContent: single and multiple ranges (multipart/byteranges),
	// If-Range, If-None-Match against the ETag (304), HEAD.
	http.ServeContent(w, r, "", sh.Created, f)
	return nil
}

// shareError maps the share store's errors.
func shareError(err error) *Error {
	for _, m := range []struct {
		err    error
		status int
		code   string
	}{
		{share.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{share.ErrGone, http.StatusGone, CodeGone},
		{share.ErrTooLarge, http.StatusRequestEntityTooLarge, CodeTooLarge},
		{share.ErrTooMany, http.StatusConflict, CodeTooMany},
		{share.ErrInvalid, http.StatusBadRequest, CodeInvalid},
		{share.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
	} {
		if errors.Is(err, m.err) {
			return &Error{m.status, m.code, err.Error()}
		}
	}
	return nil
}

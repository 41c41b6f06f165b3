package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/client/quote"
	"github.com/desk-dev/desk/internal/artifact"
	"github.com/desk-dev/desk/internal/gitws"
)

// artifacts returns the artifact store, or 501 when the server has none.
func (s *Server) artifacts() (*artifact.Store, error) {
	if s.opts.Artifacts == nil {
		return nil, errorf(http.StatusNotImplemented, CodeUnavailable, "this server publishes no repositories (api.Options.Artifacts)")
	}
	return s.opts.Artifacts, nil
}

// artifactURL is the clone URL of an artifact (ArtifactURL, else the
// request's host).
func (s *Server) artifactURL(r *http.Request, ws, name string) string {
	base := s.opts.ArtifactURL
	if base == "" {
		base = "http://" + r.Host
	}
	return strings.TrimRight(base, "/") + "/git/" + ws + "/" + name + ".git"
}

func (s *Server) wireArtifact(r *http.Request, a artifact.Artifact) client.Artifact {
	return client.Artifact{Workspace: a.Workspace, Name: a.Name, Path: quote.Path(a.Path), Created: a.Created.UTC(), URL: s.artifactURL(r, a.Workspace, a.Name)}
}

func wireArtifactToken(t artifact.Token, now time.Time) client.ArtifactToken {
	return client.ArtifactToken{ID: t.ID, Workspace: t.Workspace, Artifact: t.Artifact, Scope: t.Scope, State: t.State(now),
		Created: t.Created.UTC(), Expires: t.Expires.UTC(), RevokedAt: t.Revoked.UTC()}
}

// handleCreateArtifact (a worker's, in desk serve: it checks the
// repository) publishes a workspace's git repository.
func (s *Server) handleCreateArtifact(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	var req client.ArtifactRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	if err := artifact.ValidateName(req.Name); err != nil {
		return err
	}
	p, err := artifact.CheckPath(req.Path)
	if err != nil {
		return err
	}
	if p, err = cleanPath(p); err != nil {
		return err
	}
	if _, _, err := gitws.FindRepo(r.Context(), c.lease.Workspace().FS(), p); err != nil {
		return errorf(http.StatusBadRequest, CodeInvalid, "publish %s: %v (git init and commit there first)", quote.Path(p), err)
	}
	a, err := st.Create(r.Context(), c.ws, req.Name, p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, s.wireArtifact(r, a))
}

// handleListArtifacts lists a workspace's artifacts (the front's).
func (s *Server) handleListArtifacts(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	l, err := st.List(r.Context(), c.ws)
	if err != nil {
		return err
	}
	out := client.ArtifactList{Artifacts: []client.Artifact{}}
	for _, a := range l {
		out.Artifacts = append(out.Artifacts, s.wireArtifact(r, a))
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeleteArtifact unpublishes an artifact (the front's).
func (s *Server) handleDeleteArtifact(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	if err := st.Delete(r.Context(), c.ws, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// handleCreateArtifactToken mints a token of an artifact (the front's).
func (s *Server) handleCreateArtifactToken(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	var req client.ArtifactTokenRequest
	if err := s.readJSON(w, r, &req, true); err != nil {
		return err
	}
	if req.TTL < 0 || req.TTL > int64(artifact.MaxTTL/time.Second) {
		return errorf(http.StatusBadRequest, CodeInvalid, "ttl %d: want seconds from 1 to %d (30 days); 0 or absent: %d", req.TTL, int64(artifact.MaxTTL/time.Second), int64(artifact.DefaultTTL/time.Second))
	}
	name := r.PathValue("name")
	m, err := st.Mint(r.Context(), c.ws, name, req.Scope, time.Duration(req.TTL)*time.Second)
	if err != nil {
		return err
	}
	out := wireArtifactToken(m.Token, m.Created)
	out.Secret = m.Secret
	u := s.artifactURL(r, c.ws, name)
	if scheme, rest, ok := strings.Cut(u, "://"); ok {
		u = scheme + "://desk:" + m.Secret + "@" + rest
	}
	out.URL = u
	return writeJSON(w, http.StatusCreated, out)
}

// handleListArtifactTokens lists an artifact's tokens (the front's).
func (s *Server) handleListArtifactTokens(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	l, err := st.Tokens(r.Context(), c.ws, r.PathValue("name"))
	if err != nil {
		return err
	}
	now := st.Now()
	out := client.ArtifactTokenList{Tokens: []client.ArtifactToken{}}
	for _, t := range l {
		out.Tokens = append(out.Tokens, wireArtifactToken(t, now))
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleRevokeArtifactToken ends an artifact token at once (the front's).
func (s *Server) handleRevokeArtifactToken(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	if _, err := st.Revoke(r.Context(), c.ws, r.PathValue("name"), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// gitSecret is the artifact token of a git request: the basic-auth
// password (or the user name when the password is empty, for
// https://TOKEN@host/... URLs), or a bearer token.
func gitSecret(r *http.Request) string {
	if u, p, ok := r.BasicAuth(); ok {
		if p == "" {
			return u
		}
		return p
	}
	t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return strings.TrimSpace(t)
}

// gitRoute is the handler of one smart-HTTP route (route: "info/refs",
// "git-upload-pack" or "git-receive-pack"). The front checks the token
// (so that a refused request wakes no worker) and forwards the request
// to the workspace's worker, which checks it again and serves it from the
// store it holds. Errors are plain text, which git shows as "remote: ...".
func gitRoute(route string) func(*Server, http.ResponseWriter, *http.Request, *call) error {
	return func(s *Server, w http.ResponseWriter, r *http.Request, c *call) error {
		err := s.serveGit(w, r, c, route)
		if err != nil && w.(*respWriter).status == 0 {
			e := classify(err)
			h := w.Header()
			if e.Status == http.StatusUnauthorized {
				h.Set("WWW-Authenticate", `Basic realm="desk artifact"`)
			}
			h.Set("Content-Type", "text/plain; charset=utf-8")
			h.Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(e.Status)
			w.Write([]byte(printable(e.Message) + "\n"))
		}
		return err
	}
}

func (s *Server) serveGit(w http.ResponseWriter, r *http.Request, c *call, route string) error {
	st, err := s.artifacts()
	if err != nil {
		return err
	}
	c.ws = r.PathValue("ws")
	name, ok := strings.CutSuffix(r.PathValue("repo"), ".git")
	if !ok {
		name = r.PathValue("repo")
	}
	svc, err := artifact.Service(route, r)
	if err != nil {
		return err
	}
	a, _, err := st.Authorize(r.Context(), c.ws, name, gitSecret(r), svc == artifact.ReceivePack)
	if err != nil {
		return err
	}
	if s.opts.Workers != nil {
		return s.forwardRaw(w, r, c)
	}
	if route != "info/refs" {
		release, err := s.takeGitSlot(c.ws)
		if err != nil {
			return err
		}
		defer release()
	}
	l, err := s.host.Acquire(r.Context(), c.ws)
	if err != nil {
		return err
	}
	defer l.Release()
	gs := &artifact.Server{MaxPushBytes: s.opts.MaxUploadBytes}
	answered, err := gs.Serve(r.Context(), w, r, l.Workspace().FS(), a, svc, route == "info/refs")
	if err != nil && answered {
		s.opts.Logger.Info("git request ended with an error", "workspace", c.ws, "artifact", name, "service", svc, "err", err)
		return nil
	}
	return err
}

// forwardRaw sends a request to the workspace's worker as it came (its
// own credentials included: the worker checks them again).
func (s *Server) forwardRaw(w http.ResponseWriter, r *http.Request, c *call) error {
	if _, err := s.host.Info(r.Context(), c.ws); err != nil {
		return err
	}
	var ferr error
	s.opts.Workers.Proxy(w, r.Clone(r.Context()), c.ws, func(w http.ResponseWriter, _ *http.Request, err error) { ferr = err })
	if ferr != nil {
		return workerError(ferr)
	}
	return nil
}

// artifactError maps the artifact store's errors.
func artifactError(err error) *Error {
	for _, m := range []struct {
		err    error
		status int
		code   string
	}{
		{artifact.ErrNotFound, http.StatusNotFound, CodeNotFound},
		{artifact.ErrExists, http.StatusConflict, CodeExists},
		{artifact.ErrInvalid, http.StatusBadRequest, CodeInvalid},
		{artifact.ErrTooMany, http.StatusConflict, CodeTooMany},
		{artifact.ErrUnauthorized, http.StatusUnauthorized, CodeUnauthorized},
		{artifact.ErrForbidden, http.StatusForbidden, CodeForbidden},
		{artifact.ErrTooLarge, http.StatusRequestEntityTooLarge, CodeTooLarge},
		{artifact.ErrClosed, http.StatusServiceUnavailable, CodeUnavailable},
	} {
		if errors.Is(err, m.err) {
			return &Error{m.status, m.code, err.Error()}
		}
	}
	return nil
}

// MaxGitRequests bounds the clones, fetches and pushes one workspace serves
// at once: each may hold its repository's pack files in memory (up to
// artifact.MaxPackCacheBytes, 256 MiB), so that many of them stay within a
// worker's memory. The next one gets 429 too_many.
const MaxGitRequests = 4

// takeGitSlot counts a git pack request of ws against MaxGitRequests.
func (s *Server) takeGitSlot(ws string) (release func(), err error) {
	s.gitMu.Lock()
	defer s.gitMu.Unlock()
	if s.gitBusy[ws] >= MaxGitRequests {
		return nil, errorf(http.StatusTooManyRequests, CodeTooMany, "workspace %s already serves %d git requests (clones, fetches, pushes) at once, the most it serves (MaxGitRequests): retry when one has ended", ws, MaxGitRequests)
	}
	if s.gitBusy == nil {
		s.gitBusy = map[string]int{}
	}
	s.gitBusy[ws]++
	return func() {
		s.gitMu.Lock()
		defer s.gitMu.Unlock()
		if s.gitBusy[ws]--; s.gitBusy[ws] == 0 {
			delete(s.gitBusy, ws)
		}
	}, nil
}

package api

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/host"
	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/worker"
	"github.com/desk-dev/desk/internal/workspace"
)

func wireWorkspace(i host.Info) client.Workspace {
	return client.Workspace{Name: i.Name, Bytes: i.Bytes, Modified: i.Modified.UTC(), Open: i.Open, Leases: i.Leases}
}

// workspaceInfo is i as the API shows it: on a front, open means a worker
// serves the workspace, and its leases are the requests in flight there.
func (s *Server) workspaceInfo(i host.Info) client.Workspace {
	if s.opts.Workers != nil {
		i.Open, i.Leases = s.opts.Workers.State(i.Name)
	}
	return wireWorkspace(i)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request, _ *call) error {
	return writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "time": time.Now().UTC()})
}

func (s *Server) handleCreateWorkspace(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.WorkspaceRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	c.ws = req.Name
	if a := r.Header.Get("Accept"); req.From != nil || req.Egress != "" || strings.Contains(a, "text/event-stream") || strings.Contains(a, "application/x-ndjson") {
		return s.createWorkspaceWith(w, r, c.p, req) // gitimport.go
	}
	info, err := s.host.Create(r.Context(), req.Name, host.CreateOptions{})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, wireWorkspace(info))
}

func (s *Server) handleListWorkspaces(w http.ResponseWriter, r *http.Request, c *call) error {
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	after := r.URL.Query().Get("after")
	out := client.WorkspaceList{Workspaces: []client.Workspace{}}
	if !c.p.Admin {
		// A workspace token sees its own workspace only.
		if name := c.p.Token.Workspace; name > after {
			if info, err := s.host.Info(r.Context(), name); err == nil {
				out.Workspaces = append(out.Workspaces, s.workspaceInfo(info))
			}
		}
		return writeJSON(w, http.StatusOK, out)
	}
	infos, err := s.host.List(r.Context(), after, limit)
	if err != nil {
		return err
	}
	for _, i := range infos {
		out.Workspaces = append(out.Workspaces, s.workspaceInfo(i))
	}
	if len(infos) == limit {
		out.Next = infos[len(infos)-1].Name
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleGetWorkspace(w http.ResponseWriter, r *http.Request, c *call) error {
	info, err := s.host.Info(r.Context(), c.ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.workspaceInfo(info))
}

func (s *Server) handleDeleteWorkspace(w http.ResponseWriter, r *http.Request, c *call) error {
	c.ws = r.PathValue("ws")
	if err := workspace.ValidateName(c.ws); err != nil {
		return err
	}
	if s.opts.Workers != nil {
		// The worker holds the store open: it must go first (it refuses
		// while requests are in flight, as Delete refuses leases).
		if err := s.opts.Workers.Stop(r.Context(), c.ws); err != nil {
			if errors.Is(err, worker.ErrInUse) {
				return fmt.Errorf("delete workspace %s: %w", c.ws, host.ErrInUse)
			}
			return err
		}
	}
	if err := s.host.Delete(r.Context(), c.ws); err != nil {
		return err
	}
	if _, err := s.auth.RevokeWorkspace(r.Context(), c.ws); err != nil {
		return fmt.Errorf("delete workspace: %w", err)
	}
	// Nothing of the workspace remains: its tokens are removed, not
	// only revoked (docs/api.md, "Retention and deletion").
	if _, err := s.auth.DeleteWorkspace(r.Context(), c.ws); err != nil {
		return fmt.Errorf("delete workspace: %w", err)
	}
	if s.opts.Shares != nil {
		if err := s.opts.Shares.DeleteWorkspace(r.Context(), c.ws); err != nil {
			return fmt.Errorf("delete workspace: %w", err)
		}
	}
	if s.opts.Egress != nil {
		if err := s.opts.Egress.RemoveWorkspace(c.ws); err != nil {
			return fmt.Errorf("delete workspace: its egress policy and secrets: %w", err)
		}
	}
	if s.opts.Policy != nil {
		if err := s.opts.Policy.RemoveWorkspace(c.ws); err != nil {
			return fmt.Errorf("delete workspace: its path and command rules: %w", err)
		}
	}
	if s.opts.Artifacts != nil {
		if err := s.opts.Artifacts.DeleteWorkspace(r.Context(), c.ws); err != nil {
			return fmt.Errorf("delete workspace: %w", err)
		}
	}
	if s.opts.Audit != nil {
		if err := s.opts.Audit.DeleteWorkspace(r.Context(), c.ws); err != nil {
			return fmt.Errorf("delete workspace: %w", err)
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request, c *call) error {
	ws := c.lease.Workspace()
	st, err := ws.Stats(r.Context())
	if err != nil {
		return err
	}
	sp, err := ws.FS().Statfs(r.Context())
	if err != nil {
		return err
	}
	v := st.Store
	out := client.WorkspaceStats{
		Space: client.SpaceStats{
			Size: sp.UsedBytes + sp.FreeBytes, Used: sp.UsedBytes, Free: sp.FreeBytes, LimitedBy: sp.LimitedBy,
			Quota: sp.QuotaBytes, Files: sp.Files, FilesFree: sp.FilesFree, DiskBytes: sp.DiskBytes, DiskFree: sp.DiskFreeBytes,
			ReserveBytes: sp.ReserveBytes, ReserveHeld: sp.ReserveHeld, DataDirLimit: sp.DataDirLimit, DataDirBytes: sp.DataDirBytes,
		},
		Name: st.Name, OpenedAt: st.OpenedAt.UTC(),
		Store: client.StoreStats{
			Files: v.Files, Dirs: v.Dirs, Symlinks: v.Symlinks, Bytes: v.Bytes, StoredBytes: v.StoredBytes,
			UniqueBytes: v.UniqueBytes, Chunks: v.Chunks, DedupRatio: v.DedupRatio, JournalSeq: v.JournalSeq, DBBytes: v.DBBytes,
			Special: v.Special, LiveBytes: v.LiveBytes, FileBytes: v.FileBytes, WALBytes: v.WALBytes, ReclaimableBytes: v.ReclaimableBytes,
			InlineFiles: v.InlineFiles, InlineBytes: v.InlineBytes, SlotChunks: v.SlotChunks, ChunkFileBytes: v.ChunkFileBytes,
		},
		Running:  ws.Runtime().Running(),
		Backends: ws.Runtime().Backends(),
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleCheck runs the store's integrity check (vfs.FS.Check): it reads the
// whole store, so it is the admin's, and bounded by the request's context.
func (s *Server) handleCheck(w http.ResponseWriter, r *http.Request, c *call) error {
	rep, err := c.lease.Workspace().FS().Check(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, client.CheckReport{OK: rep.OK(), Problems: append([]string{}, rep.Problems...)})
}

func wireToken(t auth.Token) client.Token {
	sc := make([]string, len(t.Scopes))
	for i, s := range t.Scopes {
		sc[i] = string(s)
	}
	out := client.Token{ID: t.ID, Workspace: t.Workspace, Scopes: sc, Backends: t.Backends, Created: t.Created, Revoked: t.Revoked, RevokedAt: t.RevokedAt}
	if t.Egress != nil {
		out.Egress = t.Egress.String()
	}
	if t.Policy != nil {
		r := wireRules(*t.Policy)
		out.Rules = &r
	}
	return out
}

func (s *Server) handleMintToken(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.TokenRequest
	if err := s.readJSON(w, r, &req, false); err != nil {
		return err
	}
	c.ws = req.Workspace
	if _, err := s.host.Info(r.Context(), req.Workspace); err != nil {
		return err
	}
	o, err := s.mintOptions(req)
	if err != nil {
		return err
	}
	t, secret, err := s.auth.Mint(r.Context(), o)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, client.MintedToken{Token: wireToken(t), Secret: secret})
}

// mintOptions parses a mint request's scopes and backends: each scope must be
// read, write or exec; each backend one of the server's, or "auto" beside at
// least one of them (auto then routes among the token's backends); and
// backends, which restrict exec, need the exec scope.
func (s *Server) mintOptions(req client.TokenRequest) (auth.MintOptions, error) {
	o := auth.MintOptions{Workspace: req.Workspace, Backends: req.Backends}
	if req.Egress != "" {
		p, err := parsePolicy("egress", req.Egress)
		if err != nil {
			return o, err
		}
		o.Egress = &p
	}
	if req.Rules != nil {
		p, err := parseRules("rules", *req.Rules)
		if err != nil {
			return o, err
		}
		o.Policy = &p
	}
	hasExec := false
	for _, sc := range req.Scopes {
		if !auth.Scope(sc).Valid() {
			return o, errorf(http.StatusBadRequest, CodeInvalid, "unknown scope %q: the scopes are read, write, exec and approve", sc)
		}
		hasExec = hasExec || auth.Scope(sc) == auth.ScopeExec
		o.Scopes = append(o.Scopes, auth.Scope(sc))
	}
	if len(req.Backends) == 0 {
		return o, nil
	}
	known := s.opts.Backends
	if known == nil {
		known = s.host.Backends()
	}
	if !hasExec {
		return o, errorf(http.StatusBadRequest, CodeInvalid, "backends %s restrict the exec scope, which the token lacks: add exec to its scopes or drop the backends", strings.Join(req.Backends, ", "))
	}
	named := 0
	for _, b := range req.Backends {
		switch {
		case b == run.AutoBackend:
		case slices.Contains(known, b):
			named++
		default:
			return o, errorf(http.StatusBadRequest, CodeUnknownBackend, "unknown backend %q: this server's backends are %s (and auto, which routes among a token's other backends)", b, strings.Join(known, ", "))
		}
	}
	if named == 0 {
		return o, errorf(http.StatusBadRequest, CodeInvalid, "backends [auto] alone allow nothing: auto routes only among the token's other backends; add some of %s", strings.Join(known, ", "))
	}
	return o, nil
}

func (s *Server) handleListTokens(w http.ResponseWriter, r *http.Request, _ *call) error {
	limit, err := s.limit(r)
	if err != nil {
		return err
	}
	ts := s.auth.List(r.URL.Query().Get("after"), limit)
	out := client.TokenList{Tokens: []client.Token{}}
	for _, t := range ts {
		out.Tokens = append(out.Tokens, wireToken(t))
	}
	if len(ts) == limit {
		out.Next = ts[len(ts)-1].ID
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleRevokeToken(w http.ResponseWriter, r *http.Request, _ *call) error {
	if err := s.auth.Revoke(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

package api

import "net/http"

// workspaceStore begins a call on one of the server's per-workspace stores
// (path and command rules, egress policy, secrets), in the order every such
// handler answers: the store, or get's error (501 when the server keeps
// none); then the request body decoded into req, when req is not nil (400,
// 413); then 404 when the workspace does not exist.
func workspaceStore[T any](s *Server, w http.ResponseWriter, r *http.Request, c *call, get func() (T, error), req any) (T, error) {
	var none T
	st, err := get()
	if err != nil {
		return none, err
	}
	if req != nil {
		if err := s.readJSON(w, r, req, false); err != nil {
			return none, err
		}
	}
	if _, err := s.host.Info(r.Context(), c.ws); err != nil {
		return none, err
	}
	return st, nil
}

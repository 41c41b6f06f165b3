package api

import (
	"net/http"
)

// handleMCP serves MCP over streamable HTTP at /mcp/{ws}. The MCP handler
// authenticates every request itself (a workspace token, or the admin
// token, as bearer token); its requests end when the server shuts down.
func (s *Server) handleMCP(w http.ResponseWriter, r *http.Request, c *call) error {
	c.ws = r.PathValue("ws")
	ctx, stop := s.longCtx(r)
	defer stop()
	s.mcp.ServeHTTP(w, r.WithContext(ctx))
	return nil
}

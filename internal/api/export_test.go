package api

import "time"

// Routes returns "METHOD /openapi/path" for every route the mux registers.
func Routes() []string {
	var out []string
	for _, rt := range routes() {
		out = append(out, rt.method+" "+openAPIPath(rt.path))
	}
	return out
}

// SignPortLink signs a port link expiring at expires, for tests of expired
// links.
func SignPortLink(key []byte, ws string, port int, expires time.Time) string {
	return signPortLink(key, portLink{ws: ws, port: port, expires: expires})
}

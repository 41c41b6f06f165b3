package api

// Routes returns "METHOD /openapi/path" for every route the mux registers.
func Routes() []string {
	var out []string
	for _, rt := range routes() {
		out = append(out, rt.method+" "+openAPIPath(rt.path))
	}
	return out
}

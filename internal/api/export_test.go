package api

import (
	"time"

	"github.com/desk-dev/desk/internal/policy"
)

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

// AuditDecisionOf returns the decision a call's record keeps after ds are
// made for it (call.auditDecision).
func AuditDecisionOf(ds ...policy.Decision) policy.Decision {
	c := &call{}
	for _, d := range ds {
		c.auditDecision(d)
	}
	return c.decision
}

// SetQuotaClock sets the clock of s's execution quotas.
func SetQuotaClock(s *Server, now func() time.Time) {
	s.quota.SetClock(now)
}

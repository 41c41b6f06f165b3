package api

import (
	"net/http"
	"time"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/policy"
)

// A workspace's own limits (package policy's Limits, kept beside its
// rules): its store's quota and its executions' bounds, over the server's
// values. PUT and DELETE run where the workspace is open (its worker), so
// the open store takes the new quota at once (vfs.FS.SetLimits); a store
// opened later reads them (host.Options.StoreLimits). The execution
// bounds are read at each execution's start (package quota: the Counter's Admit).

// noBound is the wire word for "no bound".
const noBound = "none"

func wireDuration(d time.Duration) string {
	switch {
	case d == 0:
		return ""
	case d < 0:
		return noBound
	}
	return d.String()
}

func parseLimitDuration(name, s string) (time.Duration, error) {
	switch s {
	case "":
		return 0, nil
	case noBound:
		return -1, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errorf(http.StatusBadRequest, CodeInvalid, "%s %q: want a positive Go duration (\"90s\", \"2h\"), none, or nothing for the server's", name, s)
	}
	return d, nil
}

func wireLimits(l policy.Limits) client.Limits {
	return client.Limits{MaxBytes: l.MaxBytes, MaxInodes: l.MaxInodes, MaxExecsPerMinute: l.MaxExecsPerMinute,
		MaxCPUPerDay: wireDuration(l.MaxCPUPerDay), MaxCPUPerExecution: wireDuration(l.MaxCPUPerExecution)}
}

func parseLimits(w client.Limits) (policy.Limits, error) {
	l := policy.Limits{MaxBytes: w.MaxBytes, MaxInodes: w.MaxInodes, MaxExecsPerMinute: w.MaxExecsPerMinute}
	if l.MaxExecsPerMinute < 0 {
		l.MaxExecsPerMinute = -1
	}
	var err error
	if l.MaxCPUPerDay, err = parseLimitDuration("max_cpu_per_day", w.MaxCPUPerDay); err != nil {
		return l, err
	}
	if l.MaxCPUPerExecution, err = parseLimitDuration("max_cpu_per_execution", w.MaxCPUPerExecution); err != nil {
		return l, err
	}
	if err := l.Validate(); err != nil {
		return l, errorf(http.StatusBadRequest, CodeInvalid, "limits: %v", err)
	}
	return l, nil
}

// limitsOf returns workspace ws's own limits (none without a policy store).
func (s *Server) limitsOf(ws string) (policy.Limits, error) { return s.quota.Own(ws) }

// effectiveLimits are own over the server's: the store's from the host,
// the executions' from Options (a negative value: no bound; package
// quota's Effective).
func (s *Server) effectiveLimits(own policy.Limits) policy.Limits {
	e := s.quota.Effective(own)
	b, i := s.host.StoreQuota()
	if e.MaxBytes <= 0 {
		e.MaxBytes = b
	}
	if e.MaxInodes <= 0 {
		e.MaxInodes = i
	}
	return e
}

func (s *Server) limitsInfo(ws string, own policy.Limits) client.LimitsInfo {
	return client.LimitsInfo{Workspace: ws, Limits: wireLimits(own), Effective: wireLimits(s.effectiveLimits(own))}
}

func (s *Server) handleGetLimits(w http.ResponseWriter, r *http.Request, c *call) error {
	own, err := s.limitsOf(c.ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, s.limitsInfo(c.ws, own))
}

func (s *Server) handleSetLimits(w http.ResponseWriter, r *http.Request, c *call) error {
	var req client.Limits
	st, err := workspaceStore(s, w, r, c, s.policyStore, &req)
	if err != nil {
		return err
	}
	l, err := parseLimits(req)
	if err != nil {
		return err
	}
	if err := st.SetLimits(c.ws, l); err != nil {
		return err
	}
	return s.applyLimits(w, c, l)
}

func (s *Server) handleDeleteLimits(w http.ResponseWriter, r *http.Request, c *call) error {
	st, err := workspaceStore(s, w, r, c, s.policyStore, nil)
	if err != nil {
		return err
	}
	if err := st.SetLimits(c.ws, policy.Limits{}); err != nil {
		return err
	}
	return s.applyLimits(w, c, policy.Limits{})
}

// applyLimits gives the open store the quota of own (over the server's)
// and answers with the limits.
func (s *Server) applyLimits(w http.ResponseWriter, c *call, own policy.Limits) error {
	e := s.effectiveLimits(own)
	if err := c.lease.Workspace().FS().SetLimits(e.MaxBytes, e.MaxInodes); err != nil {
		return err
	}
	s.opts.Logger.Info("workspace limits set", "workspace", c.ws, "max_bytes", e.MaxBytes, "max_inodes", e.MaxInodes,
		"max_execs_per_minute", e.MaxExecsPerMinute, "max_cpu_per_day", e.MaxCPUPerDay, "max_cpu_per_execution", e.MaxCPUPerExecution)
	return writeJSON(w, http.StatusOK, s.limitsInfo(c.ws, own))
}

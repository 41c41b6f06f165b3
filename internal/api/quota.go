package api

import (
	"github.com/desk-dev/desk/internal/quota"
)

// Defaults of the execution quotas (Options.MaxExecsPerMinute,
// MaxCPUPerDay, MaxCPUPerExecution): package quota's.
const (
	DefaultMaxExecsPerMinute  = quota.DefaultMaxExecsPerMinute
	DefaultMaxCPUPerDay       = quota.DefaultMaxCPUPerDay
	DefaultMaxCPUPerExecution = quota.DefaultMaxCPUPerExecution
)

// newQuota returns the server's execution quotas (package quota): the
// options' defaults under each workspace's own limits, the day's CPU read
// back from the audit journal. The context of every workspace call carries
// the workspace's (policyContext), so that every execution such a call
// starts — the exec route, the exec tool through the tool route or an MCP
// session served in this process — is counted where it starts (run.Exec),
// gets the workspace's CPU limit per execution, and has its CPU charged to
// the workspace's day when it ends. A refusal wraps run.ErrQuota: 429
// too_many on the API's routes, busy for the tools.
func (s *Server) newQuota() *quota.Counter {
	o := quota.Options{MaxExecsPerMinute: s.opts.MaxExecsPerMinute, MaxCPUPerDay: s.opts.MaxCPUPerDay, MaxCPUPerExecution: s.opts.MaxCPUPerExecution}
	if s.opts.Policy != nil {
		o.Limits = s.opts.Policy.Limits
	}
	if s.opts.Audit != nil {
		o.Journal = s.opts.Audit
	}
	return quota.New(o)
}

package client

import "context"

// Limits are a workspace's own quota values (GET and PUT
// /v1/workspaces/{ws}/limits; docs/api.md, "Limits"). A zero field takes
// the server's value. Durations are Go durations ("90s", "2h"); "none" (or
// a negative number of executions) means no bound.
type Limits struct {
	// MaxBytes is the quota of unique content bytes (EDQUOT past it).
	MaxBytes int64 `json:"max_bytes,omitempty"`
	// MaxInodes bounds the files, directories and symlinks (EDQUOT).
	MaxInodes int64 `json:"max_inodes,omitempty"`
	// MaxExecsPerMinute bounds the executions started per minute (429).
	MaxExecsPerMinute int `json:"max_execs_per_minute,omitempty"`
	// MaxCPUPerDay bounds the executions' CPU time per UTC day (429 for
	// new executions past it).
	MaxCPUPerDay string `json:"max_cpu_per_day,omitempty"`
	// MaxCPUPerExecution bounds one execution's CPU time (shell and js:
	// all its goroutines; the sandbox: its program and descendants, in a
	// cgroup of the execution's own): past it the execution is stopped and ends as cpu-limit (exit code
	// 152).
	MaxCPUPerExecution string `json:"max_cpu_per_execution,omitempty"`
}

// LimitsInfo is a workspace's limits: its own, and those in force (its
// own over the server's).
type LimitsInfo struct {
	Workspace string `json:"workspace"`
	Limits    Limits `json:"limits"`
	Effective Limits `json:"effective"`
}

// GetLimits returns the workspace's limits.
func (c *Client) GetLimits(ctx context.Context, ws string) (LimitsInfo, error) {
	var r LimitsInfo
	err := c.call(ctx, "GET", wsPath(ws, "/limits"), nil, nil, &r)
	return r, err
}

// SetLimits replaces the workspace's own limits (admin); they hold from
// the next write and the next execution on.
func (c *Client) SetLimits(ctx context.Context, ws string, l Limits) (LimitsInfo, error) {
	var r LimitsInfo
	err := c.call(ctx, "PUT", wsPath(ws, "/limits"), nil, l, &r)
	return r, err
}

// DeleteLimits removes the workspace's own limits: the server's hold.
func (c *Client) DeleteLimits(ctx context.Context, ws string) (LimitsInfo, error) {
	var r LimitsInfo
	err := c.call(ctx, "DELETE", wsPath(ws, "/limits"), nil, nil, &r)
	return r, err
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/jsvm"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/sandbox"
	"github.com/desk-dev/desk/internal/workspace"
)

// Defaults of desk serve's fair-share flags (docs/cli.md; the reasons in
// docs/decisions.md, "Fair shares"). A workspace's share is well under the
// server's, so that one workspace at its share leaves room for others; a
// token's is half its workspace's, so that two tokens of a workspace both
// get some.
const (
	defaultMaxSandboxes = 8 // live sandboxes on the server (a workspace has at most one)

	defaultMaxServices         = 32
	defaultMaxServicesPerWS    = 8 // run.DefaultMaxDetached
	defaultMaxServicesPerToken = 4

	defaultMaxShells         = 64 // api.DefaultMaxShells
	defaultMaxShellsPerWS    = 16
	defaultMaxShellsPerToken = 8

	defaultMaxJS         = 32
	defaultMaxJSPerWS    = 8 // jsvm.DefaultMaxConcurrent
	defaultMaxJSPerToken = 4

	defaultMaxExecsPerWS    = 16 // run.DefaultMaxRunning
	defaultMaxExecsPerToken = 8

	defaultServiceLife = deskrun.DefaultDetachedTimeout // 24h
)

// unbounded stands for "no bound" where a lower layer wants a positive
// limit (run's MaxRunning, the js backend's MaxConcurrent).
const unbounded = math.MaxInt32

// fairFlag is one fair-share flag: the bound of kind at scope.
type fairFlag struct {
	name  string
	kind  fair.Kind
	scope fair.Scope
	def   int
	what  string
	v     *int
}

// fairFlags are desk serve's fair-share flags.
type fairFlags struct {
	all         []*fairFlag
	serviceLife *time.Duration
}

// addFairFlags defines the fair-share flags on fl.
func addFairFlags(fl *flag.FlagSet) *fairFlags {
	f := &fairFlags{}
	add := func(name string, k fair.Kind, sc fair.Scope, def int, what string) {
		sf := &fairFlag{name: name, kind: k, scope: sc, def: def, what: what}
		sf.v = fl.Int(name, def, what)
		f.all = append(f.all, sf)
	}
	add("max-sandboxes", fair.Sandbox, fair.ScopeHost, defaultMaxSandboxes, "the most live sandboxes on the server, across all workspaces (each workspace has at most one; an idle one is stopped when another workspace needs its slot; 0: no bound)")
	add("max-services", fair.Service, fair.ScopeHost, defaultMaxServices, "the most services (detached executions) running on the server, across all workspaces (0: no bound)")
	add("max-services-per-workspace", fair.Service, fair.ScopeWorkspace, defaultMaxServicesPerWS, "the most services one workspace runs at once (0: no bound but the server's)")
	add("max-services-per-token", fair.Service, fair.ScopeToken, defaultMaxServicesPerToken, "the most services one workspace token runs at once (the admin token is exempt; 0: no bound but the workspace's)")
	add("max-shells", fair.Shell, fair.ScopeHost, defaultMaxShells, "the most interactive shells open on the server, across all workspaces (0: no bound)")
	add("max-shells-per-workspace", fair.Shell, fair.ScopeWorkspace, defaultMaxShellsPerWS, "the most interactive shells open in one workspace (0: no bound but the server's)")
	add("max-shells-per-token", fair.Shell, fair.ScopeToken, defaultMaxShellsPerToken, "the most interactive shells one workspace token has open (the admin token is exempt; 0: no bound but the workspace's)")
	add("max-js", fair.JS, fair.ScopeHost, defaultMaxJS, "the most js executions running on the server, across all workspaces (0: no bound)")
	add("max-js-per-workspace", fair.JS, fair.ScopeWorkspace, defaultMaxJSPerWS, "the most js executions running in one workspace (0: no bound but the server's)")
	add("max-js-per-token", fair.JS, fair.ScopeToken, defaultMaxJSPerToken, "the most js executions one workspace token runs at once (the admin token is exempt; 0: no bound but the workspace's)")
	add("max-executions-per-workspace", fair.Exec, fair.ScopeWorkspace, defaultMaxExecsPerWS, "the most executions (services apart) running in one workspace, every backend counted (0: no bound)")
	add("max-executions-per-token", fair.Exec, fair.ScopeToken, defaultMaxExecsPerToken, "the most executions (services apart) one workspace token runs at once (the admin token is exempt; 0: no bound but the workspace's)")
	f.serviceLife = fl.Duration("max-service-life", defaultServiceLife, "a service's (detached execution's) longest life: what one that asks for no timeout gets, and the most it may ask for")
	return f
}

// config checks the flags and returns their configuration.
func (f *fairFlags) config() (fairConfig, error) {
	c := fairConfig{
		Limits:      fair.Limits{Workspace: map[fair.Kind]fair.Bound{}, Token: map[fair.Kind]fair.Bound{}},
		Host:        map[fair.Kind]fair.Bound{},
		ServiceLife: *f.serviceLife,
	}
	for _, sf := range f.all {
		if *sf.v < 0 {
			return c, usagef("--%s must not be negative (0: no bound)", sf.name)
		}
		b := fair.Bound{Max: *sf.v, Setting: "--" + sf.name}
		switch sf.scope {
		case fair.ScopeHost:
			c.Host[sf.kind] = b
		case fair.ScopeWorkspace:
			c.Limits.Workspace[sf.kind] = b
		case fair.ScopeToken:
			c.Limits.Token[sf.kind] = b
		}
	}
	if c.ServiceLife <= 0 {
		return c, usagef("--max-service-life must be positive")
	}
	return c, nil
}

// fairConfig is the fair shares of a desk serve: what its front's pool
// bounds (Host) and what every process serving workspaces counts (Limits),
// and a service's longest life. Workers get it as JSON (--fair).
type fairConfig struct {
	Limits      fair.Limits              `json:"limits"`
	Host        map[fair.Kind]fair.Bound `json:"host"`
	ServiceLife time.Duration            `json:"service_life"`
}

// hostKinds are the kinds the server bounds.
func (c fairConfig) hostKinds() []fair.Kind {
	var ks []fair.Kind
	for k, b := range c.Host {
		if b.Max > 0 {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// pool is the host-wide pool of slots for workers (or, without the
// sandbox's bound, which the sandbox backend keeps itself there, for this
// process).
func (c fairConfig) pool(withSandbox bool) *fair.Pool {
	lim := map[fair.Kind]fair.Bound{}
	for k, b := range c.Host {
		if k != fair.Sandbox || withSandbox {
			lim[k] = b
		}
	}
	// Half a sandbox start's bound: an idle sandbox stops well within it,
	// and a refusal that names the bound comes before the start gives up.
	return fair.NewPool(fair.PoolOptions{Limits: lim, ReclaimWait: sandbox.DefaultStartTimeout / 2})
}

// orUnbounded is n, or unbounded for 0.
func orUnbounded(n int) int {
	if n == 0 {
		return unbounded
	}
	return n
}

// setRun leaves the bounding of running executions to the shares (run's
// own limits would refuse without naming the setting, and they count an
// ending execution a moment longer) and sets a service's longest life.
func (c fairConfig) setRun(o *deskrun.Options) {
	o.MaxRunning = unbounded
	o.MaxDetached = unbounded
	if c.ServiceLife > 0 {
		o.DetachedTimeout = c.ServiceLife
	}
}

// admit is the workspaces' Admit: an execution counts as a running
// execution, or a service when detached, and as a js execution on the js
// backend, against its token's, its workspace's and the server's bounds;
// on the sandbox it holds the workspace's sandbox (started if need be), so
// that a sandbox that cannot start refuses it rather than failing it.
func (c fairConfig) admit(l *fair.Ledger, sb *sandbox.Backend) func(context.Context, *workspace.Workspace, deskrun.Admission) (func(), error) {
	return func(ctx context.Context, ws *workspace.Workspace, a deskrun.Admission) (func(), error) {
		kinds := []fair.Kind{fair.Exec}
		if a.Detached {
			kinds[0] = fair.Service
		}
		if a.Backend == jsvm.ID {
			kinds = append(kinds, fair.JS)
		}
		release, err := l.Acquire(ctx, ws.Name(), fair.TokenOf(ctx), kinds...)
		if err != nil {
			return nil, err
		}
		if a.Backend != sandbox.ID || sb == nil {
			return release, nil
		}
		unhold, err := sb.Hold(ctx, sandbox.Workspace{Name: ws.Name(), FS: ws.FS()})
		if err != nil {
			release()
			return nil, sandboxRefusal(sb, err)
		}
		return func() { unhold(); release() }, nil
	}
}

// sandboxRefusal makes the sandbox backend's own bound (MaxSandboxes, the
// server-wide bound without workers, every sandbox busy) the refusal of
// --max-sandboxes, as the host-wide pool's is with workers.
func sandboxRefusal(sb *sandbox.Backend, err error) error {
	if !errors.Is(err, sandbox.ErrTooManySandboxes) {
		return err
	}
	n := sb.Options().MaxSandboxes
	return &fair.LimitError{Kind: fair.Sandbox, Scope: fair.ScopeHost, Held: n, Max: n, Setting: "--max-sandboxes"}
}

// jsConcurrent is the js backend's own bound: the shares bound js, so it
// is no bound.
const jsConcurrent = unbounded

// readSettings applies a --settings file to fl: a JSON object of flag
// names (without dashes) to values, for the flags the command line did not
// set. It is desk serve's configuration file: every flag has an entry of
// the same name.
func readSettings(fl *flag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return usagef("--settings: %v", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return usagef("--settings %s: want a JSON object of flag names to values: %v", path, err)
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	names := slices.Sorted(maps.Keys(m))
	for _, name := range names {
		if name == "settings" || fl.Lookup(name) == nil {
			return usagef("--settings %s: %q is not a flag of desk serve", path, name)
		}
		if set[name] {
			continue // the command line wins
		}
		var v string
		raw := m[name]
		var s string
		var n json.Number
		var bl bool
		switch {
		case json.Unmarshal(raw, &s) == nil:
			v = s
		case json.Unmarshal(raw, &n) == nil:
			v = n.String()
		case json.Unmarshal(raw, &bl) == nil:
			v = strconv.FormatBool(bl)
		default:
			return usagef("--settings %s: %q: want a string, a number or a boolean", path, name)
		}
		if err := fl.Set(name, v); err != nil {
			return usagef("--settings %s: %q: %v", path, name, err)
		}
	}
	return nil
}

// errNoFair is what a worker says when its --fair does not parse.
var errNoFair = errors.New("desk worker: --fair: want the JSON its server gives")

// parseFair reads a worker's --fair.
func parseFair(s string) (fairConfig, error) {
	var c fairConfig
	if s == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("%w: %v", errNoFair, err)
	}
	return c, nil
}

// fairJSON is c as a worker's --fair.
func (c fairConfig) fairJSON() string {
	b, _ := json.Marshal(c)
	return string(b)
}

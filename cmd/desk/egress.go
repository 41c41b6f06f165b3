package main

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/desk-dev/desk/internal/egress"
	deskrun "github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/vfs"
)

// egressFlags are desk serve's (and its workers') egress settings.
type egressFlags struct {
	policy    *string
	maxConns  *int
	bandwidth *int64
}

func addEgressFlags(fl *flag.FlagSet) *egressFlags {
	return &egressFlags{
		policy: fl.String("egress", "none", "the default egress policy of workspaces that have none of their own: none, all, or \"allow RULE; RULE\" "+
			"(a rule: HOST[=ADDR][:PORT,...][/PATH,...][ METHOD,...]; see docs/cli.md)"),
		maxConns:  fl.Int("egress-max-conns", egress.DefaultMaxConns, "the most upstream connections a workspace's executions hold at once"),
		bandwidth: fl.Int64("egress-bandwidth", egress.DefaultBandwidth, "a workspace's egress bandwidth, in bytes per second each way"),
	}
}

// egressConfig is the parsed egress flags.
type egressConfig struct {
	def       egress.Policy
	maxConns  int
	bandwidth int64
}

func (f *egressFlags) config() (egressConfig, error) {
	p, err := egress.Parse(*f.policy)
	if err != nil {
		return egressConfig{}, usagef("--egress: %v", err)
	}
	if *f.maxConns <= 0 || *f.bandwidth <= 0 {
		return egressConfig{}, usagef("--egress-max-conns and --egress-bandwidth must be positive")
	}
	return egressConfig{def: p, maxConns: *f.maxConns, bandwidth: *f.bandwidth}, nil
}

// defaultEgress is the configuration of desk serve's defaults.
func defaultEgress() egressConfig {
	return egressConfig{def: egress.Policy{Mode: egress.None}, maxConns: egress.DefaultMaxConns, bandwidth: egress.DefaultBandwidth}
}

// args passes the settings on to a worker.
func (c egressConfig) args() []string {
	return []string{"--egress", c.def.String(), "--egress-max-conns", strconv.Itoa(c.maxConns), "--egress-bandwidth", strconv.FormatInt(c.bandwidth, 10)}
}

// egressHost gives the executions of a data directory's workspaces their
// network: each workspace has one egress.Network (its limits), each
// execution a Client whose first layer is the workspace's policy (or the
// server's default), then the token's and the execution's from Exec's
// context, with the workspace's secrets.
type egressHost struct {
	cfg   egressConfig
	store *egress.Store
	log   *slog.Logger
	mu    sync.Mutex
	nets  map[string]*egress.Network
	cas   map[string]*egress.CA
}

func newEgressHost(cfg egressConfig, dataDir string, log *slog.Logger) *egressHost {
	return &egressHost{cfg: cfg, store: egress.OpenStore(dataDir), log: log, nets: map[string]*egress.Network{}, cas: map[string]*egress.CA{}}
}

// setRun makes h the runtime's Network, and the backends' (bs.egress:
// the sandbox's shells).
func (h *egressHost) setRun(bs *backendSet) {
	bs.run.Network = h.network
	bs.egress = h
}

func (h *egressHost) network(ctx context.Context, job *deskrun.Job) http.RoundTripper {
	if job.FS == nil {
		return nil
	}
	rt := h.client(ctx, job.FS, job.Env)
	if c, ok := rt.(*egress.Client); ok {
		return c.For(job.ID)
	}
	return rt
}

// client is the network of an execution (or a shell) of the workspace of
// fs, narrowed by ctx's layers; the secrets' placeholders are added to env
// (those it does not set).
func (h *egressHost) client(ctx context.Context, fs *vfs.FS, env map[string]string) http.RoundTripper {
	base := filepath.Base(fs.Path())
	ws := strings.TrimSuffix(base, filepath.Ext(base))
	base0 := egress.Layer{Source: egress.SourceDefault, Policy: h.cfg.def}
	if p, ok, err := h.store.Policy(ws); err != nil {
		h.log.Error("egress: the workspace's policy is unreadable: no network", "workspace", ws, "err", err)
		return nil
	} else if ok {
		base0 = egress.Layer{Source: egress.SourceWorkspace, Policy: p}
	}
	n, err := h.net(ws)
	if err != nil {
		h.log.Error("egress: no network", "workspace", ws, "err", err)
		return nil
	}
	c := n.Client(append([]egress.Layer{base0}, egress.LayersFrom(ctx)...)...)
	secrets, placeholders, err := h.store.Bound(ws)
	if err != nil {
		h.log.Error("egress: the workspace's secrets are unreadable: no network", "workspace", ws, "err", err)
		return nil
	}
	if len(secrets) > 0 {
		ca, err := h.ca(ws)
		if err != nil {
			h.log.Error("egress: the workspace's CA is unusable: no network", "workspace", ws, "err", err)
			return nil
		}
		c = c.WithSecrets(secrets).WithCA(ca)
		for k, v := range placeholders {
			if _, set := env[k]; !set {
				env[k] = v
			}
		}
	}
	return c
}

func (h *egressHost) net(ws string) (*egress.Network, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n, ok := h.nets[ws]; ok {
		return n, nil
	}
	n, err := egress.New(egress.Options{Workspace: ws, MaxConns: h.cfg.maxConns, Bandwidth: h.cfg.bandwidth, Logger: h.log})
	if err != nil {
		return nil, err
	}
	h.nets[ws] = n
	return n, nil
}

// ca returns the workspace's CA, made on first use.
func (h *egressHost) ca(ws string) (*egress.CA, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ca, ok := h.cas[ws]; ok {
		return ca, nil
	}
	ca, err := h.store.CA(ws)
	if err != nil {
		return nil, err
	}
	h.cas[ws] = ca
	return ca, nil
}

package api

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/auth"
	"github.com/desk-dev/desk/internal/mcp"
	"github.com/desk-dev/desk/internal/worker"
)

// registerWorkerMetrics adds the worker pool's counters to reg (a front's
// /metrics; the executions themselves are counted by the workers).
func registerWorkerMetrics(reg *prometheus.Registry, p *worker.Pool) error {
	stat := func(f func(worker.Stats) float64) func() float64 {
		return func() float64 { return f(p.Stats()) }
	}
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "desk_workers_live", Help: "Workspace worker processes alive now."},
			stat(func(s worker.Stats) float64 { return float64(s.Live) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workers_started_total", Help: "Workspace workers started."},
			stat(func(s worker.Stats) float64 { return float64(s.Starts) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workers_exited_total", Help: "Workspace workers that exited when asked (idle, stop)."},
			stat(func(s worker.Stats) float64 { return float64(s.Exits) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workers_crashed_total", Help: "Workspace workers that died unasked (killed, crashed, OOM)."},
			stat(func(s worker.Stats) float64 { return float64(s.Crashes) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workers_oom_kills_total", Help: "Workspace workers killed by the OOM killer in their cgroup."},
			stat(func(s worker.Stats) float64 { return float64(s.OOMKills) })),
		execCollector{p},
	} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// execCollector reports the executions the workers ran, under the names a
// server without workers uses (their counts survive the workers).
type execCollector struct{ p *worker.Pool }

var (
	execsEnded   = prometheus.NewDesc("desk_executions_total", helpExecsEnded, []string{"backend", "status"}, nil)
	execsStarted = prometheus.NewDesc("desk_executions_started_total", helpExecsStarted, []string{"backend"}, nil)
	execsRunning = prometheus.NewDesc("desk_executions_running", helpExecsRunning, []string{"backend"}, nil)
)

func (c execCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- execsEnded
	ch <- execsStarted
	ch <- execsRunning
}

func (c execCollector) Collect(ch chan<- prometheus.Metric) {
	x := c.p.Executions()
	for k, n := range x.Ended {
		ch <- prometheus.MustNewConstMetric(execsEnded, prometheus.CounterValue, float64(n), k.Backend, k.Status)
	}
	for b, n := range x.Started {
		ch <- prometheus.MustNewConstMetric(execsStarted, prometheus.CounterValue, float64(n), b)
	}
	for b, n := range x.Running {
		ch <- prometheus.MustNewConstMetric(execsRunning, prometheus.GaugeValue, float64(n), b)
	}
}

// headerPrincipal carries the principal the front authenticated to the
// worker: base64url of its JSON.
const headerPrincipal = "X-Desk-Principal"

// forward sends a request that uses an open workspace to the workspace's
// worker, with the principal, and copies the answer back (streams, and
// the shell's WebSocket, included).
func (s *Server) forward(w http.ResponseWriter, r *http.Request, c *call) error {
	if _, err := s.host.Info(r.Context(), c.ws); err != nil {
		return err // no worker for a workspace that does not exist
	}
	out := r.Clone(r.Context())
	out.Header.Del("Authorization")
	out.Header.Del(mcp.HeaderElicited) // only the front's own MCP sessions send it (principalTransport)
	if err := setPrincipal(out.Header, c.p); err != nil {
		return err
	}
	var ferr error
	s.opts.Workers.Proxy(w, out, c.ws, func(w http.ResponseWriter, _ *http.Request, err error) { ferr = err })
	if ferr != nil {
		return workerError(ferr)
	}
	c.forwarded = true
	return nil
}

// workerError maps a failure to reach a worker to the API's errors.
func workerError(err error) error {
	switch {
	case errors.Is(err, worker.ErrTooMany):
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "%v: retry later", err)
	case errors.Is(err, worker.ErrClosed):
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is stopping")
	case errors.Is(err, worker.ErrExited):
		return errorf(http.StatusBadGateway, CodeUnavailable, "%v", err)
	}
	return err
}

// setPrincipal writes p into h for the worker, replacing whatever the
// client sent under that name.
func setPrincipal(h http.Header, p auth.Principal) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode principal: %w", err)
	}
	h.Set(headerPrincipal, base64.RawURLEncoding.EncodeToString(b))
	return nil
}

// trusted is a worker's authentication: the request must carry the worker
// key, and then its principal is the one the front wrote.
func (s *Server) trusted(rt route, r *http.Request) (auth.Principal, error) {
	var p auth.Principal
	if !worker.CheckKey(r, s.opts.WorkerKey) {
		return p, fmt.Errorf("%w: not a request from this worker's server", auth.ErrUnauthorized)
	}
	if rt.access == accPublic {
		return p, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(r.Header.Get(headerPrincipal))
	if err == nil {
		err = json.Unmarshal(b, &p)
	}
	if err != nil || (!p.Admin && p.Token == nil) {
		return p, fmt.Errorf("%w: no principal from the front", auth.ErrUnauthorized)
	}
	return p, nil
}

// remoteWorkspace is what a front's MCP session serves: the workspace's
// tools and files through its worker, as principal p.
func (s *Server) remoteWorkspace(p auth.Principal, ws string) mcp.Workspace {
	hc := &http.Client{Transport: &principalTransport{next: s.opts.Workers.Transport(ws), p: p}}
	c, err := client.New("http://worker", "", client.Options{HTTPClient: hc})
	if err != nil {
		panic(err) // a constant URL
	}
	return &mcp.RemoteWorkspace{Client: c, WorkspaceName: ws}
}

// principalTransport adds the principal to each request.
type principalTransport struct {
	next http.RoundTripper
	p    auth.Principal
}

func (t *principalTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Del("Authorization")
	if err := setPrincipal(r.Header, t.p); err != nil {
		return nil, err
	}
	res, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, workerError(err)
	}
	return res, nil
}

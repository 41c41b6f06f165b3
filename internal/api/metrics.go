package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/desk-dev/desk/internal/fair"
	"github.com/desk-dev/desk/internal/host"
)

// metrics are the server's Prometheus collectors.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	execs     *prometheus.CounterVec // ended, by backend and status
	started   *prometheus.CounterVec
	running   *prometheus.GaugeVec
	streaming prometheus.Gauge
}

// The execution counters' help, shared with a front's execCollector.
const (
	helpExecsEnded   = "Executions started through the API that ended, by backend and status."
	helpExecsStarted = "Executions started through the API, by backend."
	helpExecsRunning = "Executions started through the API that are running, by backend."
)

// ExecReporter is told of executions started through the API and of their
// ends (Options.Executions).
type ExecReporter interface {
	ExecStarted(backend string)
	ExecEnded(backend, status string)
}

// newMetrics makes the collectors; uploads reports the PUT bodies being
// received, waiting the PUTs waiting for their turn. execs registers the
// execution counters (a front's come from its workers: execCollector).
func newMetrics(reg *prometheus.Registry, h *host.Host, execs bool, uploads, waiting func() float64) (*metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
		if err := reg.Register(collectors.NewGoCollector()); err != nil {
			return nil, err
		}
		if err := reg.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
			return nil, err
		}
	}
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "desk_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "desk_http_request_duration_seconds", Help: "HTTP request latency by route, method and status (streams: their whole duration).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route", "method", "status"}),
		execs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "desk_executions_total", Help: helpExecsEnded,
		}, []string{"backend", "status"}),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "desk_executions_started_total", Help: helpExecsStarted,
		}, []string{"backend"}),
		running: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "desk_executions_running", Help: helpExecsRunning,
		}, []string{"backend"}),
		streaming: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "desk_http_streams", Help: "Event and change streams open now.",
		}),
	}
	stat := func(f func(host.Stats) float64) func() float64 {
		return func() float64 { return f(h.Stats()) }
	}
	cs := []prometheus.Collector{m.requests, m.latency, m.streaming,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "desk_http_uploads", Help: "PUT bodies being received now (bounded by MaxUploads)."}, uploads),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "desk_http_uploads_waiting", Help: "PUTs waiting for one of the MaxUploads slots."}, waiting),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "desk_workspaces_open", Help: "Workspaces open now."},
			stat(func(s host.Stats) float64 { return float64(s.Open) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "desk_workspaces_in_use", Help: "Open workspaces with users now."},
			stat(func(s host.Stats) float64 { return float64(s.InUse) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workspaces_opened_total", Help: "Workspaces opened."},
			stat(func(s host.Stats) float64 { return float64(s.Opened) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workspaces_hibernated_total", Help: "Workspaces closed when idle."},
			stat(func(s host.Stats) float64 { return float64(s.Hibernated) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "desk_workspaces_evicted_total", Help: "Workspaces closed to make room."},
			stat(func(s host.Stats) float64 { return float64(s.Evicted) })),
	}
	if execs {
		cs = append(cs, m.execs, m.started, m.running)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	st := strconv.Itoa(status)
	m.requests.WithLabelValues(route, method, st).Inc()
	m.latency.WithLabelValues(route, method, st).Observe(d.Seconds())
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request, _ *call) error {
	promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	return nil
}

// slotCollector reports a host-wide pool's slots by kind.
type slotCollector struct{ p *fair.Pool }

var (
	slotsHeld    = prometheus.NewDesc("desk_slots_held", "Host-wide slots held now (fair shares), by kind.", []string{"kind"}, nil)
	slotsIdle    = prometheus.NewDesc("desk_slots_idle", "Of the slots held, reclaimable ones whose resource is idle (a warm sandbox), by kind.", []string{"kind"}, nil)
	slotsWaiting = prometheus.NewDesc("desk_slots_waiting", "Requests waiting for a reclaimed slot, by kind.", []string{"kind"}, nil)
	slotsLimit   = prometheus.NewDesc("desk_slots_limit", "The host-wide bound, by kind (kinds without a bound are not reported).", []string{"kind"}, nil)
)

func (c slotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- slotsHeld
	ch <- slotsIdle
	ch <- slotsWaiting
	ch <- slotsLimit
}

func (c slotCollector) Collect(ch chan<- prometheus.Metric) {
	for _, k := range fair.Kinds {
		n := c.p.Counts(k)
		ch <- prometheus.MustNewConstMetric(slotsHeld, prometheus.GaugeValue, float64(n.Held), string(k))
		ch <- prometheus.MustNewConstMetric(slotsIdle, prometheus.GaugeValue, float64(n.Idle), string(k))
		ch <- prometheus.MustNewConstMetric(slotsWaiting, prometheus.GaugeValue, float64(n.Waiting), string(k))
		if b := c.p.Limit(k); b.Max > 0 {
			ch <- prometheus.MustNewConstMetric(slotsLimit, prometheus.GaugeValue, float64(b.Max), string(k))
		}
	}
}

package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/liveview"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// ops is a node's operations: its logger, its metrics (nil when off) and their listener, and
// its health check.
type ops struct {
	log     *slog.Logger
	metrics *metrics.Metrics // nil: no metrics listener
	reg     *prometheus.Registry
	health  atomic.Pointer[health.Checker] // nil: GET /health answers 200 with an empty body; replaced by a re-fork
	srv     *http.Server                   // the metrics listener's server; nil when off
	ln      net.Listener
}

// startOps creates the node's metrics and opens and serves their listener, when cfg.Metrics
// names one.
func startOps(cfg *Server, logger *slog.Logger) (*ops, error) {
	o := &ops{log: logger}
	if cfg.Metrics == "" {
		return o, nil
	}
	ln, err := net.Listen("tcp", cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", cfg.Metrics, err)
	}
	o.reg = prometheus.NewRegistry()
	o.metrics = metrics.New(o.reg)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(o.reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ErrorHandling:     promhttp.ContinueOnError,
		Registry:          o.reg, // promhttp_metric_handler_errors_total
		EnableOpenMetrics: true,
	}))
	if cfg.PProf {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	o.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
	o.ln = ln
	go func() {
		if err := o.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener stopped", "err", err)
		}
	}()
	attrs := []any{"url", o.metricsURL()}
	if cfg.PProf {
		attrs = append(attrs, "pprof", "http://"+ln.Addr().String()+"/debug/pprof/")
	}
	logger.Info("metrics listening", attrs...)
	return o, nil
}

// metricsURL returns the URL of GET /metrics, "" when metrics are off.
func (o *ops) metricsURL() string {
	if o == nil || o.ln == nil {
		return ""
	}
	return "http://" + o.ln.Addr().String() + "/metrics"
}

// upstream returns the metrics of a fork's upstream requests, nil when metrics are off.
func (o *ops) upstream() *metrics.Upstream {
	if o.reg == nil {
		return nil
	}
	return metrics.NewUpstream(o.reg)
}

// observer returns the rpc.Observer of an endpoint: nil (an untyped nil, so the server
// skips observing) when metrics are off.
func (o *ops) observer(endpoint string) rpc.Observer {
	if o.metrics == nil {
		return nil
	}
	return o.metrics.Endpoint(endpoint)
}

// pages returns the handler of an endpoint's GET requests: /health, the live view for
// browsers at /, and go-ethereum's empty 200 for anything else.
func (o *ops) pages(endpoint string, pending bool) http.Handler {
	live := liveview.New(liveview.Config{Endpoint: endpoint, Pending: pending})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/health" && o.health.Load() != nil:
			o.health.Load().ServeHTTP(w, r)
		case liveview.Wants(r):
			live.ServeHTTP(w, r)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
}

// close stops the metrics listener. A nil ops does nothing.
func (o *ops) close() error {
	if o == nil || o.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	return o.srv.Shutdown(ctx)
}

package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
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
	health  atomic.Pointer[health.Checker] // nil: GET /health answers as any other plain GET; replaced by a re-fork
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
// browsers at /, and for anything else a short text saying what the endpoint is and where the
// live view and metrics are (200, as go-ethereum's health check answers; 404 for /metrics,
// which lives on the metrics listener, so that a scraper pointed here fails visibly).
func (o *ops) pages(endpoint string, pending bool) http.Handler {
	live := liveview.New(liveview.Config{Endpoint: endpoint, Pending: pending})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/health" && o.health.Load() != nil:
			o.health.Load().ServeHTTP(w, r)
		case liveview.Wants(r):
			live.ServeHTTP(w, r)
		default:
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			status := http.StatusOK
			if r.URL.Path == "/metrics" {
				status = http.StatusNotFound
			}
			w.WriteHeader(status)
			fmt.Fprint(w, o.about(endpoint, pending, r.Host, status == http.StatusNotFound))
		}
	})
}

// about is the text a plain GET of an endpoint answers: what it is, where the live view, the
// health check and the metrics are. host is the request's Host header.
func (o *ops) about(endpoint string, pending bool, host string, askedMetrics bool) string {
	var b strings.Builder
	if askedMetrics {
		b.WriteString("No metrics here: the metrics live on their own listener, --metrics.port.\n\n")
	}
	fmt.Fprintf(&b, "flashrpc %s endpoint: JSON-RPC 2.0 over HTTP POST and WebSocket at /.\n", endpoint)
	if pending {
		b.WriteString("The pending tag is the block in progress: the transactions pre-confirmed so far.\n")
	} else {
		b.WriteString("Sealed blocks only: the pending tag is the next block as forecast (the latest sealed state, no transactions).\n")
	}
	fmt.Fprintf(&b, "Live view: open http://%s/ in a browser.\n", host)
	if o.health.Load() != nil {
		fmt.Fprintf(&b, "Health: http://%s/health\n", host)
	}
	if u := o.metricsURL(); u != "" {
		fmt.Fprintf(&b, "Metrics: %s (--metrics.port)\n", u)
	} else {
		b.WriteString("Metrics: off (start with --metrics.port PORT to serve them)\n")
	}
	return b.String()
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

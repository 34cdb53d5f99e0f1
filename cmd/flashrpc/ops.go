package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/flashrpc/flashrpc/internal/health"
	"github.com/flashrpc/flashrpc/internal/liveview"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// opsFlags are the operations flags of every serving command: logs, metrics, profiler.
type opsFlags struct {
	logLevel    string
	logFormat   string
	logRequests bool
	metricsAddr string
	metricsPort optionalPort
	pprof       bool
}

func (f *opsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.logLevel, "log.level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log.format", "text", "log format: text (logfmt key=value lines) or json (one JSON object per line)")
	fs.BoolVar(&f.logRequests, "log.requests", false, "log one line per JSON-RPC call (method, duration, error code) at info level")
	fs.StringVar(&f.metricsAddr, "metrics.addr", "127.0.0.1", "interface of the metrics listener (GET /metrics, Prometheus text format)")
	fs.Var(&f.metricsPort, "metrics.port", "port of the metrics listener; 0 picks a free one (default: no metrics)")
	fs.BoolVar(&f.pprof, "pprof", false, "also serve Go's profiler (/debug/pprof/) on the metrics listener (needs --metrics.port)")
}

// optionalPort is a port flag that is off until set.
type optionalPort struct {
	port int
	set  bool
}

func (p *optionalPort) String() string {
	if p == nil || !p.set {
		return ""
	}
	return strconv.Itoa(p.port)
}

func (p *optionalPort) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("want a port number (0 for any free one), got %q", v)
	}
	p.port, p.set = n, true
	return nil
}

func (f *opsFlags) check() error {
	if f.pprof && !f.metricsPort.set {
		return errors.New("--pprof serves on the metrics listener: give --metrics.port too")
	}
	switch f.logFormat {
	case "text", "json":
		return nil
	}
	return fmt.Errorf("--log.format: %q is not text or json", f.logFormat)
}

// logger returns the logger the flags describe, writing to w.
func (f *opsFlags) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, fmt.Errorf("--log.level: %q is not one of debug, info, warn, error", f.logLevel)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: level}
	if f.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// ops is what the operations flags set up for one node: its logger, its metrics (nil when
// off) and their listener, and its health check.
type ops struct {
	log         *slog.Logger
	logRequests bool
	metrics     *metrics.Metrics // nil: no --metrics.port
	reg         *prometheus.Registry
	health      atomic.Pointer[health.Checker] // nil: GET /health answers 200 with an empty body; replaced by a re-fork
	srv         *http.Server                   // the metrics listener's server; nil when off
	ln          net.Listener
}

// startOps creates the node's metrics and opens and serves their listener, when
// --metrics.port is given.
func (f *opsFlags) startOps(logger *slog.Logger) (*ops, error) {
	o := &ops{log: logger, logRequests: f.logRequests}
	if !f.metricsPort.set {
		return o, nil
	}
	addr := net.JoinHostPort(f.metricsAddr, strconv.Itoa(f.metricsPort.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
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
	if f.pprof {
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
	if f.pprof {
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
func (o *ops) close() {
	if o == nil || o.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	o.srv.Shutdown(ctx)
}

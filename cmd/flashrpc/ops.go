package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
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

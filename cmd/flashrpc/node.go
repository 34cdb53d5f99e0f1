package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// shutdownTimeout bounds how long a clean shutdown waits for requests in flight.
const shutdownTimeout = 5 * time.Second

// endpoint is one listening JSON-RPC server.
type endpoint struct {
	name   string
	server *rpc.Server
	ln     net.Listener
}

// listen opens both endpoints' sockets before anything is served, so a port conflict fails the
// start with a clear message instead of half a node. x brings the logger and the operations
// hooks.
func listen(f *serverFlags, x *ops, standard, preconfirmed *api.API) ([]*endpoint, error) {
	return listenServices(f, x, standard.Service(), preconfirmed.Service())
}

// listenServices is listen for two method tables.
func listenServices(f *serverFlags, x *ops, standard, preconfirmed rpc.Service) ([]*endpoint, error) {
	specs := []struct {
		name    string
		port    int
		svc     rpc.Service
		pending bool
	}{{"standard", f.httpPort, standard, false}, {"pre-confirmed", f.preconfPort, preconfirmed, true}}
	var eps []*endpoint
	for _, s := range specs {
		addr := net.JoinHostPort(f.httpAddr, strconv.Itoa(s.port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			for _, ep := range eps {
				ep.ln.Close()
			}
			return nil, fmt.Errorf("%s endpoint: listen on %s: %w", s.name, addr, err)
		}
		eps = append(eps, &endpoint{name: s.name, server: rpc.NewServer(f.rpcConfig(x, s.name, s.pending), s.svc), ln: ln})
	}
	return eps, nil
}

// url returns the endpoint's HTTP URL.
func (ep *endpoint) url() string { return "http://" + ep.ln.Addr().String() }

// serveUntilSignal serves every endpoint until SIGINT or SIGTERM (or a server failure), then
// shuts them down cleanly: both stop taking connections at once, requests in flight get up
// to shutdownTimeout to finish, and WebSocket connections are closed with status 1001
// (going away), which ends their subscriptions. A stop by signal returns nil even when a
// request outlived the bound (it is cut, and logged): the caller then closes storage and the
// process exits 0.
func serveUntilSignal(logger *slog.Logger, eps []*endpoint) error {
	errc := make(chan error, len(eps))
	for _, ep := range eps {
		go func() {
			if err := ep.server.Serve(ep.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s endpoint: %w", ep.name, err)
			}
		}()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var err error
	select {
	case s := <-sig:
		logger.Info("shutting down", "signal", s.String(), "grace", shutdownTimeout)
	case err = <-errc:
		logger.Error("shutting down", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if serr := ep.server.Shutdown(ctx); serr != nil {
				logger.Warn("requests cut at shutdown", "endpoint", ep.name, "err", serr)
			}
		}()
	}
	wg.Wait()
	return err
}

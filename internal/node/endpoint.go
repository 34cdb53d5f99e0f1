package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// ShutdownTimeout bounds how long a clean shutdown waits for requests in flight.
const ShutdownTimeout = 5 * time.Second

// Endpoint is one listening JSON-RPC server.
type Endpoint struct {
	// Name is "standard" or "pre-confirmed".
	Name   string
	server *rpc.Server
	ln     net.Listener
}

// URL returns the endpoint's HTTP URL.
func (ep *Endpoint) URL() string { return "http://" + ep.ln.Addr().String() }

// Addr returns the address the endpoint listens on.
func (ep *Endpoint) Addr() net.Addr { return ep.ln.Addr() }

// Endpoints are a node's two endpoints, the standard one first. They listen from the start;
// Serve serves them and Shutdown stops them.
type Endpoints []*Endpoint

// Listen opens the standard and pre-confirmed endpoints' sockets for two method tables, as
// every mode does, before anything is served: a port conflict fails the start with a clear
// message instead of half a node. It is for tests that assemble an API themselves; the
// endpoints have no metrics, health or request log beyond cfg.RPC's.
func Listen(cfg Server, standard, preconfirmed rpc.Service) (Endpoints, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = discard
	}
	return listen(&cfg, &ops{log: logger}, standard, preconfirmed)
}

// listen opens both endpoints' sockets; x brings the logger and the operations hooks.
func listen(cfg *Server, x *ops, standard, preconfirmed rpc.Service) (Endpoints, error) {
	specs := []struct {
		name    string
		port    int
		svc     rpc.Service
		pending bool
	}{{"standard", cfg.HTTPPort, standard, false}, {"pre-confirmed", cfg.PreconfPort, preconfirmed, true}}
	var eps Endpoints
	for _, s := range specs {
		addr := net.JoinHostPort(cfg.HTTPAddr, strconv.Itoa(s.port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%s endpoint: listen on %s: %w", s.name, addr, err), eps.closeListeners())
		}
		eps = append(eps, &Endpoint{Name: s.name, server: rpc.NewServer(rpcConfig(cfg, x, s.name, s.pending), s.svc), ln: ln})
	}
	return eps, nil
}

// rpcConfig returns the rpc.Config of one endpoint: cfg's limits, and the operations hooks of
// x (logger, metrics, /health, live view).
func rpcConfig(cfg *Server, x *ops, endpoint string, pending bool) rpc.Config {
	c := cfg.RPC
	c.Logger = x.log.With("endpoint", endpoint)
	c.Observer = x.observer(endpoint)
	c.Pages = x.pages(endpoint, pending)
	return c
}

// closeListeners closes the sockets of endpoints that were never served.
func (eps Endpoints) closeListeners() error {
	var errs []error
	for _, ep := range eps {
		if err := ep.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Serve serves every endpoint in the background. The channel receives a server's failure;
// it is never closed.
func (eps Endpoints) Serve() <-chan error {
	errc := make(chan error, len(eps))
	for _, ep := range eps {
		go func() {
			if err := ep.server.Serve(ep.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s endpoint: %w", ep.Name, err)
			}
		}()
	}
	return errc
}

// Shutdown stops the endpoints cleanly: both stop taking connections at once, requests in
// flight get until ctx ends to finish, and WebSocket connections are closed with status 1001
// (going away), which ends their subscriptions. It returns the endpoints whose requests were
// cut, by error.
func (eps Endpoints) Shutdown(ctx context.Context) error {
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := ep.server.Shutdown(ctx); err != nil {
				errs[i] = fmt.Errorf("%s endpoint: %w", ep.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeWebSockets closes every WebSocket connection of the endpoints with status 1012
// (service restart), giving reason.
func (eps Endpoints) closeWebSockets(reason string) {
	for _, ep := range eps {
		ep.server.CloseWebSockets(reason)
	}
}

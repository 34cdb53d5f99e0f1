package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/flashrpc/flashrpc/internal/node"
)

// serveUntilSignal serves every endpoint until SIGINT or SIGTERM (or a server failure), then
// shuts them down cleanly (node.Endpoints.Shutdown), giving requests in flight up to
// node.ShutdownTimeout. A stop by signal returns nil even when a request outlived the bound
// (it is cut, and logged): the caller then closes the node and the process exits 0.
func serveUntilSignal(logger *slog.Logger, eps node.Endpoints) error {
	errc := eps.Serve()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	var err error
	select {
	case s := <-sig:
		logger.Info("shutting down", "signal", s.String(), "grace", node.ShutdownTimeout)
	case err = <-errc:
		logger.Error("shutting down", "err", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), node.ShutdownTimeout)
	defer cancel()
	if serr := eps.Shutdown(ctx); serr != nil {
		logger.Warn("requests cut at shutdown", "err", serr)
	}
	return err
}

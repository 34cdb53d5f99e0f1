package node

import (
	"log/slog"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/logs"
)

// openLogIndex opens the log index over c and has it follow every new head and rewind (the
// index would notice a rewind by block hash anyway, at the next block or query), unless
// enabled is false; then it returns nil and eth_getLogs scans. Close it before c.
func openLogIndex(enabled bool, c *chain.Chain, logger *slog.Logger) (*logs.Index, error) {
	if !enabled {
		logger.Info("log index disabled: eth_getLogs scans header blooms and receipts")
		return nil, nil
	}
	cfg := logs.IndexConfig{Store: c.LogIndexStore(), Chain: c, Logger: logger.With("component", "logindex")}
	if up := c.Upstream(); up != nil {
		cfg.First = up.Number() + 1 // the blocks below are the upstream's
	}
	ix, err := logs.OpenIndex(cfg)
	if err != nil {
		return nil, err
	}
	c.OnHead(func(chain.HeadEvent) { ix.Notify() })
	c.OnReorg(func(chain.ReorgEvent) { ix.Notify() })
	return ix, nil
}

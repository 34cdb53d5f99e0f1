package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/logs"
)

// GenerateConfig configures Generate: a large, realistic chain of token transfers for
// benchmarks and tests (internal/chaingen).
type GenerateConfig struct {
	// DataDir is the directory generated into: a new chain is created, an existing one
	// extended.
	DataDir string
	// ChainID is the chain id of a new chain.
	ChainID uint64
	// Blocks, Seed, TxsPerBlock, Tokens, Accounts and RareEvery are chaingen.Config's (zero
	// counts: chaingen's defaults).
	Blocks      uint64
	Seed        int64
	TxsPerBlock int
	Tokens      int
	Accounts    int
	RareEvery   int
	// NoIndex skips building the log index (a node builds it when it starts).
	NoIndex bool
	// Log receives the progress lines and the index build's log; nil discards them.
	Log io.Writer
}

// Generate appends cfg.Blocks generated blocks to the chain in cfg.DataDir through the
// chain's bulk path, without executing them (every block keeps the genesis state), then
// builds the log index unless cfg.NoIndex.
func Generate(ctx context.Context, cfg GenerateConfig) error {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	start := time.Now()
	w, err := chain.OpenBulk(chain.Config{DataDir: cfg.DataDir, Genesis: chaingen.Genesis(cfg.ChainID)})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "generating %d blocks into %s after block %d (seed %d)\n", cfg.Blocks, cfg.DataDir, w.Head().Number, cfg.Seed)
	last := time.Now()
	err = chaingen.Generate(ctx, chaingen.Config{
		Blocks: cfg.Blocks, Seed: cfg.Seed, TxsPerBlock: cfg.TxsPerBlock, Tokens: cfg.Tokens,
		Accounts: cfg.Accounts, RareEvery: cfg.RareEvery,
		Progress: func(p chain.ImportProgress) {
			if time.Since(last) >= progressEvery || p.Done == p.Total {
				last = time.Now()
				fmt.Fprintf(log, "generated %d/%d blocks, %.0f blocks/s, ETA %v\n", p.Done, p.Total, p.Rate(), p.ETA().Round(time.Second))
			}
		},
	}, w)
	if err = errors.Join(err, w.Close()); err != nil {
		return err
	}
	fmt.Fprintf(log, "blocks written in %v\n", time.Since(start).Round(time.Millisecond))
	if cfg.NoIndex {
		return nil
	}
	return buildLogIndex(ctx, cfg.DataDir, slog.New(slog.NewTextHandler(log, nil)))
}

// buildLogIndex opens the chain in dataDir and brings its log index up to date, as the node
// does when it starts.
func buildLogIndex(ctx context.Context, dataDir string, logger *slog.Logger) (err error) {
	start := time.Now()
	c, err := fork.Open(ctx, chain.Config{DataDir: dataDir, Logger: logger}, nil)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	ix, err := logs.OpenIndex(logs.IndexConfig{Store: c.LogIndexStore(), Chain: c, Logger: logger})
	if err != nil {
		return err
	}
	defer ix.Close()
	if err := ix.Sync(ctx); err != nil {
		return fmt.Errorf("build log index: %w", err)
	}
	logger.Info("log index built", "head", c.Head().Number, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

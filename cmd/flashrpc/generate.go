package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/logs"
)

type generateOptions struct {
	dataDir     string
	blocks      uint64
	seed        int64
	chainID     uint64
	txsPerBlock int
	tokens      int
	accounts    int
	rareEvery   int
	noIndex     bool
}

func generateFlags(out io.Writer) (*flag.FlagSet, *generateOptions) {
	o := new(generateOptions)
	fs := flag.NewFlagSet("flashrpc generate", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.dataDir, "datadir", "", "directory to generate into (required); a new chain is created, an existing one is extended")
	fs.Uint64Var(&o.blocks, "blocks", 10_000, "blocks to append")
	fs.Int64Var(&o.seed, "seed", 1, "seed of every random choice; the same seed gives the same chain")
	fs.Uint64Var(&o.chainID, "chain-id", chain.DefaultChainID, "chain id of a new chain")
	fs.IntVar(&o.txsPerBlock, "txs-per-block", chaingen.DefaultTxsPerBlock, "mean transactions per block (drawn from 0 to twice this); about 1.5 logs each")
	fs.IntVar(&o.tokens, "tokens", chaingen.DefaultTokens, "token contracts the logs name, Zipf-distributed")
	fs.IntVar(&o.accounts, "accounts", chaingen.DefaultAccounts, "accounts that send and receive tokens, Zipf-distributed")
	fs.IntVar(&o.rareEvery, "rare-every", chaingen.DefaultRareEvery, "mean blocks between two logs of the rare event")
	fs.BoolVar(&o.noIndex, "no-index", false, "do not build the log index (the node builds it when it starts)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: flashrpc generate --datadir DIR [--blocks N] [--seed N] [flags]\n\n"+
			"Generates a large, realistic chain for benchmarks and tests: signed ERC-20-like transactions\n"+
			"whose Transfer, Approval and Swap logs follow a Zipf spread of tokens, pools and accounts,\n"+
			"plus a rare event. Blocks are written through the chain's bulk path without being executed\n"+
			"(every block keeps the genesis state); then the log index is built. Serve the result with\n"+
			"flashrpc serve --datadir DIR.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

// runGenerate generates a chain into a datadir.
func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs, o := generateFlags(helpOutput(args, stdout, stderr))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if o.dataDir == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "flashrpc generate: need --datadir and no arguments")
		fs.Usage()
		return errUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return generateChain(ctx, o, stderr)
}

func generateChain(ctx context.Context, o *generateOptions, log io.Writer) error {
	start := time.Now()
	w, err := chain.OpenBulk(chain.Config{DataDir: o.dataDir, Genesis: chaingen.Genesis(o.chainID)})
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "generating %d blocks into %s after block %d (seed %d)\n", o.blocks, o.dataDir, w.Head().Number, o.seed)
	last := time.Now()
	err = chaingen.Generate(ctx, chaingen.Config{
		Blocks: o.blocks, Seed: o.seed, TxsPerBlock: o.txsPerBlock, Tokens: o.tokens,
		Accounts: o.accounts, RareEvery: o.rareEvery,
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
	if o.noIndex {
		return nil
	}
	return buildLogIndex(ctx, o.dataDir, slog.New(slog.NewTextHandler(log, nil)))
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

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/chaingen"
	"github.com/flashrpc/flashrpc/internal/node"
)

func generateFlags(out io.Writer) (*flag.FlagSet, *node.GenerateConfig) {
	o := new(node.GenerateConfig)
	fs := newFlagSet("flashrpc generate", out, "Usage: flashrpc generate --datadir DIR [--blocks N] [--seed N] [flags]\n\n"+
		"Generates a large, realistic chain for benchmarks and tests: signed ERC-20-like transactions\n"+
		"whose Transfer, Approval and Swap logs follow a Zipf spread of tokens, pools and accounts,\n"+
		"plus a rare event. Blocks are written through the chain's bulk path without being executed\n"+
		"(every block keeps the genesis state); then the log index is built. Serve the result with\n"+
		"flashrpc serve --datadir DIR.\n\nFlags:\n")
	fs.StringVar(&o.DataDir, "datadir", "", "directory to generate into (required); a new chain is created, an existing one is extended")
	fs.Uint64Var(&o.Blocks, "blocks", 10_000, "blocks to append")
	fs.Int64Var(&o.Seed, "seed", 1, "seed of every random choice; the same seed gives the same chain")
	fs.Uint64Var(&o.ChainID, "chain-id", chain.DefaultChainID, "chain id of a new chain")
	fs.IntVar(&o.TxsPerBlock, "txs-per-block", chaingen.DefaultTxsPerBlock, "mean transactions per block (drawn from 0 to twice this); about 1.5 logs each")
	fs.IntVar(&o.Tokens, "tokens", chaingen.DefaultTokens, "token contracts the logs name, Zipf-distributed")
	fs.IntVar(&o.Accounts, "accounts", chaingen.DefaultAccounts, "accounts that send and receive tokens, Zipf-distributed")
	fs.IntVar(&o.RareEvery, "rare-every", chaingen.DefaultRareEvery, "mean blocks between two logs of the rare event")
	fs.BoolVar(&o.NoIndex, "no-index", false, "do not build the log index (the node builds it when it starts)")
	return fs, o
}

// runGenerate generates a chain into a datadir (node.Generate).
func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs, o := generateFlags(helpOutput(args, stdout, stderr))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.DataDir == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "flashrpc generate: need --datadir and no arguments")
		fs.Usage()
		return errUsage
	}
	o.Log = stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return node.Generate(ctx, *o)
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/flashrpc/flashrpc/internal/node"
)

func importFlags(out io.Writer) (*flag.FlagSet, *node.ImportConfig) {
	o := new(node.ImportConfig)
	fs := newFlagSet("flashrpc import", out, "Usage: flashrpc import --datadir DIR --genesis genesis.json [--forkchoice fcu.json] chain.rlp\n\n"+
		"Imports an RLP chain file (blocks back to back, genesis excluded), executing and validating every\n"+
		"block. A file that fails leaves the datadir as it was. Serve the result with flashrpc serve.\n\nFlags:\n")
	fs.StringVar(&o.DataDir, "datadir", "", "directory to import into (required); created when missing")
	fs.StringVar(&o.Genesis, "genesis", "", "genesis file in go-ethereum's format (required for a new datadir; must match an existing one)")
	fs.StringVar(&o.Forkchoice, "forkchoice", "", "engine_forkchoiceUpdated request (JSON) whose head, safe and finalized hashes are set after the import")
	return fs, o
}

// runImport imports a chain file into a datadir (node.Import).
func runImport(args []string, stdout, stderr io.Writer) error {
	fs, o := importFlags(helpOutput(args, stdout, stderr))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.DataDir == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "flashrpc import: need --datadir and exactly one chain file")
		fs.Usage()
		return errUsage
	}
	o.File, o.Log = fs.Arg(0), stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return node.Import(ctx, *o)
}

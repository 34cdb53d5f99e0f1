package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
)

// progressEvery is how often a long import prints a progress line.
const progressEvery = 2 * time.Second

type importOptions struct {
	dataDir    string
	genesis    string
	forkchoice string
	file       string
}

func importFlags(out io.Writer) (*flag.FlagSet, *importOptions) {
	o := new(importOptions)
	fs := flag.NewFlagSet("flashrpc import", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&o.dataDir, "datadir", "", "directory to import into (required); created when missing")
	fs.StringVar(&o.genesis, "genesis", "", "genesis file in go-ethereum's format (required for a new datadir; must match an existing one)")
	fs.StringVar(&o.forkchoice, "forkchoice", "", "engine_forkchoiceUpdated request (JSON) whose head, safe and finalized hashes are set after the import")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: flashrpc import --datadir DIR --genesis genesis.json [--forkchoice fcu.json] chain.rlp\n\n"+
			"Imports an RLP chain file (blocks back to back, genesis excluded), executing and validating every\n"+
			"block. A file that fails leaves the datadir as it was. Serve the result with flashrpc serve.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs, o
}

// runImport imports a chain file into a datadir.
func runImport(args []string, stdout, stderr io.Writer) error {
	fs, o := importFlags(helpOutput(args, stdout, stderr))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if o.dataDir == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "flashrpc import: need --datadir and exactly one chain file")
		fs.Usage()
		return errUsage
	}
	o.file = fs.Arg(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return importChain(ctx, o, stderr)
}

func importChain(ctx context.Context, o *importOptions, log io.Writer) (err error) {
	var genesis *core.Genesis
	if o.genesis != "" {
		genesis = new(core.Genesis)
		if err := readJSON(o.genesis, genesis); err != nil {
			return fmt.Errorf("genesis: %w", err)
		}
	}
	var fcu *forkchoice
	if o.forkchoice != "" {
		if fcu, err = readForkchoice(o.forkchoice); err != nil {
			return err
		}
	}
	f, err := os.Open(o.file)
	if err != nil {
		return err
	}
	defer f.Close()
	blocks, err := chain.DecodeBlocks(f)
	if err != nil {
		return fmt.Errorf("%s: %w", o.file, err)
	}
	_, statErr := os.Stat(o.dataDir)
	created := errors.Is(statErr, os.ErrNotExist)
	defer func() {
		if err != nil && created { // leave no half-made datadir behind
			os.RemoveAll(o.dataDir)
		}
	}()
	c, err := fork.Open(ctx, chain.Config{DataDir: o.dataDir, Genesis: genesis}, nil)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	fmt.Fprintf(log, "importing %d blocks from %s into %s (head block %d)\n", len(blocks), o.file, o.dataDir, c.Head().Number)
	last := time.Now()
	err = c.Import(ctx, blocks, func(p chain.ImportProgress) {
		if time.Since(last) >= progressEvery || p.Done == p.Total {
			last = time.Now()
			fmt.Fprintf(log, "imported %d/%d blocks, %.0f blocks/s, ETA %v\n", p.Done, p.Total, p.Rate(), p.ETA().Round(time.Second))
		}
	})
	if err != nil {
		return err
	}
	if fcu != nil {
		if err := c.SetForkchoice(fcu.Head, fcu.Safe, fcu.Finalized); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "done: head block %d %s\n", c.Head().Number, c.Head().Hash())
	return nil
}

// forkchoice is the state of an engine_forkchoiceUpdated request.
type forkchoice struct {
	Head      common.Hash `json:"headBlockHash"`
	Safe      common.Hash `json:"safeBlockHash"`
	Finalized common.Hash `json:"finalizedBlockHash"`
}

// readForkchoice reads an engine_forkchoiceUpdated JSON-RPC request, or a bare forkchoice
// state object.
func readForkchoice(path string) (*forkchoice, error) {
	var req struct {
		Params []json.RawMessage `json:"params"`
	}
	if err := readJSON(path, &req); err != nil {
		return nil, fmt.Errorf("forkchoice: %w", err)
	}
	fc := new(forkchoice)
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params[0], fc); err != nil {
			return nil, fmt.Errorf("forkchoice %s: params[0]: %w", path, err)
		}
	} else if err := readJSON(path, fc); err != nil {
		return nil, fmt.Errorf("forkchoice: %w", err)
	}
	if fc.Head == (common.Hash{}) {
		return nil, fmt.Errorf("forkchoice %s: no headBlockHash", path)
	}
	return fc, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
)

// progressEvery is how often a long import or generation writes a progress line.
const progressEvery = 2 * time.Second

// ImportConfig configures Import: an RLP chain file imported into a data directory.
type ImportConfig struct {
	// DataDir is the directory imported into; it is created when missing (and removed
	// again when the import fails).
	DataDir string
	// Genesis is the path of a genesis file in go-ethereum's format; "" means the one DataDir
	// holds. A new DataDir needs one; an existing one must match it.
	Genesis string
	// Forkchoice is the path of an engine_forkchoiceUpdated request (or a bare forkchoice
	// state) whose head, safe and finalized hashes are set after the import; "" sets none.
	Forkchoice string
	// File is the path of the chain file: RLP blocks back to back, genesis excluded.
	File string
	// Log receives the progress lines; nil discards them.
	Log io.Writer
}

// Import executes and validates every block of cfg.File and inserts it into the chain in
// cfg.DataDir, then sets the forkchoice cfg.Forkchoice names. A file that fails leaves the
// data directory as it was; a data directory the import created is removed.
func Import(ctx context.Context, cfg ImportConfig) (err error) {
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	var genesis *core.Genesis
	var denim *uint64
	if cfg.Genesis != "" {
		if genesis, denim, err = readGenesisFile(cfg.Genesis); err != nil { // genesisfile.go
			return fmt.Errorf("genesis: %w", err)
		}
	}
	var fcu *forkchoice
	if cfg.Forkchoice != "" {
		if fcu, err = readForkchoice(cfg.Forkchoice); err != nil {
			return err
		}
	}
	f, err := os.Open(cfg.File)
	if err != nil {
		return err
	}
	defer f.Close()
	blocks, err := chain.DecodeBlocks(f)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.File, err)
	}
	_, statErr := os.Stat(cfg.DataDir)
	created := errors.Is(statErr, os.ErrNotExist)
	defer func() {
		if err != nil && created { // leave no half-made datadir behind
			os.RemoveAll(cfg.DataDir)
		}
	}()
	c, err := fork.Open(ctx, chain.Config{DataDir: cfg.DataDir, Genesis: genesis, Denim: denim}, nil)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.Close()) }()
	fmt.Fprintf(log, "importing %d blocks from %s into %s (head block %d)\n", len(blocks), cfg.File, cfg.DataDir, c.Head().Number)
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

// readJSON decodes the JSON file at path into v.
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

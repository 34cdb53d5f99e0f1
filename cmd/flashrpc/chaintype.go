package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// The dev chain's types (--chain-type): the kinds of chain internal/networks knows.
const (
	chainTypeOP = string(networks.OPStack)  // an OP Stack chain configured as Base is (the default)
	chainTypeL1 = string(networks.Ethereum) // a plain Ethereum chain
)

// genesisFileName is where the dev command writes its chain's genesis in the data directory,
// for replicas (`flashrpc follow --genesis`) and other tools.
const genesisFileName = "genesis.json"

// chainFlags are the dev command's flags that shape a new chain or its L1.
type chainFlags struct {
	chainType     string
	gasLimit      uint64  // 0: the chain type's default
	l1BaseFee     weiFlag // OP Stack only
	l1BlobBaseFee weiFlag // OP Stack only
	// given holds the names of the flags set on the command line: only those can conflict
	// with a chain that already exists.
	given map[string]bool
}

func (f *chainFlags) registerChain(fs *flag.FlagSet) {
	fs.StringVar(&f.chainType, "chain-type", chainTypeOP, "chain type of a new dev chain: \"op\", an OP Stack chain configured as Base is (deposits, L1 data fee, predeploys; docs/opstack.md), or \"l1\", a plain Ethereum chain (with --fork-url: the rules of an upstream whose chain id flashrpc does not know)")
	fs.Uint64Var(&f.gasLimit, "gas-limit", 0, fmt.Sprintf("block gas limit of a new dev chain (default %d, Base mainnet's, on an OP Stack chain; %d with --chain-type l1)", oprollup.DefaultGasLimit, chain.DefaultGasLimit))
	f.l1BaseFee.v, f.l1BlobBaseFee.v = new(big.Int).Set(oprollup.DefaultL1BaseFee), new(big.Int).Set(oprollup.DefaultL1BlobBaseFee)
	fs.Var(&f.l1BaseFee, "l1.base-fee", "base fee in wei of the dev L1 the OP Stack chain's L1 data fee is computed from (decimal or 0x hex)")
	fs.Var(&f.l1BlobBaseFee, "l1.blob-base-fee", "blob base fee in wei of the dev L1 (decimal or 0x hex)")
}

// check validates the flags of a command line whose given flags are known.
func (f *chainFlags) checkChain() error {
	if f.chainType != chainTypeOP && f.chainType != chainTypeL1 {
		return fmt.Errorf("--chain-type %q: want %q (OP Stack, as Base) or %q (plain Ethereum)", f.chainType, chainTypeOP, chainTypeL1)
	}
	if f.chainType == chainTypeL1 {
		for _, name := range []string{"l1.base-fee", "l1.blob-base-fee"} {
			if f.given[name] {
				return fmt.Errorf("--%s applies to OP Stack chains only, not to --chain-type l1", name)
			}
		}
	}
	return nil
}

// weiFlag is a flag holding an amount of wei, decimal or 0x hex.
type weiFlag struct{ v *big.Int }

func (w *weiFlag) String() string {
	if w.v == nil {
		return ""
	}
	return w.v.String()
}

func (w *weiFlag) Set(s string) error {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok || v.Sign() < 0 || v.BitLen() > 256 {
		return fmt.Errorf("%q is not an amount of wei (a non-negative decimal or 0x hex number)", s)
	}
	w.v = v
	return nil
}

// devGenesis returns the genesis of a new dev chain as the flags describe it.
func devGenesis(o *devOptions, funded []common.Address) *core.Genesis {
	var g *core.Genesis
	if o.chainType == chainTypeL1 {
		g = chain.DevGenesis(o.chainID, funded)
	} else {
		g = oprollup.DevGenesis(o.chainID, funded, chain.DevAccountBalance)
	}
	if o.gasLimit != 0 {
		g.GasLimit = o.gasLimit
	}
	return g
}

// openDevChain opens the dev chain. A data directory that holds a chain keeps it: its genesis
// decides the chain type, chain id and gas limit, and a flag given on the command line that
// contradicts it is an error. Otherwise a new chain is created from the flags. Either way the
// chain's genesis is written to <datadir>/genesis.json when that file is missing and the
// genesis is known (a new chain, or a stored one the flags reproduce).
func openDevChain(o *devOptions, funded []common.Address, logger *slog.Logger) (*chain.Chain, error) {
	if o.dataDir != "" {
		c, err := fork.Open(context.Background(), chain.Config{DataDir: o.dataDir, CacheMB: o.dbCache, Logger: logger, Impersonation: true, Preimages: true}, nil)
		switch {
		case err == nil:
			if err := adoptStoredChain(c, o, funded); err != nil {
				return nil, errors.Join(err, c.Close())
			}
			if _, err := os.Stat(filepath.Join(c.DataDir(), genesisFileName)); errors.Is(err, os.ErrNotExist) {
				// A datadir from before genesis files: write one when the flags reproduce it.
				if g := devGenesis(o, funded); g.ToBlock().Hash() == c.Genesis().Hash() {
					writeGenesisFile(c.DataDir(), g, false, logger)
				}
			}
			return c, nil
		case !errors.Is(err, chain.ErrNoChain):
			return nil, err
		}
	}
	g := devGenesis(o, funded)
	c, err := chain.Open(chain.Config{DataDir: o.dataDir, Genesis: g, CacheMB: o.dbCache, Logger: logger, Impersonation: true, Preimages: true})
	if err != nil {
		return nil, err
	}
	writeGenesisFile(c.DataDir(), g, true, logger)
	return c, nil
}

// adoptStoredChain checks the flags given on the command line against the chain stored in the
// data directory and sets the options to what the stored chain is.
func adoptStoredChain(c *chain.Chain, o *devOptions, funded []common.Address) error {
	if c.Upstream() != nil {
		return adoptStoredFork(c, o) // fork.go
	}
	cfg, genesis := c.Config(), c.Genesis()
	stored := chainTypeL1
	if oprollup.IsOP(cfg) {
		stored = chainTypeOP
	}
	describe := fmt.Sprintf("the chain in %s (chain id %d, %s)", o.dataDir, cfg.ChainID, chainTypeName(stored))
	switch {
	case o.given["chain-type"] && o.chainType != stored:
		return fmt.Errorf("--chain-type %s conflicts with %s: an existing chain keeps its genesis; use another --datadir", o.chainType, describe)
	case o.given["chain-id"] && o.chainID != cfg.ChainID.Uint64():
		return fmt.Errorf("--chain-id %d conflicts with %s: an existing chain keeps its genesis; use another --datadir", o.chainID, describe)
	case o.given["gas-limit"] && o.gasLimit != genesis.GasLimit():
		return fmt.Errorf("--gas-limit %d conflicts with %s, whose gas limit is %d: an existing chain keeps its genesis; use another --datadir", o.gasLimit, describe, genesis.GasLimit())
	case stored == chainTypeL1 && (o.given["l1.base-fee"] || o.given["l1.blob-base-fee"]):
		return fmt.Errorf("--l1.base-fee and --l1.blob-base-fee apply to OP Stack chains only, and %s is not one", describe)
	}
	if o.given["accounts"] || o.given["mnemonic"] {
		st, err := c.StateAt(genesis.Header())
		if err != nil {
			return fmt.Errorf("read the genesis state of %s: %w", describe, err)
		}
		for i, addr := range funded {
			if st.GetBalance(addr).ToBig().Cmp(chain.DevAccountBalance) != 0 {
				return fmt.Errorf("--accounts/--mnemonic: dev account %d (%s) is not funded in the genesis of %s: an existing chain keeps its genesis; use another --datadir", i, addr, describe)
			}
		}
	}
	o.chainType, o.chainID, o.gasLimit = stored, cfg.ChainID.Uint64(), genesis.GasLimit()
	return nil
}

func chainTypeName(t string) string {
	if t == chainTypeOP {
		return "an OP Stack chain"
	}
	return "a plain Ethereum chain"
}

// writeGenesisFile writes g to dir/genesis.json, atomically; an existing file is kept. A
// failure is logged, not fatal: the chain itself is in the database.
func writeGenesisFile(dir string, g *core.Genesis, created bool, logger *slog.Logger) {
	path := filepath.Join(dir, genesisFileName)
	if _, err := os.Stat(path); err == nil {
		return
	}
	data, err := json.Marshal(g)
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		logger.Warn("cannot write the chain's genesis file", "path", path, "err", err)
		return
	}
	if !created {
		logger.Info("wrote the stored chain's genesis file", "path", path)
	}
}

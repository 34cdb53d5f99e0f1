package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// GenesisFileName is where a dev node writes its chain's genesis in the data directory, for
// replicas (`flashrpc follow --genesis`) and other tools.
const GenesisFileName = "genesis.json"

// devGenesis returns the genesis of a new dev chain as cfg describes it.
func devGenesis(cfg *DevConfig, funded []common.Address) *core.Genesis {
	var g *core.Genesis
	if cfg.ChainType == networks.Ethereum {
		g = chain.DevGenesis(cfg.ChainID, funded)
	} else {
		g = oprollup.DevGenesis(cfg.ChainID, funded, chain.DevAccountBalance)
	}
	if cfg.rules != nil {
		g.Config = cfg.rules
		if op := cfg.rules.Optimism; op != nil {
			// The network's EIP-1559 parameters (Holocene's and Jovian's extraData).
			denominator := op.EIP1559Denominator
			if op.EIP1559DenominatorCanyon != nil {
				denominator = *op.EIP1559DenominatorCanyon
			}
			min := oprollup.MinBaseFee
			g.ExtraData = eip1559.EncodeOptimismExtraData(cfg.rules, 0, denominator, op.EIP1559Elasticity, &min)
		}
	}
	if cfg.GasLimit != 0 {
		g.GasLimit = cfg.GasLimit
	}
	return g
}

// openDevChain opens the dev chain. A data directory that holds a chain keeps it: its genesis
// (or its fork) decides the chain type, chain id and gas limit, and an explicit setting that
// contradicts it is an error. Otherwise a new chain is created from cfg. Either way the
// chain's genesis is written to <datadir>/genesis.json when that file is missing and the
// genesis is known (a new chain, or a stored one cfg reproduces). It returns the chain and
// what it was opened from.
func openDevChain(cfg *DevConfig, funded []common.Address, logger *slog.Logger) (*chain.Chain, chainSpec, error) {
	if cfg.DataDir != "" {
		spec := chainSpec{chain: chain.Config{DataDir: cfg.DataDir, CacheMB: cfg.DBCacheMB, Logger: logger, Impersonation: true, Preimages: true, NoCodeSizeLimit: cfg.NoCodeSizeLimit}}
		c, err := spec.open(context.Background())
		switch {
		case err == nil:
			if err := adoptStored(c, cfg, funded); err != nil {
				return nil, spec, errors.Join(err, c.Close())
			}
			if _, err := os.Stat(filepath.Join(c.DataDir(), GenesisFileName)); errors.Is(err, os.ErrNotExist) {
				// A datadir from before genesis files: write one when cfg reproduces it.
				if g := devGenesis(cfg, funded); g.ToBlock().Hash() == c.Genesis().Hash() {
					writeGenesisFile(c.DataDir(), g, false, logger)
				}
			}
			return c, spec, nil
		case !errors.Is(err, chain.ErrNoChain):
			return nil, spec, err
		}
	}
	g := devGenesis(cfg, funded)
	spec := chainSpec{chain: chain.Config{DataDir: cfg.DataDir, Genesis: g, CacheMB: cfg.DBCacheMB, Logger: logger, Impersonation: true, Preimages: true, NoCodeSizeLimit: cfg.NoCodeSizeLimit}}
	c, err := chain.Open(spec.chain)
	if err != nil {
		return nil, spec, err
	}
	writeGenesisFile(c.DataDir(), g, true, logger)
	return c, spec, nil
}

// adoptStored checks the explicit settings of cfg against the chain stored in the data
// directory (a dev chain, or a fork resumed without a fork URL) and sets cfg to what the
// stored chain is.
func adoptStored(c *chain.Chain, cfg *DevConfig, funded []common.Address) error {
	ccfg, genesis, fk := c.Config(), c.Genesis(), fork.Of(c)
	stored := networks.Ethereum
	if oprollup.IsOP(ccfg) {
		stored = networks.OPStack
	}
	describe := fmt.Sprintf("the chain in %s (chain id %d, %s)", cfg.DataDir, ccfg.ChainID, chainTypeName(stored))
	keeps := ": an existing chain keeps its genesis; use another --datadir"
	if fk != nil {
		info := fk.Info()
		if info.Replica {
			return fmt.Errorf("%s is a remote-state replica's (flashrpc follow --state remote), not a dev chain; use another --datadir", cfg.DataDir)
		}
		describe = fmt.Sprintf("the fork of %s at block %d in %s (chain id %d, %s)", info.URL, info.Number, cfg.DataDir, ccfg.ChainID, chainTypeName(stored))
		keeps = "; use another --datadir"
	}
	x := cfg.Explicit
	switch {
	case x.ChainType && cfg.ChainType != stored:
		return fmt.Errorf("--chain-type %s conflicts with %s%s", cfg.ChainType, describe, keeps)
	case x.ChainID && cfg.ChainID != ccfg.ChainID.Uint64():
		return fmt.Errorf("--chain-id %d conflicts with %s%s", cfg.ChainID, describe, keeps)
	case x.GasLimit && fk != nil:
		return fmt.Errorf("--gas-limit does not apply to %s: a fork keeps the upstream's gas limit", describe)
	case x.GasLimit && cfg.GasLimit != genesis.GasLimit():
		return fmt.Errorf("--gas-limit %d conflicts with %s, whose gas limit is %d%s", cfg.GasLimit, describe, genesis.GasLimit(), keeps)
	case stored == networks.Ethereum && (x.L1BaseFee || x.L1BlobBaseFee):
		return fmt.Errorf("--l1.base-fee and --l1.blob-base-fee apply to OP Stack chains only, and %s is not one", describe)
	}
	if nw := cfg.network; nw != nil && fk == nil {
		if err := nw.Agrees(ccfg); err != nil {
			return fmt.Errorf("--network %s does not describe %s: %w%s", nw.ID, describe, err, keeps)
		}
	}
	if x.Accounts && fk == nil {
		st, err := c.StateAt(genesis.Header())
		if err != nil {
			return fmt.Errorf("read the genesis state of %s: %w", describe, err)
		}
		for i, addr := range funded {
			if st.GetBalance(addr).ToBig().Cmp(chain.DevAccountBalance) != 0 {
				return fmt.Errorf("--accounts/--mnemonic: dev account %d (%s) is not funded in the genesis of %s%s", i, addr, describe, keeps)
			}
		}
	}
	cfg.ChainType, cfg.ChainID = stored, ccfg.ChainID.Uint64()
	if fk == nil {
		cfg.GasLimit = genesis.GasLimit()
	}
	return nil
}

func chainTypeName(k networks.Kind) string {
	if k == networks.OPStack {
		return "an OP Stack chain"
	}
	return "a plain Ethereum chain"
}

// writeGenesisFile writes g to dir/genesis.json, atomically; an existing file is kept. A
// failure is logged, not fatal: the chain itself is in the database.
func writeGenesisFile(dir string, g *core.Genesis, created bool, logger *slog.Logger) {
	path := filepath.Join(dir, GenesisFileName)
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

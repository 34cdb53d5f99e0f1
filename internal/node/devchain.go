package node

import (
	"context"
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

// devGenesis returns the genesis of a new dev chain as cfg describes it. A chain that runs
// Denim (cfg.denim) has BaseTime in its genesis (oprollup.InstallBaseTime); when Denim is
// active from genesis, its gas parameters are the genesis block's (oprollup.DenimGasParams):
// the default gas limit, a 2-second block's, divided by 10 (an explicit --gas-limit is each
// 200 ms block's, as given) and the EIP-1559 denominator multiplied by 10.
func devGenesis(cfg *DevConfig, funded []common.Address) (*core.Genesis, error) {
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
	if cfg.denim == nil {
		return g, nil
	}
	if !oprollup.IsOP(g.Config) {
		return nil, errors.New("Denim runs on an OP Stack chain only")
	}
	if err := oprollup.InstallBaseTime(g.Alloc); err != nil {
		return nil, err
	}
	if *cfg.denim == 0 {
		gasLimit, extra, err := oprollup.DenimGasParams(g.Config, 0, g.GasLimit, g.ExtraData)
		if err != nil {
			return nil, fmt.Errorf("Denim's gas parameters at genesis: %w", err)
		}
		g.ExtraData = extra
		if !cfg.Explicit.GasLimit {
			g.GasLimit = gasLimit
		}
	}
	return g, nil
}

// openDevChain opens the dev chain. A data directory that holds a chain keeps it: its genesis
// (or its fork) decides the chain type, chain id and gas limit, and an explicit setting that
// contradicts it is an error. Otherwise a new chain is created from cfg. Either way the
// chain's genesis is written to <datadir>/genesis.json when that file is missing and the
// genesis is known (a new chain, or a stored one cfg reproduces). It returns the chain and
// what it was opened from.
func openDevChain(cfg *DevConfig, funded []common.Address, logger *slog.Logger) (*chain.Chain, chainSpec, error) {
	if cfg.DataDir != "" {
		spec := chainSpec{chain: chain.Config{DataDir: cfg.DataDir, CacheMB: cfg.DBCacheMB, StateCacheMB: cfg.StateCacheMB, Logger: logger, Impersonation: true, Preimages: true, NoCodeSizeLimit: cfg.NoCodeSizeLimit, StateScheme: cfg.StateScheme, StateHistory: cfg.StateHistory}}
		c, err := spec.open(context.Background())
		switch {
		case err == nil:
			if err := adoptStored(c, cfg, funded); err != nil {
				return nil, spec, errors.Join(err, c.Close())
			}
			if _, err := os.Stat(filepath.Join(c.DataDir(), GenesisFileName)); errors.Is(err, os.ErrNotExist) {
				// A datadir from before genesis files: write one when cfg reproduces it.
				if g, err := devGenesis(cfg, funded); err == nil && g.ToBlock().Hash() == c.Genesis().Hash() {
					writeGenesisFile(c.DataDir(), g, c.Denim(), false, logger)
				}
			}
			return c, spec, nil
		case !errors.Is(err, chain.ErrNoChain):
			return nil, spec, err
		}
	}
	g, err := devGenesis(cfg, funded)
	if err != nil {
		return nil, chainSpec{}, fmt.Errorf("dev genesis: %w", err)
	}
	spec := chainSpec{chain: chain.Config{DataDir: cfg.DataDir, Genesis: g, Denim: cfg.denim, CacheMB: cfg.DBCacheMB, StateCacheMB: cfg.StateCacheMB, Logger: logger, Impersonation: true, Preimages: true, NoCodeSizeLimit: cfg.NoCodeSizeLimit, StateScheme: cfg.StateScheme, StateHistory: cfg.StateHistory}}
	c, err := chain.Open(spec.chain)
	if err != nil {
		return nil, spec, err
	}
	writeGenesisFile(c.DataDir(), g, c.Denim(), true, logger)
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
		if want, have := cfg.denim, c.Denim(); (want == nil) != (have == nil) {
			runs := func(d *uint64) string {
				if d == nil {
					return "does not run Denim"
				}
				return fmt.Sprintf("runs Denim from %d", *d)
			}
			return fmt.Errorf("--network %s does not describe %s: the network %s, the chain %s%s", nw.ID, describe, runs(want), runs(have), keeps)
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
	cfg.ChainType, cfg.ChainID, cfg.denim = stored, ccfg.ChainID.Uint64(), c.Denim()
	if fk == nil {
		cfg.GasLimit = genesis.GasLimit()
	}
	return nil
}

// chainTypeName names a kind of chain in an error: "an OP Stack chain".
func chainTypeName(k networks.Kind) string {
	if k == networks.OPStack {
		return "an OP Stack chain"
	}
	return "a plain Ethereum chain"
}

package networks

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// RulesAsOf returns the configuration of a new local chain with chain id chainID that runs
// n's rules as of time now (`flashrpc dev --network NAME`, and a fork of an upstream no network
// names run with --network): every fork of n active at now is active from genesis (block
// forks at block 0, time forks at time 0, merged from the start on an Ethereum chain, the DAO
// fork's state change left out), and every later fork keeps its time. The result is the
// caller's. It fails with a *NotRunError when a fork flashrpc does not run is active at now
// (a registry chain's Lagoon): a local chain cannot have the network's rules then. A fork
// not run that a local chain may go without (Base's Beryl and Cobalt, their
// Fork.LocalEffect) is left out instead ([Network.LocalOmits] lists them for the warning).
// Denim has no configuration field: [Network.LocalDenim] gives the local chain's time.
func (n Network) RulesAsOf(chainID, now uint64) (*params.ChainConfig, error) {
	if err := n.checkLocal(now); err != nil {
		return nil, fmt.Errorf("rules of %s as of %d: %w", n.ID, now, err)
	}
	cfg := copyConfig(n.Config)
	cfg.ChainID = new(big.Int).SetUint64(chainID)
	for _, f := range forkFields(cfg) {
		switch {
		case f.time != nil && *f.time != nil && **f.time <= now:
			*f.time = genesis()
		case f.block != nil && *f.block != nil:
			*f.block = big.NewInt(0)
		}
	}
	cfg.DAOForkBlock, cfg.DAOForkSupport = nil, false
	if cfg.TerminalTotalDifficulty != nil {
		cfg.TerminalTotalDifficulty = big.NewInt(0)
		cfg.MergeNetsplitBlock = big.NewInt(0)
	}
	if err := cfg.CheckConfigForkOrder(); err != nil {
		return nil, fmt.Errorf("rules of %s as of %d: %w", n.ID, now, err)
	}
	return cfg, nil
}

// checkLocal is [Network.CheckRules] at genesis of a local chain created at now: the forks
// with a Fork.LocalEffect are left out.
func (n Network) checkLocal(now uint64) error {
	return n.checkRules(0, now, func(f Fork) bool { return f.LocalEffect != "" })
}

// LocalOmits returns the network's forks, active at now, that flashrpc does not run and a
// local chain with the network's rules as of now runs without (Fork.LocalEffect says what it
// lacks): `flashrpc dev --network NAME` warns with them. Nil for most networks.
func (n Network) LocalOmits(now uint64) []Fork {
	var omits []Fork
	for _, f := range n.Later {
		if !f.Runs && f.LocalEffect != "" && f.activeAt(0, now) {
			omits = append(omits, f)
		}
	}
	return omits
}

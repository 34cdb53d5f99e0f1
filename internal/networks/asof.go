package networks

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/params"
)

// RulesAsOf returns the configuration of a new local chain with chain id chainID that runs
// n's rules as of time now (`flashrpc dev --network NAME`, and a fork of an upstream no network
// names run with --network): every fork of n active at now is active from genesis (block
// forks at block 0, time forks at time 0, merged from the start on an Ethereum chain, the DAO
// fork's state change left out), and every later fork keeps its time. The result is the
// caller's. It fails with a *NotRunError when a fork flashrpc does not run is active at now
// (Base's Beryl, Cobalt, Denim; a registry chain's Lagoon): a local chain cannot have the
// network's rules then.
func (n Network) RulesAsOf(chainID, now uint64) (*params.ChainConfig, error) {
	if err := n.CheckRules(0, now); err != nil {
		return nil, fmt.Errorf("rules of %s as of %d: %w", n.ID, now, err)
	}
	cfg := copyConfig(n.Config)
	cfg.ChainID = new(big.Int).SetUint64(chainID)
	v := reflect.ValueOf(cfg).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f, field := t.Field(i), v.Field(i)
		switch {
		case strings.HasSuffix(f.Name, "Time") && f.Type == reflect.TypeFor[*uint64]():
			if at := field.Interface().(*uint64); at != nil && *at <= now {
				field.Set(reflect.ValueOf(genesis()))
			}
		case strings.HasSuffix(f.Name, "Block") && f.Type == reflect.TypeFor[*big.Int]():
			if at := field.Interface().(*big.Int); at != nil {
				field.Set(reflect.ValueOf(big.NewInt(0)))
			}
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

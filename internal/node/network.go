package node

import (
	"fmt"
	"time"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// resolveChain checks a dev chain's type and resolves cfg.Network, before anything starts.
// The chain type is OP Stack (not given) or Ethereum; a network's kind is the chain type (an explicit
// other one is refused), its block time, pre-confirmation interval and feed format replace
// those not given (a network that runs Denim keeps them: Denim's cadence is the chain's, set
// once it is known whether the chain runs Denim: denimCadence), and a fork's upstream must be
// of that network or none (Fork.Network). The dev L1's fees apply to an OP Stack chain only.
func resolveChain(cfg *DevConfig) error {
	if cfg.ChainType == "" && !cfg.Explicit.ChainType {
		cfg.ChainType = networks.OPStack
	}
	if cfg.ChainType != networks.OPStack && cfg.ChainType != networks.Ethereum {
		return fmt.Errorf("--chain-type %q: want %q (OP Stack) or %q (plain Ethereum)", cfg.ChainType, networks.OPStack, networks.Ethereum)
	}
	if cfg.Network != "" {
		nw, ok := networks.LookupName(cfg.Network)
		if !ok {
			return networks.UnknownNameError(cfg.Network)
		}
		if cfg.Explicit.ChainType && cfg.ChainType != nw.Kind {
			return fmt.Errorf("--chain-type %s contradicts --network %s, %s", cfg.ChainType, nw.ID, chainTypeName(nw.Kind))
		}
		cfg.ChainType, cfg.network = nw.Kind, &nw
		applyNetworkCadence(cfg, nw)
		if cfg.Fork.URL != "" && cfg.Fork.Network == "" {
			cfg.Fork.Network = nw.ID
		}
	}
	if cfg.ChainType == networks.Ethereum {
		for _, f := range []struct {
			name  string
			given bool
		}{{"l1.base-fee", cfg.Explicit.L1BaseFee}, {"l1.blob-base-fee", cfg.Explicit.L1BlobBaseFee}} {
			if f.given {
				return fmt.Errorf("--%s applies to OP Stack chains only, not to --chain-type l1", f.name)
			}
		}
	}
	return nil
}

// applyNetworkCadence gives cfg the settings of network nw that were not given: its block
// time, pre-confirmation interval and feed format. A network that runs Denim (base-*) keeps
// the cadence given: its 200 ms blocks without pre-confirmations are Denim's, which the chain
// gets only when it runs Denim (a fork of a block before Denim seals 2 s blocks with
// pre-confirmations, as Base did then).
func applyNetworkCadence(cfg *DevConfig, nw networks.Network) {
	if _, denim := nw.DenimTime(); !denim {
		if !cfg.Explicit.BlockTime {
			cfg.BlockTime = nw.BlockTime
		}
		if !cfg.Explicit.PreconfInterval {
			cfg.PreconfInterval = nw.PreconfInterval
		}
	}
	if !cfg.Explicit.FeedFormat && nw.PreconfInterval > 0 {
		cfg.Feed.Format = nw.Feed
	}
}

// newChainRules gives a new chain named after a network (not a fork: a fork has its
// upstream's rules) the network's rules as of now, its Denim and the forks it runs without,
// Denim's cadence when it runs Denim, and its genesis gas limit unless one is given.
func newChainRules(cfg *DevConfig, now time.Time) error {
	nw := cfg.network
	if nw == nil || cfg.Fork.URL != "" {
		return nil
	}
	chainID := cfg.ChainID
	if chainID == 0 {
		chainID = chain.DefaultChainID
	}
	rules, err := nw.LocalRules(chainID, uint64(now.Unix()))
	if err != nil {
		return err
	}
	cfg.rules = rules
	cfg.denim, cfg.omits = nw.LocalDenim(uint64(now.Unix())), nw.LocalOmits(uint64(now.Unix()))
	if err := denimCadence(cfg, cfg.denim); err != nil {
		return err
	}
	if cfg.GasLimit == 0 {
		cfg.GasLimit = nw.GasLimit
	}
	return nil
}

// denimCadence gives a chain that runs Denim from denim (Base's 200 ms blocks; nil: it does
// not) Base's cadence since then: a block every 200 ms unless a block time was given, and no
// pre-confirmations, which an explicit interval contradicts. StartDev calls it for a new
// chain's network before creating it, and for the chain it opened, whose Denim a datadir
// keeps (chain.Chain.Denim), with or without --network.
func denimCadence(cfg *DevConfig, denim *uint64) error {
	if denim == nil {
		return nil
	}
	if cfg.Explicit.PreconfInterval && cfg.PreconfInterval != 0 {
		what := "the chain"
		if cfg.Network != "" {
			what = "--network " + cfg.Network
		}
		return fmt.Errorf("--preconf-interval %s: %s runs Denim, Base's 200 ms blocks, and Base publishes no pre-confirmations since Denim: every block is sealed at once (leave --preconf-interval out; --block-time sets the block time)", cfg.PreconfInterval, what)
	}
	cfg.PreconfInterval = 0
	if !cfg.Explicit.BlockTime {
		cfg.BlockTime = networks.DenimBlockTime
	}
	return nil
}

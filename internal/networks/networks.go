package networks

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/superchain"
)

// Kind says which rules a chain runs.
type Kind string

// The kinds of chain flashrpc knows.
const (
	// Ethereum is an Ethereum chain (mainnet, a testnet, a devnet).
	Ethereum Kind = "l1"
	// OPStack is an OP Stack chain (Base, OP Mainnet, …).
	OPStack Kind = "op"
)

// Network is a known chain: its name, kind and fork configuration.
type Network struct {
	// Name is the chain's name ("Base", "OP Mainnet", "Ethereum mainnet").
	Name string
	// Kind says whether it is an Ethereum or an OP Stack chain.
	Kind Kind
	// Source says where the configuration comes from: go-ethereum's params, op-geth's
	// superchain registry or flashrpc's own data (base.go).
	Source string
	// Config is the chain's configuration, its whole fork schedule. It is the network's own:
	// callers copy it (ForkRules does) before changing it.
	Config *params.ChainConfig
}

// ethereumNetworks are go-ethereum's built-in Ethereum chains.
var ethereumNetworks = map[uint64]Network{
	1:        {Name: "Ethereum mainnet", Kind: Ethereum, Source: "go-ethereum params", Config: params.MainnetChainConfig},
	11155111: {Name: "Sepolia", Kind: Ethereum, Source: "go-ethereum params", Config: params.SepoliaChainConfig},
	17000:    {Name: "Holesky", Kind: Ethereum, Source: "go-ethereum params", Config: params.HoleskyChainConfig},
	560048:   {Name: "Hoodi", Kind: Ethereum, Source: "go-ethereum params", Config: params.HoodiChainConfig},
}

// Lookup returns the known network with chainID: go-ethereum's built-in Ethereum chains,
// Base mainnet and Base Sepolia (base.go), and the OP Stack chains of op-geth's superchain
// registry.
func Lookup(chainID uint64) (Network, bool) {
	if n, ok := ethereumNetworks[chainID]; ok {
		return n, true
	}
	if n, ok := baseNetworks[chainID]; ok {
		return n, true
	}
	ch, err := superchain.GetChain(chainID)
	if err != nil {
		return Network{}, false
	}
	cfg, err := ch.Config()
	if err != nil {
		return Network{}, false
	}
	config, err := params.LoadOPStackChainConfig(cfg)
	if err != nil {
		return Network{}, false
	}
	return Network{Name: ch.Name, Kind: OPStack, Source: "op-geth superchain registry " + superchain.EmbeddedRegistryCommit(), Config: config}, true
}

// ForkRules returns the configuration a fork of the chain chainID runs when it continues from
// a block at number and time: the known network's, or for an unknown chain the current rules
// of its kind (kind "" means Ethereum: [CurrentEthereum]; OP Stack: the rules of flashrpc's OP
// Stack dev chain, [DevOPStack]), with every fork the network schedules after that block
// turned off, so the fork keeps the rules of the block it continues (local blocks carry wall
// clock times: a fork scheduled later would switch on without the upgrade it needs). chainID
// sets the configuration's chain id (--chain-id may differ from the upstream's); upstreamID
// selects the network. The result is a new configuration the caller owns.
func ForkRules(upstreamID, chainID uint64, kind Kind, number, time uint64) (*params.ChainConfig, Network, error) {
	n, known := Lookup(upstreamID)
	switch {
	case known && kind != "" && kind != n.Kind:
		return nil, n, fmt.Errorf("chain %d is %s, an %s chain, not --chain-type %s", upstreamID, n.Name, kindName(n.Kind), kind)
	case !known && (kind == "" || kind == Ethereum):
		n = Network{Name: fmt.Sprintf("chain %d", upstreamID), Kind: Ethereum, Source: "current Ethereum rules (unknown chain id)", Config: CurrentEthereum(upstreamID)}
	case !known && kind == OPStack:
		n = Network{Name: fmt.Sprintf("chain %d", upstreamID), Kind: OPStack, Source: "current OP Stack rules (unknown chain id): flashrpc's dev chain's", Config: DevOPStack(upstreamID)}
	case !known:
		return nil, n, fmt.Errorf("unknown --chain-type %q (want l1 or op)", kind)
	}
	cfg := copyConfig(n.Config)
	cfg.ChainID = new(big.Int).SetUint64(chainID)
	turnOffAfter(cfg, number, time)
	if err := cfg.CheckConfigForkOrder(); err != nil {
		return nil, n, fmt.Errorf("rules of %s: %w", n.Name, err)
	}
	return cfg, n, nil
}

func kindName(k Kind) string {
	if k == OPStack {
		return "OP Stack"
	}
	return "Ethereum"
}

// copyConfig returns a copy of cfg whose pointer fields may be replaced (not modified).
func copyConfig(cfg *params.ChainConfig) *params.ChainConfig {
	cp := *cfg
	if cfg.Optimism != nil {
		op := *cfg.Optimism
		cp.Optimism = &op
	}
	return &cp
}

// turnOffAfter removes every fork of cfg scheduled after the block at number and time: block
// forks above number and time forks after time. TerminalTotalDifficulty stays.
func turnOffAfter(cfg *params.ChainConfig, number, time uint64) {
	v := reflect.ValueOf(cfg).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f, field := t.Field(i), v.Field(i)
		switch {
		case strings.HasSuffix(f.Name, "Time") && f.Type == reflect.TypeFor[*uint64]():
			if at := field.Interface().(*uint64); at != nil && *at > time {
				field.SetZero()
			}
		case strings.HasSuffix(f.Name, "Block") && f.Type == reflect.TypeFor[*big.Int]():
			if at := field.Interface().(*big.Int); at != nil && at.Cmp(new(big.Int).SetUint64(number)) > 0 {
				field.SetZero()
			}
		}
	}
}

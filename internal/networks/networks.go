package networks

import (
	"fmt"
	"math/big"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/superchain"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
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

// Network is a known chain: its names, kind, fork configuration and cadence.
type Network struct {
	// ID is the network's name on the command line (--network) and in `flashrpc networks`:
	// go-ethereum's for Ethereum chains (mainnet, sepolia, …), the registry's
	// <chain>-<network> for OP Stack chains (op-mainnet, unichain-sepolia, …), base-mainnet
	// and base-sepolia.
	ID string
	// Name is the chain's name for people ("Base", "OP Mainnet", "Ethereum mainnet").
	Name string
	// ChainID is the chain's id.
	ChainID uint64
	// Kind says whether it is an Ethereum or an OP Stack chain.
	Kind Kind
	// Source says where the configuration comes from: go-ethereum's params, op-geth's
	// superchain registry (with its commit) or flashrpc's own data (base.go).
	Source string
	// Config is the chain's configuration, its whole fork schedule. It is the network's own:
	// callers copy it (ForkRules does) before changing it.
	Config *params.ChainConfig
	// Later lists the network's forks that Config has no field for (Base's own), in order,
	// each with whether flashrpc runs it; nil for most networks. The slice is shared.
	Later []Fork
	// BlockTime is the time between blocks.
	BlockTime time.Duration
	// PreconfInterval is the time between pre-confirmations; zero when the network publishes
	// none flashrpc can read (no feed: Feed is then the zero value, and means nothing).
	PreconfInterval time.Duration
	// Feed is the wire format of the network's pre-confirmation feed.
	Feed flashblocks.Format
	// GasLimit is the block gas limit at the chain's genesis, as the registry records it (an
	// OP Stack chain's live limit comes from L1 and every block carries it); zero when
	// flashrpc does not know it (Base, Ethereum chains).
	GasLimit uint64
}

// ethereumNetworks are go-ethereum's built-in Ethereum chains, 12 s blocks, no
// pre-confirmations.
var ethereumNetworks = map[uint64]Network{
	1:        ethereumNetwork("mainnet", "Ethereum mainnet", params.MainnetChainConfig),
	11155111: ethereumNetwork("sepolia", "Sepolia", params.SepoliaChainConfig),
	17000:    ethereumNetwork("holesky", "Holesky", params.HoleskyChainConfig),
	560048:   ethereumNetwork("hoodi", "Hoodi", params.HoodiChainConfig),
}

func ethereumNetwork(id, name string, cfg *params.ChainConfig) Network {
	return Network{ID: id, Name: name, ChainID: cfg.ChainID.Uint64(), Kind: Ethereum, Source: "go-ethereum params",
		Config: cfg, BlockTime: 12 * time.Second}
}

// registryCadence holds what the superchain registry does not say about a chain: its
// pre-confirmation interval and feed (shared/reference/networks-2026.md §4). World Chain
// pre-confirms every 200 ms, but over a devp2p subprotocol flashrpc cannot read: it is listed
// without a feed.
var registryCadence = map[string]struct {
	interval time.Duration
	feed     flashblocks.Format
}{
	"op-mainnet":       {250 * time.Millisecond, flashblocks.FormatSubblocks},
	"op-sepolia":       {250 * time.Millisecond, flashblocks.FormatSubblocks},
	"unichain-mainnet": {200 * time.Millisecond, flashblocks.FormatBase},
	"unichain-sepolia": {200 * time.Millisecond, flashblocks.FormatBase},
}

// registry returns the OP Stack chains of op-geth's embedded superchain registry by chain id,
// each with Karst's rules added (withKarst). A chain whose configuration does not load is
// left out. Loaded once; the networks are shared.
var registry = sync.OnceValue(func() map[uint64]Network {
	source := "op-geth superchain registry " + superchain.EmbeddedRegistryCommit()
	out := make(map[uint64]Network, len(superchain.Chains))
	for id, ch := range superchain.Chains {
		cfg, err := ch.Config()
		if err != nil {
			continue
		}
		config, err := params.LoadOPStackChainConfig(cfg)
		if err != nil {
			continue
		}
		withKarst(config)
		key := ch.Name + "-" + ch.Network
		cadence := registryCadence[key] // none: no pre-confirmations flashrpc can read
		out[id] = Network{ID: key, Name: cfg.Name, ChainID: id, Kind: OPStack, Source: source, Config: config,
			BlockTime: time.Duration(cfg.BlockTime) * time.Second, PreconfInterval: cadence.interval, Feed: cadence.feed,
			GasLimit: cfg.Genesis.SystemConfig.GasLimit}
	}
	return out
})

// withKarst turns Osaka on with Karst on an OP Stack configuration that schedules Karst and
// not Osaka (op-geth copies karst_time without turning Osaka on): Karst is Osaka's execution
// EIPs on L2, which go-ethereum's Osaka code brings (CLZ, the EIP-7825 gas cap with deposits
// exempt), internal/oprollup adding the precompiles and the bn256Pairing cap op-geth lacks.
func withKarst(cfg *params.ChainConfig) {
	if cfg.IsOptimism() && cfg.KarstTime != nil && cfg.OsakaTime == nil {
		cfg.OsakaTime = clone(cfg.KarstTime)
	}
}

// WithKarst returns cfg with Karst's rules turned on as flashrpc runs them (OsakaTime =
// KarstTime on an OP Stack chain that schedules Karst without Osaka, as op-geth's registry
// and a registry chain's genesis file do); any other configuration is returned as it is. A
// configuration read from a genesis file goes through it before a chain opens with it. The
// result is a copy when it differs from cfg.
func WithKarst(cfg *params.ChainConfig) *params.ChainConfig {
	if cfg == nil || !cfg.IsOptimism() || cfg.KarstTime == nil || cfg.OsakaTime != nil {
		return cfg
	}
	cp := copyConfig(cfg)
	withKarst(cp)
	return cp
}

// Lookup returns the known network with chainID: go-ethereum's built-in Ethereum chains,
// Base mainnet and Base Sepolia (base.go), and the OP Stack chains of op-geth's superchain
// registry (with Karst's rules from their karst_time).
func Lookup(chainID uint64) (Network, bool) {
	if n, ok := ethereumNetworks[chainID]; ok {
		return n, true
	}
	if n, ok := baseNetworks[chainID]; ok {
		return n, true
	}
	n, ok := registry()[chainID]
	return n, ok
}

// LookupName returns the known network whose ID is name (--network NAME).
func LookupName(name string) (Network, bool) {
	for _, n := range All() {
		if n.ID == name {
			return n, true
		}
	}
	return Network{}, false
}

// All returns every network flashrpc knows: go-ethereum's Ethereum chains (by chain id),
// then the OP Stack chains, Base's and the registry's, by ID. The slice is the caller's; the
// networks' configurations are shared.
func All() []Network {
	var l1, op []Network
	for _, n := range ethereumNetworks {
		l1 = append(l1, n)
	}
	for _, n := range baseNetworks {
		op = append(op, n)
	}
	for _, n := range registry() {
		op = append(op, n)
	}
	sort.Slice(l1, func(i, j int) bool { return l1[i].ChainID < l1[j].ChainID })
	sort.Slice(op, func(i, j int) bool { return op[i].ID < op[j].ID })
	return slices.Concat(l1, op)
}

// ForkRules returns the configuration a fork of the chain chainID runs when it continues from
// a block at number and time: the known network's, or for an unknown chain the current rules
// of its kind (kind "" means Ethereum: [CurrentEthereum]; OP Stack: the rules of flashrpc's OP
// Stack dev chain, [DevOPStack]), with every fork the network schedules after that block
// turned off, so the fork keeps the rules of the block it continues (local blocks carry wall
// clock times: a fork scheduled later would switch on without the upgrade it needs). chainID
// sets the configuration's chain id (--chain-id may differ from the upstream's); upstreamID
// selects the network. The result is a new configuration the caller owns. It does not check
// that flashrpc runs every fork active at the block: the caller does ([Network.CheckRules]).
func ForkRules(upstreamID, chainID uint64, kind Kind, number, time uint64) (*params.ChainConfig, Network, error) {
	n, known := Lookup(upstreamID)
	switch {
	case known && kind != "" && kind != n.Kind:
		return nil, n, fmt.Errorf("chain %d is %s, an %s chain, not --chain-type %s", upstreamID, n.Name, kindName(n.Kind), kind)
	case !known && (kind == "" || kind == Ethereum):
		n = Network{Name: fmt.Sprintf("chain %d", upstreamID), ChainID: upstreamID, Kind: Ethereum, Source: "current Ethereum rules (unknown chain id)", Config: CurrentEthereum(upstreamID)}
	case !known && kind == OPStack:
		n = Network{Name: fmt.Sprintf("chain %d", upstreamID), ChainID: upstreamID, Kind: OPStack, Source: "current OP Stack rules (unknown chain id): flashrpc's dev chain's", Config: DevOPStack(upstreamID)}
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
	for _, f := range forkFields(cfg) {
		switch {
		case f.time != nil && *f.time != nil && **f.time > time:
			*f.time = nil
		case f.block != nil && *f.block != nil && (*f.block).Cmp(new(big.Int).SetUint64(number)) > 0:
			*f.block = nil
		}
	}
}

// ForUpstream returns the network whose rules a fork or replica of an upstream with chain id
// upstreamID runs when --network is name ("" when not given): the upstream's own network when
// its chain id is a known one (a name that is another network's is refused, the error naming
// both), else the network name names. known is false when neither says (an unknown upstream
// without --network: the caller runs its default rules). A name that is no network's is
// refused.
func ForUpstream(upstreamID uint64, name string) (n Network, known bool, err error) {
	var named Network
	if name != "" {
		var ok bool
		if named, ok = LookupName(name); !ok {
			return Network{}, false, fmt.Errorf("--network %s: no such network (flashrpc networks lists them)", name)
		}
	}
	if up, ok := Lookup(upstreamID); ok {
		if name != "" && named.ChainID != up.ChainID {
			return Network{}, false, fmt.Errorf("--network %s (chain id %d) disagrees with the upstream, whose chain id %d is %s", name, named.ChainID, upstreamID, up.ID)
		}
		return up, true, nil
	}
	return named, name != "", nil
}

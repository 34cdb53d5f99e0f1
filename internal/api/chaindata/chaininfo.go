package chaindata

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/forkid"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/params/forks"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Methods that describe the chain's rules and what the node keeps: eth_baseFee, eth_config
// (EIP-7910) and eth_capabilities (execution-apis #755).

// BaseFee is the base fee of the next block: on the pre-confirmed endpoint the block in
// progress's, else the one after the sealed head (go-ethereum v1.17's eth_baseFee); null
// before London.
func (a *API) BaseFee(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	if v.Pending == nil && !a.ChainConfig.IsLondon(new(big.Int).Add(v.Latest.Number, common.Big1)) {
		return core.Null, nil
	}
	fee := a.nextBaseFee(v)
	if fee == nil {
		return core.Null, nil
	}
	return json.RawMessage(ethjson.AppendBig(nil, fee)), nil
}

// forkConfig is one fork's entry of eth_config, go-ethereum's shape.
type forkConfig struct {
	ActivationTime  uint64                    `json:"activationTime"`
	BlobSchedule    *params.BlobConfig        `json:"blobSchedule"`
	ChainID         *hexutil.Big              `json:"chainId"`
	ForkID          hexutil.Bytes             `json:"forkId"`
	Precompiles     map[string]common.Address `json:"precompiles"`
	SystemContracts map[string]common.Address `json:"systemContracts"`
}

type configResult struct {
	Current *forkConfig `json:"current"`
	Next    *forkConfig `json:"next"`
	Last    *forkConfig `json:"last"`
}

// EthConfig answers eth_config (EIP-7910) as go-ethereum does, for the fork active at the view's
// head, the next scheduled one and the last one (both null when no fork is scheduled). The
// forks are the chain configuration's time-based ones (timeForks): Ethereum's, and on an OP
// Stack chain the OP Stack's too, so a chain whose next fork is an OP Stack one reports it. The
// precompiles are those the EVM runs at each fork (exec.Precompiles), by name.
func (a *API) EthConfig(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	genesis := a.Chain.Genesis()
	times := timeForks(a.ChainConfig)
	now := v.Latest.Time
	var res configResult
	for _, t := range times {
		if t <= now {
			res.Current = a.forkConfig(genesis, t)
			continue
		}
		res.Next = a.forkConfig(genesis, t)
		res.Last = a.forkConfig(genesis, times[len(times)-1])
		break
	}
	return res, nil
}

// forkConfig describes the rules from time t on.
func (a *API) forkConfig(genesis *types.Block, t uint64) *forkConfig {
	c := a.ChainConfig
	rules := c.Rules(c.LondonBlock, true, t)
	precompiles := make(map[string]common.Address)
	for addr, pc := range exec.Precompiles(c, rules) {
		precompiles[pc.Name()] = addr
	}
	activation := t
	if genesis.Time() >= t {
		activation = 0
	}
	var blobs *params.BlobConfig
	if c.BlobScheduleConfig != nil { // op-geth's BlobConfig reads it without a check
		blobs = c.BlobConfig(c.LatestFork(t))
	}
	id := forkid.NewID(c, genesis, ^uint64(0), t).Hash
	return &forkConfig{
		ActivationTime:  activation,
		BlobSchedule:    blobs,
		ChainID:         (*hexutil.Big)(c.ChainID),
		ForkID:          id[:],
		Precompiles:     precompiles,
		SystemContracts: c.ActiveSystemContracts(t),
	}
}

// timeForks returns the distinct activation times of config's time-based forks, in order:
// Ethereum's from Shanghai on and, on an OP Stack chain, the OP Stack's from Regolith on.
func timeForks(c *params.ChainConfig) []uint64 {
	var times []uint64
	for f := forks.Shanghai; f <= forks.BPO5; f++ {
		if t := c.Timestamp(f); t != nil {
			times = append(times, *t)
		}
	}
	if c.AmsterdamTime != nil {
		times = append(times, *c.AmsterdamTime)
	}
	if c.Optimism != nil {
		for _, t := range []*uint64{c.RegolithTime, c.CanyonTime, c.EcotoneTime, c.FjordTime, c.GraniteTime,
			c.HoloceneTime, c.IsthmusTime, c.JovianTime, c.KarstTime, c.LagoonTime} {
			if t != nil {
				times = append(times, *t)
			}
		}
	}
	slices.Sort(times)
	return slices.Compact(times)
}

// capabilityRange is one resource of eth_capabilities.
type capabilityRange struct {
	Disabled    bool           `json:"disabled"`
	OldestBlock hexutil.Uint64 `json:"oldestBlock"`
}

type capabilitiesResult struct {
	Head struct {
		Number hexutil.Uint64 `json:"number"`
		Hash   common.Hash    `json:"hash"`
	} `json:"head"`
	State       capabilityRange `json:"state"`
	Tx          capabilityRange `json:"tx"`
	Logs        capabilityRange `json:"logs"`
	Receipts    capabilityRange `json:"receipts"`
	Blocks      capabilityRange `json:"blocks"`
	StateProofs capabilityRange `json:"stateproofs"`
}

// Capabilities answers eth_capabilities: the node keeps every block, transaction index entry,
// receipt, log and state from genesis on (archive, never pruned), so every resource is
// available from block 0 with no deletion window; eth_getLogs works without the log index too
// (it scans), so logs are never disabled.
func (a *API) Capabilities(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 0); err != nil {
		return nil, err
	}
	var res capabilitiesResult
	res.Head.Number = hexutil.Uint64(v.Latest.Number.Uint64())
	res.Head.Hash = v.Latest.Hash()
	return res, nil
}

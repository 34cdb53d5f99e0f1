package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/devapi"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// recordingUpstream is a core.Upstream that records what each method was registered with.
type recordingUpstream struct{ reads map[string]core.Reads }

func (u *recordingUpstream) Route(name string, r core.Reads, m rpc.Method, _ func(common.Hash) bool) rpc.Method {
	u.reads[name] = r
	return m
}
func (*recordingUpstream) Number() uint64 { return 0 }
func (*recordingUpstream) Prefetch(context.Context, *types.Header, []common.Address, []core.StorageKey) error {
	return nil
}
func (*recordingUpstream) Discover(context.Context, *types.Header, int, func(*state.StateDB) error) (bool, error, error) {
	return true, nil, nil
}
func (*recordingUpstream) Logs(context.Context, *logs.Criteria, uint64, uint64) ([]json.RawMessage, error) {
	return nil, nil
}
func (*recordingUpstream) LogsByHash(context.Context, common.Hash) (json.RawMessage, bool, error) {
	return nil, false, nil
}

// endpointReads is what registering one endpoint's methods gave: every method served, and
// the declaration each was registered with, the extension's (devapi's) included.
type endpointReads struct {
	served   []string
	declared map[string]core.Reads
}

// registerEndpoints registers the methods of every endpoint configuration: standard and
// pre-confirmed, on a plain and an OP Stack dev chain, without and with devapi's dev methods.
func registerEndpoints(t *testing.T) map[string]endpointReads {
	t.Helper()
	accs, err := devaccounts.Derive(devaccounts.TestMnemonic, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]endpointReads{}
	for _, op := range []bool{false, true} {
		funded := []common.Address{accs[0].Address}
		g := chain.DevGenesis(chain.DefaultChainID, funded)
		var seqCfg sequencer.Config
		if op {
			g = oprollup.DevGenesis(chain.DefaultChainID, funded, chain.DevAccountBalance)
			seqCfg.L1 = &oprollup.DevL1{GenesisTime: g.Timestamp}
		}
		c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g, Impersonation: true, Preimages: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		pre := preconf.New(c)
		pool := txpool.New(c.Config(), txpool.Config{})
		seq := sequencer.New(seqCfg, c, pre, pool)
		dev := devapi.New(devapi.Config{Accounts: accs}, devapi.Backend{Chain: c, Preconf: pre, Pool: pool, Sequencer: seq})
		for _, pending := range []bool{false, true} {
			for _, mode := range []string{"no dev methods", "devapi methods"} {
				up := &recordingUpstream{reads: map[string]core.Reads{}}
				cfg := api.Config{Pending: pending}
				if mode == "devapi methods" {
					cfg.Extend = dev.Register
				}
				a := api.New(cfg, api.Backend{Chain: c, Preconf: pre, Pool: pool, Upstream: up})
				name := fmt.Sprintf("op=%v/pending=%v/%s", op, pending, mode)
				served := slices.Sorted(maps.Keys(a.Service().Methods))
				out[name] = endpointReads{served: served, declared: up.reads}
			}
		}
	}
	return out
}

// TestEveryMethodDeclaresReads walks every method of both endpoints, with and without the dev
// methods (which are registered with a declaration too, core.Table.Add), and refuses one that was registered without saying what it reads: on a fork it
// would answer from local state below the fork block.
func TestEveryMethodDeclaresReads(t *testing.T) {
	for name, ep := range registerEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			for _, m := range ep.served {
				r, ok := ep.declared[m]
				switch {
				case !ok:
					t.Errorf("%s is served but was not registered with a Reads declaration", m)
				case !r.Declared():
					t.Errorf("%s declares nothing about what it reads (the zero Reads)", m)
				}
			}
		})
	}
}

// forkRouted is the routing table fork mode used before each method declared what it reads:
// the declarations must route every method as it did.
var forkRouted = map[string]core.Reads{
	"eth_getBlockByNumber":                       {Kind: core.ReadsBlockNumber},
	"eth_getBlockTransactionCountByNumber":       {Kind: core.ReadsBlockNumber},
	"eth_getUncleCountByBlockNumber":             {Kind: core.ReadsBlockNumber},
	"eth_getTransactionByBlockNumberAndIndex":    {Kind: core.ReadsBlockNumber},
	"eth_getRawTransactionByBlockNumberAndIndex": {Kind: core.ReadsBlockNumber},
	"eth_getHeaderByNumber":                      {Kind: core.ReadsBlockNumber},
	"eth_getUncleByBlockNumberAndIndex":          {Kind: core.ReadsBlockNumber},
	"debug_traceBlockByNumber":                   {Kind: core.ReadsBlockNumber},
	"eth_feeHistory":                             {Kind: core.ReadsBlockNumber, Param: 1},
	"eth_getBlockReceipts":                       {Kind: core.ReadsBlock},
	"debug_getRawHeader":                         {Kind: core.ReadsBlock},
	"debug_getRawBlock":                          {Kind: core.ReadsBlock},
	"debug_getRawReceipts":                       {Kind: core.ReadsBlock},
	"eth_getBlockByHash":                         {Kind: core.ReadsBlockHash},
	"eth_getBlockTransactionCountByHash":         {Kind: core.ReadsBlockHash},
	"eth_getUncleCountByBlockHash":               {Kind: core.ReadsBlockHash},
	"eth_getTransactionByBlockHashAndIndex":      {Kind: core.ReadsBlockHash},
	"eth_getRawTransactionByBlockHashAndIndex":   {Kind: core.ReadsBlockHash},
	"eth_getHeaderByHash":                        {Kind: core.ReadsBlockHash},
	"eth_getUncleByBlockHashAndIndex":            {Kind: core.ReadsBlockHash},
	"debug_traceBlockByHash":                     {Kind: core.ReadsBlockHash},
	"eth_getTransactionByHash":                   {Kind: core.ReadsTx},
	"eth_getTransactionReceipt":                  {Kind: core.ReadsTx},
	"eth_getRawTransactionByHash":                {Kind: core.ReadsTx},
	"debug_getRawTransaction":                    {Kind: core.ReadsTx},
	"debug_traceTransaction":                     {Kind: core.ReadsTx},
	"eth_getBalance":                             {Kind: core.ReadsState, Param: 1},
	"eth_getTransactionCount":                    {Kind: core.ReadsState, Param: 1},
	"eth_getCode":                                {Kind: core.ReadsState, Param: 1},
	"eth_getStorageAt":                           {Kind: core.ReadsState, Param: 2},
	"eth_getStorageValues":                       {Kind: core.ReadsState, Param: 1},
	"eth_call":                                   {Kind: core.ReadsState, Param: 1},
	"eth_estimateGas":                            {Kind: core.ReadsState, Param: 1},
	"eth_createAccessList":                       {Kind: core.ReadsState, Param: 1},
	"eth_simulateV1":                             {Kind: core.ReadsState, Param: 1},
	"debug_traceCall":                            {Kind: core.ReadsState, Param: 1},
	"eth_getProof":                               {Kind: core.ReadsState, Param: 2, AtFork: true},
}

// routedByParam reports whether a declaration routes its method by a parameter.
func routedByParam(r core.Reads) bool {
	switch r.Kind {
	case core.ReadsBlockNumber, core.ReadsBlock, core.ReadsBlockHash, core.ReadsTx, core.ReadsState:
		return true
	}
	return false
}

// TestReadsAgreeWithForkRouted checks the declarations against forkRouted: a method routed by
// a parameter is in the table with the same kind, position and AtFork, and every method of
// the table is registered so.
func TestReadsAgreeWithForkRouted(t *testing.T) {
	seen := map[string]bool{}
	for name, ep := range registerEndpoints(t) {
		for m, r := range ep.declared {
			want, inTable := forkRouted[m]
			if m == "eth_simulateV1" && strings.Contains(name, "pending=false") {
				// Not served on the standard endpoint (its -32601 names the pre-confirmed
				// one), so nothing to route.
				if r.Kind != core.ReadsNothing {
					t.Errorf("%s: eth_simulateV1 on the standard endpoint declares %+v, want no chain data", name, r)
				}
				continue
			}
			switch {
			case routedByParam(r) && !inTable:
				t.Errorf("%s: %s is routed by parameter %d (kind %d), but fork mode did not route it", name, m, r.Param, r.Kind)
			case inTable && r != want:
				t.Errorf("%s: %s declares %+v, fork mode routed it as %+v", name, m, r, want)
			case inTable:
				seen[m] = true
			}
		}
	}
	for m := range forkRouted {
		if !seen[m] {
			t.Errorf("%s was routed by fork mode but no endpoint registers it with its declaration", m)
		}
	}
}

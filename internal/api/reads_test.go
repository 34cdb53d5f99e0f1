package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api"
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

// recordingUpstream is an api.Upstream that records what each method was registered with.
type recordingUpstream struct{ reads map[string]api.Reads }

func (u *recordingUpstream) Route(name string, r api.Reads, m rpc.Method, _ func(common.Hash) bool) rpc.Method {
	u.reads[name] = r
	return m
}
func (*recordingUpstream) Number() uint64 { return 0 }
func (*recordingUpstream) Prefetch(context.Context, *types.Header, []common.Address, []api.StorageKey) error {
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

// endpointReads is what registering one endpoint's methods gave: every method served, the
// declaration each method of the API's own was registered with, and the methods the
// extension (devapi) added.
type endpointReads struct {
	served   []string
	declared map[string]api.Reads
	extended map[string]bool
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
				up := &recordingUpstream{reads: map[string]api.Reads{}}
				cfg := api.Config{Pending: pending}
				extended := map[string]bool{}
				if mode == "devapi methods" {
					cfg.Extend = func(m map[string]rpc.Method) {
						before := maps.Clone(m)
						dev.Register(m)
						for name := range m {
							if _, ok := before[name]; !ok {
								extended[name] = true
							}
						}
					}
				}
				a := api.New(cfg, api.Backend{Chain: c, Preconf: pre, Pool: pool, Upstream: up})
				name := fmt.Sprintf("op=%v/pending=%v/%s", op, pending, mode)
				served := slices.Sorted(maps.Keys(a.Service().Methods))
				out[name] = endpointReads{served: served, declared: up.reads, extended: extended}
			}
		}
	}
	return out
}

// TestEveryMethodDeclaresReads walks every method of both endpoints, with and without the dev
// methods, and refuses one that was registered without saying what it reads: on a fork it
// would answer from local state below the fork block.
func TestEveryMethodDeclaresReads(t *testing.T) {
	for name, ep := range registerEndpoints(t) {
		t.Run(name, func(t *testing.T) {
			for _, m := range ep.served {
				r, ok := ep.declared[m]
				switch {
				case ep.extended[m]:
					// devapi's methods act on the local dev chain; they are not routed.
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
var forkRouted = map[string]api.Reads{
	"eth_getBlockByNumber":                       {Kind: api.ReadsBlockNumber},
	"eth_getBlockTransactionCountByNumber":       {Kind: api.ReadsBlockNumber},
	"eth_getUncleCountByBlockNumber":             {Kind: api.ReadsBlockNumber},
	"eth_getTransactionByBlockNumberAndIndex":    {Kind: api.ReadsBlockNumber},
	"eth_getRawTransactionByBlockNumberAndIndex": {Kind: api.ReadsBlockNumber},
	"eth_getHeaderByNumber":                      {Kind: api.ReadsBlockNumber},
	"eth_getUncleByBlockNumberAndIndex":          {Kind: api.ReadsBlockNumber},
	"debug_traceBlockByNumber":                   {Kind: api.ReadsBlockNumber},
	"eth_feeHistory":                             {Kind: api.ReadsBlockNumber, Param: 1},
	"eth_getBlockReceipts":                       {Kind: api.ReadsBlock},
	"debug_getRawHeader":                         {Kind: api.ReadsBlock},
	"debug_getRawBlock":                          {Kind: api.ReadsBlock},
	"debug_getRawReceipts":                       {Kind: api.ReadsBlock},
	"eth_getBlockByHash":                         {Kind: api.ReadsBlockHash},
	"eth_getBlockTransactionCountByHash":         {Kind: api.ReadsBlockHash},
	"eth_getUncleCountByBlockHash":               {Kind: api.ReadsBlockHash},
	"eth_getTransactionByBlockHashAndIndex":      {Kind: api.ReadsBlockHash},
	"eth_getRawTransactionByBlockHashAndIndex":   {Kind: api.ReadsBlockHash},
	"eth_getHeaderByHash":                        {Kind: api.ReadsBlockHash},
	"eth_getUncleByBlockHashAndIndex":            {Kind: api.ReadsBlockHash},
	"debug_traceBlockByHash":                     {Kind: api.ReadsBlockHash},
	"eth_getTransactionByHash":                   {Kind: api.ReadsTx},
	"eth_getTransactionReceipt":                  {Kind: api.ReadsTx},
	"eth_getRawTransactionByHash":                {Kind: api.ReadsTx},
	"debug_getRawTransaction":                    {Kind: api.ReadsTx},
	"debug_traceTransaction":                     {Kind: api.ReadsTx},
	"eth_getBalance":                             {Kind: api.ReadsState, Param: 1},
	"eth_getTransactionCount":                    {Kind: api.ReadsState, Param: 1},
	"eth_getCode":                                {Kind: api.ReadsState, Param: 1},
	"eth_getStorageAt":                           {Kind: api.ReadsState, Param: 2},
	"eth_getStorageValues":                       {Kind: api.ReadsState, Param: 1},
	"eth_call":                                   {Kind: api.ReadsState, Param: 1},
	"eth_estimateGas":                            {Kind: api.ReadsState, Param: 1},
	"eth_createAccessList":                       {Kind: api.ReadsState, Param: 1},
	"eth_simulateV1":                             {Kind: api.ReadsState, Param: 1},
	"debug_traceCall":                            {Kind: api.ReadsState, Param: 1},
	"eth_getProof":                               {Kind: api.ReadsState, Param: 2, AtFork: true},
}

// routedByParam reports whether a declaration routes its method by a parameter.
func routedByParam(r api.Reads) bool {
	switch r.Kind {
	case api.ReadsBlockNumber, api.ReadsBlock, api.ReadsBlockHash, api.ReadsTx, api.ReadsState:
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

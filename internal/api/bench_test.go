package api_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// BenchmarkMethods measures the API part of the hot requests (decoding, resolving, encoding),
// without the transport.
func BenchmarkMethods(b *testing.B) {
	c, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(testKey.PublicKey)})})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	seq := sequencer.New(sequencer.Config{}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer seq.Close()
	if _, err := seq.Seal(context.Background()); err != nil {
		b.Fatal(err)
	}
	methods := api.New(api.Config{Pending: true}, api.Backend{Chain: c, Preconf: pre, Pool: pool}).Service().Methods
	code := `"0x00000000219ab540356cbb839cbe05303d7705fa"` // a system contract from the genesis
	cases := []struct{ name, method, params string }{
		{"method=getBlockByNumber/tag=latest", "eth_getBlockByNumber", `["latest",false]`},
		{"method=getBlockByNumber/tag=pending", "eth_getBlockByNumber", `["pending",false]`},
		{"method=getCode/tag=latest", "eth_getCode", `[` + code + `,"latest"]`},
		{"method=getCode/tag=pending", "eth_getCode", `[` + code + `,"pending"]`},
		{"method=getBalance/tag=latest", "eth_getBalance", `[` + code + `,"latest"]`},
		{"method=blockNumber", "eth_blockNumber", `[]`},
	}
	for _, tc := range cases {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(tc.params), &raw); err != nil {
			b.Fatal(err)
		}
		params, m := rpc.Params(raw), methods[tc.method]
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				res, err := m(ctx, params)
				if err != nil || res == nil {
					b.Fatal(err)
				}
			}
		})
	}
}

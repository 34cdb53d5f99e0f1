package metrics

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestPreconfMetricsWithoutPreconfirmations watches a dev chain without pre-confirmations
// (sequencer.Config.NoPreconfirmations) that seals blocks with transactions: the chain's
// gauges move, the pre-confirmation ones stay at zero, since nothing was pre-confirmed.
func TestPreconfMetricsWithoutPreconfirmations(t *testing.T) {
	ctx := context.Background()
	key, _ := crypto.ToECDSA(crypto.Keccak256([]byte("metrics")))
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pre, pool := preconf.New(c), txpool.New(c.Config(), txpool.Config{})
	reg := prometheus.NewRegistry()
	m := New(reg)
	m.WatchChain(c)
	m.WatchPreconf(pre)
	seq := sequencer.New(sequencer.Config{NoPreconfirmations: true}, c, pre, pool)
	if err := seq.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer seq.Close()
	for i := range 2 {
		tx, err := types.SignNewTx(key, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
			ChainID: c.Config().ChainID, Nonce: uint64(i), To: &common.Address{0x77}, Value: big.NewInt(1),
			Gas: params.TxGas, GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		snap := pre.View().Pending // the hidden block in progress the pool validates against
		if err := pool.Add(tx, txpool.StateView(c.Config(), snap.Header(), snap.ReadState)); err != nil {
			t.Fatal(err)
		}
		if _, err := seq.Mine(ctx, 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	mfs := scrape(t, reg)
	for _, tc := range []struct {
		name string
		want float64
	}{
		{"flashrpc_chain_head_block", 2},
		{"flashrpc_preconf_published_total", 0},
		{"flashrpc_preconf_index", 0},
		{"flashrpc_preconf_block", 0},
		{"flashrpc_preconf_age_seconds", 0},
		{"flashrpc_preconf_transactions", 0},
	} {
		if got, ok := value(mfs, tc.name); !ok || got != tc.want {
			t.Errorf("%s = %v (present %v), want %v", tc.name, got, ok, tc.want)
		}
	}
}

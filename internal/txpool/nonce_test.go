package txpool

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

func TestPendingNonce(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	config := params.AllDevChainProtocolChanges
	pool := New(config, Config{})
	view := View{
		Header:  &types.Header{Number: big.NewInt(1), GasLimit: 30_000_000, BaseFee: big.NewInt(params.InitialBaseFee)},
		Nonce:   func(common.Address) uint64 { return 3 },
		Balance: func(common.Address) *uint256.Int { return uint256.NewInt(params.Ether) },
	}
	to := common.Address{1}
	for _, nonce := range []uint64{3, 4, 6} {
		tx, err := types.SignNewTx(key, types.LatestSigner(config), &types.DynamicFeeTx{
			ChainID: config.ChainID, Nonce: nonce, To: &to, Gas: params.TxGas,
			GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := pool.Add(tx, view); err != nil {
			t.Fatalf("add nonce %d: %v", nonce, err)
		}
	}
	cases := []struct {
		name string
		addr common.Address
		next uint64
		want uint64
	}{
		{"run from the state nonce stops at the gap", from, 3, 5},
		{"state already past the pooled run", from, 5, 5},
		{"state past the gap", from, 6, 7},
		{"state past everything pooled", from, 9, 9},
		{"unknown sender", common.Address{2}, 11, 11},
	}
	for _, c := range cases {
		if got := pool.PendingNonce(c.addr, c.next); got != c.want {
			t.Errorf("%s: PendingNonce(%d) = %d, want %d", c.name, c.next, got, c.want)
		}
	}
}

package txpool

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// opState is an OP Stack chain's state as the pool sees it through StateView: a real StateDB
// whose L1Block predeploy holds the L1 fee parameters an L1-attributes deposit sets.
type opState struct {
	config *params.ChainConfig
	header *types.Header
	st     *state.StateDB
}

func newOPState(t *testing.T) *opState {
	t.Helper()
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		t.Fatal(err)
	}
	// Ecotone's packed scalars: baseFeeScalar in bytes [16:20), blobBaseFeeScalar in [20:24).
	var scalars common.Hash
	big.NewInt(int64(oprollup.BaseFeeScalar)).FillBytes(scalars[16:20])
	big.NewInt(int64(oprollup.BlobBaseFeeScalar)).FillBytes(scalars[20:24])
	st.SetState(types.L1BlockAddr, types.L1BaseFeeSlot, common.BigToHash(big.NewInt(50*params.GWei)))
	st.SetState(types.L1BlockAddr, types.L1BlobBaseFeeSlot, common.BigToHash(big.NewInt(params.GWei)))
	st.SetState(types.L1BlockAddr, types.L1FeeScalarsSlot, scalars)
	return &opState{
		config: networks.DevOPStack(1337),
		header: &types.Header{Number: big.NewInt(1), Time: 1_800_000_000, GasLimit: 30_000_000, BaseFee: big.NewInt(params.GWei)},
		st:     st,
	}
}

func (s *opState) view() View {
	return StateView(s.config, s.header, func(fn func(*state.StateDB)) { fn(s.st) })
}

// rollupCost is what tx pays beyond gas and value: op-geth's own function on the same state.
func (s *opState) rollupCost(tx *types.Transaction) *uint256.Int {
	return types.NewTotalRollupCostFunc(s.config, s.st)(tx, s.header.Time)
}

func (s *opState) signed(t *testing.T, nonce uint64) *types.Transaction {
	t.Helper()
	key, _ := testKey(0)
	to := common.Address{0xaa}
	tx, err := types.SignNewTx(key, types.LatestSigner(s.config), &types.DynamicFeeTx{
		ChainID: s.config.ChainID, Nonce: nonce, To: &to, Value: big.NewInt(1), Gas: params.TxGas + 40*200,
		GasFeeCap: big.NewInt(2 * params.GWei), GasTipCap: big.NewInt(params.GWei), Data: make([]byte, 200),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestRollupCost: on an OP Stack chain a sender must afford the L1 data fee as well as gas
// and value, when a transaction arrives (Add) and whenever the state moves on (Reset drops
// a pooled transaction the sender can no longer pay for), as op-geth's pool counts it. Each
// case sets the sender's balance to the transaction's cost, without or with the rollup cost,
// give or take one wei.
func TestRollupCost(t *testing.T) {
	t.Parallel()
	_, from := testKey(0)
	for _, tc := range []struct {
		name      string
		withL1Fee bool
		delta     int64
		want      bool // kept
	}{
		{"gas and value only", false, 0, false},
		{"one wei short of the L1 fee", true, -1, false},
		{"exactly with the L1 fee", true, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newOPState(t)
			tx := s.signed(t, 0)
			l1 := s.rollupCost(tx)
			if l1 == nil || l1.IsZero() {
				t.Fatalf("rollup cost %v: the state's L1 fee parameters are not read", l1)
			}
			balance := uint256.MustFromBig(tx.Cost())
			if tc.withL1Fee {
				balance.Add(balance, l1)
			}
			balance.Add(balance, uint256.NewInt(uint64(max(tc.delta, 0))))
			balance.Sub(balance, uint256.NewInt(uint64(max(-tc.delta, 0))))

			// Add validates against the state.
			s.st.SetBalance(from, balance, 0)
			err := New(s.config, Config{}).Add(tx, s.view())
			if got := err == nil; got != tc.want {
				t.Fatalf("Add with balance %v (L1 fee %v): %v, want accepted %v", balance, l1, err, tc.want)
			}
			if !tc.want && !errors.Is(err, core.ErrInsufficientFunds) {
				t.Fatalf("Add: %v, want insufficient funds", err)
			}

			// Reset re-checks what the pool holds against the new state.
			rich := new(uint256.Int).Mul(uint256.NewInt(1000), uint256.NewInt(params.Ether))
			s.st.SetBalance(from, rich, 0)
			p := New(s.config, Config{})
			if err := p.Add(tx, s.view()); err != nil {
				t.Fatal(err)
			}
			s.st.SetBalance(from, balance, 0)
			p.Reset(s.view())
			if got := p.Get(tx.Hash()) != nil; got != tc.want {
				t.Fatalf("after Reset with balance %v (L1 fee %v): pooled %v, want %v", balance, l1, got, tc.want)
			}
		})
	}
}

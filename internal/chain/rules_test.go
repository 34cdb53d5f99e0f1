package chain

import (
	"bytes"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// oversizedBlock returns a block on c's genesis whose RLP encoding is over EIP-7934's 8 MiB
// with a body that is otherwise valid (transaction root, DA footprint): nine transactions of
// 1 MiB of zero call data each, after the L1-attributes deposit on an OP Stack chain.
func oversizedBlock(t *testing.T, c *Chain) *types.Block {
	t.Helper()
	parent := c.Head()
	var txs []*types.Transaction
	if c.Config().IsOptimism() { // an OP Stack block opens with a deposit
		txs = append(txs, (&oprollup.DevL1{}).Info(nil, parent.Time+2).DepositTx())
	}
	to := common.Address{0x70}
	for i := range 9 {
		txs = append(txs, types.NewTx(&types.DynamicFeeTx{ChainID: c.Config().ChainID, Nonce: uint64(i), To: &to,
			Gas: 16_000_000, GasFeeCap: big.NewInt(1), GasTipCap: big.NewInt(0), Data: make([]byte, 1<<20)}))
	}
	h := &types.Header{ParentHash: parent.Hash(), Number: big.NewInt(1), Time: parent.Time + 2, GasLimit: parent.GasLimit,
		Difficulty: new(big.Int), BaseFee: parent.BaseFee, Extra: bytes.Clone(parent.Extra)}
	if c.Config().IsCancun(h.Number, h.Time) {
		h.ParentBeaconRoot = &common.Hash{}
		zero := uint64(0)
		h.ExcessBlobGas, h.BlobGasUsed = &zero, &zero
	}
	if c.Config().IsPrague(h.Number, h.Time) && !c.Config().IsOptimism() {
		h.RequestsHash = &types.EmptyRequestsHash
	}
	if c.Config().IsOptimismJovian(h.Time) {
		da, err := types.CalcDAFootprint(txs)
		if err != nil {
			t.Fatal(err)
		}
		h.BlobGasUsed = &da
	}
	var withdrawals []*types.Withdrawal
	if c.Config().IsShanghai(h.Number, h.Time) {
		withdrawals = []*types.Withdrawal{}
		h.WithdrawalsHash = &types.EmptyWithdrawalsHash // an Isthmus block's is the message passer's storage root
	}
	b := types.NewBlock(h, &types.Body{Transactions: txs, Withdrawals: withdrawals}, nil, trie.NewStackTrie(nil), c.Config())
	if b.Size() <= params.MaxBlockSize {
		t.Fatalf("block of %d bytes, want over %d", b.Size(), params.MaxBlockSize)
	}
	return b
}

// TestOPBodiesWithoutBlockSizeLimit checks that an OP Stack chain with Osaka on (Azul, as
// Karst) validates block bodies without EIP-7934's 8 MiB limit, which neither fork has, while
// go-ethereum's own validator of the same chain and an Ethereum chain with Osaka refuse the
// block.
func TestOPBodiesWithoutBlockSizeLimit(t *testing.T) {
	op, err := Open(Config{DataDir: t.TempDir(), Genesis: oprollup.DevGenesis(DefaultChainID, nil, big.NewInt(1))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Close() })
	if !op.Config().IsOsaka(big.NewInt(1), op.Head().Time+2) {
		t.Fatal("the OP Stack dev chain runs no Osaka")
	}
	b := oversizedBlock(t, op)
	if err := op.bc.Validator().ValidateBody(b); err != nil {
		t.Errorf("OP Stack chain: %v, want the oversized body valid", err)
	}
	if err := core.NewBlockValidator(op.Config(), op.bc).ValidateBody(b); !errors.Is(err, core.ErrBlockOversized) {
		t.Errorf("go-ethereum's validator of the OP Stack chain: %v, want %v", err, core.ErrBlockOversized)
	}

	l1, err := Open(Config{DataDir: t.TempDir(), Genesis: DevGenesis(DefaultChainID, nil)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l1.Close() })
	if err := l1.bc.Validator().ValidateBody(oversizedBlock(t, l1)); !errors.Is(err, core.ErrBlockOversized) {
		t.Errorf("Ethereum chain: %v, want %v", err, core.ErrBlockOversized)
	}
}

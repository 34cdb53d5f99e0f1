package main

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// TestSenderAcrossPreconfirmations sends one sender's transactions one pre-confirmation apart:
// each lands in the next pre-confirmation of the same block (not the next block), and its
// pre-confirmed receipt carries the effective gas price the sealed receipt will have.
func TestSenderAcrossPreconfirmations(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) { testSenderAcrossPreconfirmations(t, chainType) })
	}
}

func testSenderAcrossPreconfirmations(t *testing.T, chainType string) {
	ctx := context.Background()
	tn := startTestNode(t, testOptionsOf(t.TempDir(), chainType))
	to := common.HexToAddress("0x0000000000000000000000000000000000000abc")
	var hashes []common.Hash
	for nonce := range uint64(3) {
		tx := signTx(t, tn.Accounts()[0].Key, big.NewInt(1337), nonce, &to, big.NewInt(1), params.TxGas, nil)
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("nonce %d: %v", nonce, err)
		}
		tn.preconfirm(t)
		block, err := tn.pre.BlockByNumber(ctx, pendingTag)
		if err != nil || block.NumberU64() != 1 || len(block.Transactions())-depositCount(block.Transactions()) != int(nonce)+1 {
			t.Fatalf("after nonce %d: pending block %v with %d txs (%v), want block 1 with %d besides its deposits", nonce, block.Number(), len(block.Transactions()), err, nonce+1)
		}
		hashes = append(hashes, tx.Hash())
	}
	pre, err := tn.pre.TransactionReceipt(ctx, hashes[2])
	if err != nil {
		t.Fatal(err)
	}
	tn.seal(t)
	sealed, err := tn.std.TransactionReceipt(ctx, hashes[2])
	if err != nil {
		t.Fatal(err)
	}
	if pre.EffectiveGasPrice == nil || pre.EffectiveGasPrice.Cmp(sealed.EffectiveGasPrice) != 0 {
		t.Fatalf("pre-confirmed effectiveGasPrice %v, sealed %v", pre.EffectiveGasPrice, sealed.EffectiveGasPrice)
	}
	if pre.GasUsed != sealed.GasUsed || pre.CumulativeGasUsed != sealed.CumulativeGasUsed || pre.TransactionIndex != sealed.TransactionIndex {
		t.Fatalf("pre-confirmed receipt %+v differs from sealed %+v", pre, sealed)
	}
}

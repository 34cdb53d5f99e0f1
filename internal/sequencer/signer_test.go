package sequencer_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// TestPoolSignerIsTheBlocksSigner: the pool recovers a sender with its signer when it
// validates the transaction (eth_sendRawTransaction), and the block in progress with the signer
// of its block (types.MakeSigner) when it executes it. types.Sender caches the sender with the
// signer and recovers it again for a signer that is not Equal: a second recovery per
// transaction in every build (the one recovery, in the pool, is 16.8 % of the node's CPU at
// twice Base's rate, docs/benchmarks.md). Both must be the same signer on the dev chain's
// blocks.
func TestPoolSignerIsTheBlocksSigner(t *testing.T) {
	n := newOPNode(t, 0, 1)
	to := common.Address{0xee}
	n.send(t, 0, 0, &to, big.NewInt(1), params.TxGas, nil)
	snap, err := n.seq.Preconfirm(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	block := snap.Block
	if len(block.Transactions()) == snap.FirstNew {
		t.Fatal("the transaction was not pre-confirmed")
	}
	blockSigner := types.MakeSigner(n.chain.Config(), block.Number(), block.Time())
	if !n.pool.Signer().Equal(blockSigner) {
		t.Fatalf("pool signer %T (chain id %v) is not block %d's signer %T: every build recovers each sender again", n.pool.Signer(), n.pool.Signer().ChainID(), block.NumberU64(), blockSigner)
	}
}

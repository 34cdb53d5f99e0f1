package sequencer_test

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// TestSendsDuringBuilds: on a chain without pre-confirmations, one sender streams transfers in
// nonce order, each validated against the view it read just before (as eth_sendRawTransaction
// does), while blocks are sealed back to back. Every send is taken and every transfer sealed.
// A send that read the view before a build and reaches the pool after the build took its
// transactions out, before the pool's Reset to the new state, must still find the rest of its
// sender's run executable: were it taken for a run behind a gap, it would be queued again, cut
// to the account's queue limit and the send refused with "account queue full".
func TestSendsDuringBuilds(t *testing.T) {
	ctx := context.Background()
	// The other senders only hold a transaction each behind a nonce gap: every Reset reads
	// their state too, as a busy pool's does, outside the pool's lock.
	const others = 100
	n := newOPNode(t, 0, 1+others, func(c *sequencer.Config) { c.NoPreconfirmations = true })
	cfg := n.chain.Config()
	to := common.Address{0xde, 0xad}
	transfer := func(i int, nonce uint64) *types.Transaction {
		tx, err := types.SignNewTx(n.keys[i], types.LatestSigner(cfg), &types.DynamicFeeTx{
			ChainID: cfg.ChainID, Nonce: nonce, To: &to, Value: big.NewInt(1), Gas: params.TxGas,
			GasFeeCap: big.NewInt(params.GWei), GasTipCap: big.NewInt(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	for i := 1; i <= others; i++ {
		if err := n.pool.Add(transfer(i, 1), hiddenPoolView(t, n.chain, n.pre)); err != nil {
			t.Fatal(err)
		}
	}
	const total = 3000
	txs := make([]*types.Transaction, total)
	for nonce := range txs {
		txs[nonce] = transfer(0, uint64(nonce))
	}

	sent := make(chan error, 1)
	go func() {
		for _, tx := range txs {
			v := n.pre.View()
			for v.Pending == nil { // between a seal and the next block's opening
				runtime.Gosched()
				v = n.pre.View()
			}
			view := txpool.StateView(cfg, v.Pending.Header(), v.Pending.ReadState)
			if err := n.pool.Add(tx, view); err != nil {
				sent <- fmt.Errorf("send nonce %d: %w", tx.Nonce(), err)
				return
			}
		}
		sent <- nil
	}()

	sealed, sending := 0, true
	for sealed < total {
		if sending {
			select {
			case err := <-sent:
				if err != nil {
					t.Fatal(err)
				}
				sending = false
			default:
			}
		}
		block, err := n.seq.Seal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range block.Transactions() {
			if !tx.IsDepositTx() {
				if tx.Nonce() != uint64(sealed) {
					t.Fatalf("block %d carries nonce %d, want %d next", block.NumberU64(), tx.Nonce(), sealed)
				}
				sealed++
			}
		}
		if !sending && sealed < total && n.pool.Len() == 0 {
			t.Fatalf("all sends taken, %d of %d transfers sealed and the pool is empty", sealed, total)
		}
	}
}

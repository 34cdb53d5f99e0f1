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

// TestSendsDuringBuilds: on a chain without pre-confirmations, senders stream transfers in
// nonce order, each validated against the view it read just before (as eth_sendRawTransaction
// does), while blocks are sealed back to back. Every send is taken and every transfer sealed.
// A send that read the view before a build and reaches the pool after the build took its
// sender's transactions out, before the pool's Reset to the new state, must still find the
// rest of its sender's run executable: were it taken for a run behind a gap, the run would be
// queued again, cut to the account's queue limit and the send refused ("account queue full").
func TestSendsDuringBuilds(t *testing.T) {
	ctx := context.Background()
	// The idle senders hold a transaction each behind a nonce gap: every Reset reads their
	// state too, outside the pool's lock, as a busy pool's does.
	const streams, idle, perStream = 3, 100, 1500
	n := newOPNode(t, 0, streams+idle, func(c *sequencer.Config) { c.NoPreconfirmations = true })
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
	for i := streams; i < streams+idle; i++ {
		if err := n.pool.Add(transfer(i, 1), hiddenPoolView(t, n.chain, n.pre)); err != nil {
			t.Fatal(err)
		}
	}

	sent := make(chan error, streams)
	for i := range streams {
		txs := make([]*types.Transaction, perStream)
		for nonce := range txs {
			txs[nonce] = transfer(i, uint64(nonce))
		}
		go func() {
			for _, tx := range txs {
				v := n.pre.View()
				for v.Pending == nil { // between a seal and the next block's opening
					runtime.Gosched()
					v = n.pre.View()
				}
				view := txpool.StateView(cfg, v.Pending.Header(), v.Pending.ReadState)
				if err := n.pool.Add(tx, view); err != nil {
					sent <- fmt.Errorf("sender %d, nonce %d: %w", i, tx.Nonce(), err)
					return
				}
			}
			sent <- nil
		}()
	}

	sealed := make(map[common.Address]uint64) // per stream: the next nonce expected in a block
	done, idleSeals := 0, 0
	for total := 0; total < streams*perStream; {
		select {
		case err := <-sent:
			if err != nil {
				t.Fatal(err)
			}
			done++
		default:
		}
		block, err := n.seq.Seal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		signer := types.LatestSigner(cfg)
		took := 0
		for _, tx := range block.Transactions() {
			if tx.IsDepositTx() {
				continue
			}
			from, err := types.Sender(signer, tx)
			if err != nil {
				t.Fatal(err)
			}
			if tx.Nonce() != sealed[from] {
				t.Fatalf("block %d carries %s's nonce %d, want %d next", block.NumberU64(), from, tx.Nonce(), sealed[from])
			}
			sealed[from]++
			took++
		}
		total += took
		// Once every send was taken, each block seals some of what is left.
		if done == streams && took == 0 {
			if idleSeals++; idleSeals > 1 {
				pending, queued := n.pool.Stats()
				t.Fatalf("every send taken, %d of %d transfers sealed; the pool holds %d executable and %d queued, of which %d idle", total, streams*perStream, pending, queued, idle)
			}
		}
	}
}

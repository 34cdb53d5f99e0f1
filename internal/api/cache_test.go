package api

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/ethjson"
)

// TestCachedAnswersMatchFresh holds the API's two caches to the general path (docs/fastpaths.md):
// across pre-confirmations and seals, the latest and pending blocks answered from blockCache
// equal the block encoded afresh from the chain or the snapshot, and the balances and nonces
// read through the cached head state equal a state opened afresh at the head. A cache entry
// kept past a seal or a pre-confirmation fails it.
func TestCachedAnswersMatchFresh(t *testing.T) {
	ctx := context.Background()
	n := newViewNode(t, 2, 0, 0)
	if _, err := n.seq.Seal(ctx); err != nil {
		t.Fatal(err)
	}
	call := func(method viewMethod, args ...any) []byte {
		t.Helper()
		res, err := method(ctx, n.api.core.View(), encodeParams(t, args...))
		if err != nil {
			t.Fatal(err)
		}
		return resultJSON(t, res)
	}
	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s from the cache:\n%s\nencoded afresh:\n%s", what, got, want)
		}
	}
	nonces := make([]uint64, len(n.keys))
	for round := range 4 {
		for i := range n.keys {
			for range 2 { // two pre-confirmations per block: the pending entry must move on
				raw, _ := n.echoTx(t, i, nonces[i]).MarshalBinary()
				nonces[i]++
				if _, err := n.api.events.SendRawTransaction(ctx, encodeParams(t, hexutil.Bytes(raw))); err != nil {
					t.Fatal(err)
				}
				if _, err := n.seq.Preconfirm(ctx); err != nil {
					t.Fatal(err)
				}
				snap := n.pre.Current()
				for _, full := range []bool{false, true} {
					// Asked twice: the first may fill the cache, the second is answered from it.
					for range 2 {
						same("pending block", call(n.api.reads.GetBlockByNumber, "pending", full),
							ethjson.AppendBlock(nil, snap.Block, full, n.api.core.ChainConfig, core.PendingBlockOptions(snap)))
					}
				}
			}
		}
		block, err := n.seq.Seal(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fresh := n.chain.BlockByNumber(block.NumberU64())
		st, err := n.chain.StateAt(fresh.Header())
		if err != nil {
			t.Fatal(err)
		}
		for _, full := range []bool{false, true} {
			for range 2 {
				same("latest block", call(n.api.reads.GetBlockByNumber, "latest", full),
					ethjson.AppendBlock(nil, fresh, full, n.api.core.ChainConfig, n.api.core.SealedBlockOptions(fresh, full)))
			}
		}
		for i, k := range n.keys {
			addr := crypto.PubkeyToAddress(k.PublicKey)
			want, _ := json.Marshal((*hexutil.Big)(st.GetBalance(addr).ToBig()))
			same("balance", call(n.api.reads.GetBalance, addr, "latest"), want)
			want, _ = json.Marshal(hexutil.Uint64(st.GetNonce(addr)))
			same("nonce", call(n.api.reads.GetTransactionCount, addr, "latest"), want)
			if st.GetNonce(addr) != nonces[i] {
				t.Fatalf("round %d: sender %d nonce %d in the sealed state, want %d", round, i, st.GetNonce(addr), nonces[i])
			}
		}
	}
}

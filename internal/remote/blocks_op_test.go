package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestBlockByNumberOPStack decodes an OP Stack block as flashrpc's API writes it (ethjson,
// the shapes of Base's node): the L1-attributes deposit (type 0x7e with sourceHash, mint and
// isSystemTx), a user transaction, an Isthmus header whose withdrawalsRoot is the
// L2ToL1MessagePasser's storage root over an empty withdrawals list. The block must come back
// whole, with the hash of the header it was encoded from.
func TestBlockByNumberOPStack(t *testing.T) {
	t.Parallel()
	config := networks.DevOPStack(1337)
	key, _ := crypto.GenerateKey()
	info := (&oprollup.DevL1{GenesisTime: 1_700_000_000}).Info(nil, 1_700_000_100)
	user, err := types.SignNewTx(key, types.LatestSignerForChainID(config.ChainID), &types.DynamicFeeTx{
		ChainID: config.ChainID, Nonce: 3, Gas: 21_000, GasFeeCap: big.NewInt(2e9), GasTipCap: big.NewInt(1e6), To: &common.Address{0xbb}, Value: big.NewInt(5),
	})
	if err != nil {
		t.Fatal(err)
	}
	txs := types.Transactions{info.DepositTx(), user}
	withdrawalsRoot, requests, blobGas, excess := common.Hash{0x77}, types.EmptyRequestsHash, uint64(1600), uint64(0)
	header := &types.Header{
		ParentHash: common.Hash{1}, Number: big.NewInt(42), GasLimit: 30_000_000, GasUsed: 70_000, Time: 1_700_000_100,
		Coinbase: oprollup.SequencerFeeVault, Extra: oprollup.ExtraData(config, 1_700_000_100), BaseFee: big.NewInt(1e9),
		Difficulty: new(big.Int), MixDigest: info.Hash, ParentBeaconRoot: new(common.Hash),
		TxHash: types.DeriveSha(txs, trie.NewStackTrie(nil)), ReceiptHash: types.EmptyReceiptsHash, UncleHash: types.EmptyUncleHash, Root: common.Hash{2},
		WithdrawalsHash: &withdrawalsRoot, RequestsHash: &requests, BlobGasUsed: &blobGas, ExcessBlobGas: &excess,
	}
	block := types.NewBlockWithHeader(header).WithBody(types.Body{Transactions: txs, Withdrawals: types.Withdrawals{}})
	encoded := ethjson.AppendBlock(nil, block, true, config, ethjson.BlockOptions{})

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req request
		json.NewDecoder(r.Body).Decode(&req)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":%s}`, req.ID, encoded)
	}))
	defer srv.Close()
	got, err := NewClient(Config{URL: srv.URL, Retries: 0}).BlockByNumber(context.Background(), 42)
	if err != nil {
		t.Fatalf("OP Stack block: %v\n%s", err, encoded)
	}
	if got.Hash() != block.Hash() || len(got.Transactions()) != 2 {
		t.Fatalf("block %s with %d transactions, want %s with 2", got.Hash(), len(got.Transactions()), block.Hash())
	}
	dep := got.Transactions()[0]
	if !dep.IsDepositTx() || dep.SourceHash() != txs[0].SourceHash() || dep.Hash() != txs[0].Hash() {
		t.Fatalf("deposit decoded as type %d, source hash %s, hash %s; want %s", dep.Type(), dep.SourceHash(), dep.Hash(), txs[0].Hash())
	}
	if back, err := oprollup.BlockL1Info(got.Transactions()); err != nil || back.Number != info.Number || back.Hash != info.Hash {
		t.Fatalf("L1 attributes of the decoded block: %+v %v, want %+v", back, err, info)
	}
}

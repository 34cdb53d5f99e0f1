package preconf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
)

// Every pre-confirmation assembles the whole partial block again: its transactions and
// receipts roots cover all of the block's transactions. Encoding each transaction and receipt
// for the tries was a third of that work at 1,000 transactions (docs/benchmarks.md), so each
// is encoded once, and the bloom is kept as it grows. The encodings are made at assembly, by
// the goroutines that hash the two tries while the writer computes the state root, not when a
// transaction is applied: on the writer they took about 1 µs a transfer and three allocations.

// blockEncodings holds the trie encodings of the block's transactions and receipts, in block
// order, and the bloom of its receipts so far. Owned by the work's writer; at assembly the
// two trie goroutines extend txs and receipts (one each) while the writer waits for them.
type blockEncodings struct {
	// txs[i] is transaction i's encoding; nil until the assembly that encodes it, unless its
	// writer had it (Batch.AddEncoded). txsDone of them are known.
	txs      encodedList
	txsDone  int
	receipts encodedList // of the first len(receipts) receipts
	bloom    types.Bloom
	// txTrie and receiptTrie are the two tries as of the last assembly (indextrie.go), each
	// extended by its goroutine at the next.
	txTrie, receiptTrie indexTrie
	// given is the encoding of the transaction being applied when its writer has it
	// (Batch.AddEncoded), nil otherwise.
	given []byte
}

// add records an applied transaction: the encoding its writer gave, if any, and its
// receipt's bloom.
func (e *blockEncodings) add(receipt *types.Receipt) {
	e.txs = append(e.txs, e.given)
	for i := range e.bloom {
		e.bloom[i] |= receipt.Bloom[i]
	}
}

// encodeTxs encodes the transactions not yet encoded (txs is the block's, of which e.txs has
// as many entries).
func (e *blockEncodings) encodeTxs(txs []*types.Transaction) error {
	for i := e.txsDone; i < len(txs); i++ {
		if e.txs[i] != nil {
			continue
		}
		enc, err := txs[i].MarshalBinary() // what types.Transactions.EncodeIndex writes
		if err != nil {
			return fmt.Errorf("encode transaction %d: %w", i, err)
		}
		e.txs[i] = enc
	}
	e.txsDone = len(txs)
	return nil
}

// encodeReceipts encodes the receipts not yet encoded, in their consensus encoding (deposit
// fields included), into one buffer.
func (e *blockEncodings) encodeReceipts(receipts types.Receipts) {
	first := len(e.receipts)
	if first == len(receipts) {
		return
	}
	var buf bytes.Buffer
	buf.Grow(receiptSize * (len(receipts) - first))
	ends := make([]int, len(receipts)-first)
	for i := first; i < len(receipts); i++ {
		receipts.EncodeIndex(i, &buf)
		ends[i-first] = buf.Len()
	}
	all, start := buf.Bytes(), 0
	for _, end := range ends {
		e.receipts = append(e.receipts, all[start:end:end])
		start = end
	}
}

// receiptSize is the encoded size of a receipt without logs (the 256-byte bloom and a few
// fields), what the receipts' buffer reserves for each.
const receiptSize = 270

// encodedList is a types.DerivableList of ready encodings.
type encodedList [][]byte

func (l encodedList) Len() int                           { return len(l) }
func (l encodedList) EncodeIndex(i int, w *bytes.Buffer) { w.Write(l[i]) }

// finalizeAndAssemble does what op-geth's beacon engine FinalizeAndAssemble does for a
// proof-of-stake block (withdrawals credited, state root, the OP Stack Isthmus withdrawals
// root and Jovian DA footprint, block assembled), with the encodings at hand instead of
// encoding every transaction and receipt again. A block before the merge goes to the engine.
// The differential test against op-geth's processor (internal/sequencer), which runs every
// pre-confirmation and sealed block through op-geth's StateProcessor and validator, checks that
// both agree. Sealing writes the executed block as it is (chain.WriteExecuted): nothing
// executes it again.
func (w *work) finalizeAndAssemble(ctx context.Context, header *types.Header, st *state.StateDB, body *types.Body) (*types.Block, error) {
	if header.Difficulty.Sign() != 0 || !w.config.IsShanghai(header.Number, header.Time) {
		return w.chain.Engine().FinalizeAndAssemble(ctx, w.chainCtx, header, st, body, w.receipts)
	}
	// The transactions and receipts tries do not depend on the state: hash them while the
	// state root is computed.
	header.TxHash, header.ReceiptHash = types.EmptyTxsHash, types.EmptyReceiptsHash
	var tries sync.WaitGroup
	var txsErr, receiptsErr error
	if len(w.txs) > 0 {
		tries.Go(func() {
			if txsErr = w.enc.encodeTxs(w.txs); txsErr == nil {
				header.TxHash, txsErr = w.enc.txTrie.root(w.enc.txs)
			}
		})
		tries.Go(func() {
			w.enc.encodeReceipts(w.receipts)
			header.ReceiptHash, receiptsErr = w.enc.receiptTrie.root(w.enc.receipts)
		})
	}
	defer tries.Wait() // an error below still leaves nothing running
	w.chain.Engine().Finalize(w.chainCtx, header, st, body)
	header.Root = st.IntermediateRoot(true)
	switch {
	case w.config.IsOptimismIsthmus(header.Time):
		if len(body.Withdrawals) > 0 {
			return nil, errors.New("withdrawals in an Isthmus block")
		}
		root := st.GetStorageRoot(params.OptimismL2ToL1MessagePasser)
		header.WithdrawalsHash = &root
	default:
		hash := types.DeriveSha(types.Withdrawals(body.Withdrawals), trie.NewStackTrie(nil))
		header.WithdrawalsHash = &hash
	}
	w.given.apply(header) // given.go: a replica on remote state takes the sequencer's roots
	if w.config.IsJovian(header.Time) && (header.BlobGasUsed == nil || *header.BlobGasUsed == 0) {
		footprint := w.da.used
		header.BlobGasUsed = &footprint
	}
	if tries.Wait(); txsErr != nil || receiptsErr != nil {
		return nil, errors.Join(txsErr, receiptsErr)
	}
	header.Bloom = w.enc.bloom
	header.UncleHash = types.EmptyUncleHash
	return types.NewBlockWithHeader(header).WithBody(*body), nil
}

package preconf

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"
)

// Every pre-confirmation assembles the whole partial block again: its transactions and
// receipts roots cover all of the block's transactions. Encoding each transaction and receipt
// for the tries was a third of that work at 1,000 transactions (docs/benchmarks.md), so the
// encodings are made once, when a transaction is applied, and the bloom is kept as it grows.

// blockEncodings holds the trie encodings of the block's transactions and receipts, in block
// order, and the bloom of its receipts so far. Owned by the work's writer.
type blockEncodings struct {
	txs, receipts encodedList
	bloom         types.Bloom
	// given is the encoding of the transaction being applied when its writer has it
	// (Batch.AddEncoded), nil otherwise.
	given []byte
}

// add records the encodings of an applied transaction and its receipt.
func (e *blockEncodings) add(tx *types.Transaction, receipt *types.Receipt) error {
	enc := e.given
	if enc == nil {
		var err error
		if enc, err = tx.MarshalBinary(); err != nil { // what types.Transactions.EncodeIndex writes
			return err
		}
	}
	var buf bytes.Buffer
	types.Receipts{receipt}.EncodeIndex(0, &buf) // consensus encoding, deposit fields included
	e.txs = append(e.txs, enc)
	e.receipts = append(e.receipts, buf.Bytes())
	for i := range e.bloom {
		e.bloom[i] |= receipt.Bloom[i]
	}
	return nil
}

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
	if len(w.enc.txs) > 0 {
		tries.Go(func() { header.TxHash = types.DeriveSha(w.enc.txs, trie.NewStackTrie(nil)) })
		tries.Go(func() { header.ReceiptHash = types.DeriveSha(w.enc.receipts, trie.NewStackTrie(nil)) })
	}
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
	tries.Wait()
	header.Bloom = w.enc.bloom
	header.UncleHash = types.EmptyUncleHash
	return types.NewBlockWithHeader(header).WithBody(*body), nil
}

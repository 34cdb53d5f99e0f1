package simulate

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Block is the result of one simulated block. The API layer encodes it as
// go-ethereum's eth_simulateV1 block object: the RPC block (transaction hashes, or full
// transactions when FullTx) plus "calls".
//
// The block is kept as its header and body, not as a types.Block, whose constructor copies
// the header (a twentieth of a one-call request's allocations); [Block.TypesBlock] makes one.
type Block struct {
	// Header is the block's final header. It must not be modified.
	Header *types.Header
	// Body holds the block's withdrawals (nil before Shanghai) and, with FullTx, its
	// transactions (Transactions); no uncles. Without FullTx its transactions are nil: the
	// JSON carries their hashes (TxHashes) only.
	Body types.Body
	// Calls[i] is the result of the i-th call (the i-th transaction).
	Calls []CallResult
	// Senders[i] is the sender of the i-th transaction, which the unsigned transaction
	// cannot tell.
	Senders []common.Address
	// TxHashes[i] is the hash of the i-th transaction; Hash and Size are the block's hash
	// and the length of its RLP encoding. All are known from building the block.
	TxHashes []common.Hash
	Hash     common.Hash
	Size     uint64
	// FullTx selects full transaction objects in the JSON (returnFullTransactions).
	FullTx bool

	// txs and txData are the calls' transactions and their data, a nil transaction being
	// made of its data when asked for (blockRun.txs).
	txs    []*types.Transaction
	txData []types.TxData
}

// Transactions returns the block's transactions, unsigned (v = r = s = 0): Body.Transactions
// when set, otherwise made from the calls. The caller owns the slice.
func (b *Block) Transactions() types.Transactions {
	if b.Body.Transactions != nil || b.txData == nil {
		return b.Body.Transactions
	}
	txs := make(types.Transactions, len(b.txData))
	for i, data := range b.txData {
		if txs[i] = b.txs[i]; txs[i] == nil {
			txs[i] = types.NewTx(data)
		}
	}
	return txs
}

// TypesBlock returns the block as a types.Block, a copy of the header and body.
func (b *Block) TypesBlock() *types.Block {
	return types.NewBlockWithHeader(b.Header).WithBody(types.Body{Transactions: b.Transactions(), Withdrawals: b.Body.Withdrawals})
}

// CallResult is the result of one simulated call.
type CallResult struct {
	ReturnData []byte
	// Logs are the call's logs with block hash, number, timestamp, transaction hash and
	// block-wide log index set; with traceTransfers they include the synthetic transfer
	// logs. Empty for failed calls.
	Logs       []*types.Log
	GasUsed    uint64
	MaxUsedGas uint64
	Status     uint64 // types.ReceiptStatusSuccessful or types.ReceiptStatusFailed
	// Err is nil for a successful call, a *exec.RevertError or a *exec.VMError otherwise.
	Err error
}

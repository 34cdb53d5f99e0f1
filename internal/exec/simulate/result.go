package simulate

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Block is the result of one simulated block. The API layer encodes it as
// go-ethereum's eth_simulateV1 block object: the RPC block (transaction hashes, or full
// transactions when FullTx) plus "calls".
type Block struct {
	// Block is the assembled block; its transactions are unsigned (v = r = s = 0).
	Block *types.Block
	// Header is Block's header, which Block.Header() would copy. It must not be modified.
	Header *types.Header
	// Calls[i] is the result of the i-th call (Block.Transactions()[i]).
	Calls []CallResult
	// Senders[i] is the sender of Block.Transactions()[i], which the unsigned transaction
	// cannot tell.
	Senders []common.Address
	// TxHashes[i] is the hash of Block.Transactions()[i]; Hash and Size are Block.Hash() and
	// Block.Size(). All are known from building the block.
	TxHashes []common.Hash
	Hash     common.Hash
	Size     uint64
	// FullTx selects full transaction objects in the JSON (returnFullTransactions).
	FullTx bool
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

package simulate

import (
	"encoding/json"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// This file is a test-only reference encoding of eth_simulateV1 results, a transcription of
// go-ethereum's (RPCMarshalBlock, newRPCTransaction, the simulator's call result). It lets
// this package's tests compare whole results with go-ethereum's node and the execution-apis
// fixtures; the node's encoder is internal/api/execute's (simulate_json.go), which the
// conformance suite checks against the same fixtures.

// Per-call error codes inside an eth_simulateV1 result.
const (
	simCallRevertCode  = 3      // execution reverted
	simCallVMErrorCode = -32015 // any other failed execution
)

// simCallError is the "error" object of a failed call.
type simCallError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
	Data    string `json:"data,omitempty"`
}

// MarshalJSON writes {"returnData","logs","gasUsed","maxUsedGas","status","error"?} with
// "error" {"message","code":3,"data"} for reverts and {"message","code":-32015} otherwise.
func (r CallResult) MarshalJSON() ([]byte, error) {
	logs := r.Logs
	if logs == nil {
		logs = []*types.Log{}
	}
	out := struct {
		ReturnData hexutil.Bytes  `json:"returnData"`
		Logs       []*types.Log   `json:"logs"`
		GasUsed    hexutil.Uint64 `json:"gasUsed"`
		MaxUsedGas hexutil.Uint64 `json:"maxUsedGas"`
		Status     hexutil.Uint64 `json:"status"`
		Error      *simCallError  `json:"error,omitempty"`
	}{
		ReturnData: r.ReturnData,
		Logs:       logs,
		GasUsed:    hexutil.Uint64(r.GasUsed),
		MaxUsedGas: hexutil.Uint64(r.MaxUsedGas),
		Status:     hexutil.Uint64(r.Status),
	}
	if r.Err != nil {
		var rev *exec.RevertError
		if errors.As(r.Err, &rev) {
			out.Error = &simCallError{Message: rev.Error(), Code: simCallRevertCode, Data: hexutil.Encode(rev.Data)}
		} else {
			out.Error = &simCallError{Message: r.Err.Error(), Code: simCallVMErrorCode}
		}
	}
	return json.Marshal(out)
}

// MarshalJSON writes the block like geth's RPCMarshalBlock plus "calls".
func (b Block) MarshalJSON() ([]byte, error) {
	block := b.TypesBlock()
	fields := marshalHeader(block.Header())
	fields["size"] = hexutil.Uint64(block.Size())
	txs := block.Transactions()
	transactions := make([]any, len(txs))
	for i, tx := range txs {
		if b.FullTx {
			rpcTx := newRPCTransaction(block, tx, uint64(i))
			if i < len(b.Senders) {
				rpcTx.From = b.Senders[i]
			}
			transactions[i] = rpcTx
		} else {
			transactions[i] = tx.Hash()
		}
	}
	fields["transactions"] = transactions
	uncles := block.Uncles()
	uncleHashes := make([]common.Hash, len(uncles))
	for i, uncle := range uncles {
		uncleHashes[i] = uncle.Hash()
	}
	fields["uncles"] = uncleHashes
	if block.Withdrawals() != nil {
		fields["withdrawals"] = block.Withdrawals()
	}
	calls := b.Calls
	if calls == nil {
		calls = []CallResult{}
	}
	fields["calls"] = calls
	return json.Marshal(fields)
}

// marshalHeader is geth's RPCMarshalHeader.
func marshalHeader(head *types.Header) map[string]any {
	result := map[string]any{
		"number":           (*hexutil.Big)(head.Number),
		"hash":             head.Hash(),
		"parentHash":       head.ParentHash,
		"nonce":            head.Nonce,
		"mixHash":          head.MixDigest,
		"sha3Uncles":       head.UncleHash,
		"logsBloom":        head.Bloom,
		"stateRoot":        head.Root,
		"miner":            head.Coinbase,
		"difficulty":       (*hexutil.Big)(head.Difficulty),
		"extraData":        hexutil.Bytes(head.Extra),
		"gasLimit":         hexutil.Uint64(head.GasLimit),
		"gasUsed":          hexutil.Uint64(head.GasUsed),
		"timestamp":        hexutil.Uint64(head.Time),
		"transactionsRoot": head.TxHash,
		"receiptsRoot":     head.ReceiptHash,
	}
	if head.BaseFee != nil {
		result["baseFeePerGas"] = (*hexutil.Big)(head.BaseFee)
	}
	if head.WithdrawalsHash != nil {
		result["withdrawalsRoot"] = head.WithdrawalsHash
	}
	if head.BlobGasUsed != nil {
		result["blobGasUsed"] = hexutil.Uint64(*head.BlobGasUsed)
	}
	if head.ExcessBlobGas != nil {
		result["excessBlobGas"] = hexutil.Uint64(*head.ExcessBlobGas)
	}
	if head.ParentBeaconRoot != nil {
		result["parentBeaconBlockRoot"] = head.ParentBeaconRoot
	}
	if head.RequestsHash != nil {
		result["requestsHash"] = head.RequestsHash
	}
	if head.BlockAccessListHash != nil {
		result["blockAccessListHash"] = head.BlockAccessListHash
	}
	if head.SlotNumber != nil {
		result["slotNumber"] = hexutil.Uint64(*head.SlotNumber)
	}
	return result
}

// rpcTransaction is geth's RPCTransaction (field order kept for identical output).
type rpcTransaction struct {
	BlockHash           *common.Hash                 `json:"blockHash"`
	BlockNumber         *hexutil.Big                 `json:"blockNumber"`
	BlockTimestamp      *hexutil.Uint64              `json:"blockTimestamp"`
	From                common.Address               `json:"from"`
	Gas                 hexutil.Uint64               `json:"gas"`
	GasPrice            *hexutil.Big                 `json:"gasPrice"`
	GasFeeCap           *hexutil.Big                 `json:"maxFeePerGas,omitempty"`
	GasTipCap           *hexutil.Big                 `json:"maxPriorityFeePerGas,omitempty"`
	MaxFeePerBlobGas    *hexutil.Big                 `json:"maxFeePerBlobGas,omitempty"`
	Hash                common.Hash                  `json:"hash"`
	Input               hexutil.Bytes                `json:"input"`
	Nonce               hexutil.Uint64               `json:"nonce"`
	To                  *common.Address              `json:"to"`
	TransactionIndex    *hexutil.Uint64              `json:"transactionIndex"`
	Value               *hexutil.Big                 `json:"value"`
	Type                hexutil.Uint64               `json:"type"`
	Accesses            *types.AccessList            `json:"accessList,omitempty"`
	ChainID             *hexutil.Big                 `json:"chainId,omitempty"`
	BlobVersionedHashes []common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList   []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	V                   *hexutil.Big                 `json:"v"`
	R                   *hexutil.Big                 `json:"r"`
	S                   *hexutil.Big                 `json:"s"`
	YParity             *hexutil.Uint64              `json:"yParity,omitempty"`
}

// newRPCTransaction is geth's newRPCTransaction for a transaction of a (simulated) block.
// The sender is left zero: simulated transactions are unsigned, the caller fills it in.
func newRPCTransaction(block *types.Block, tx *types.Transaction, index uint64) *rpcTransaction {
	v, r, s := tx.RawSignatureValues()
	blockHash := block.Hash()
	blockTime := block.Time()
	result := &rpcTransaction{
		BlockHash:        &blockHash,
		BlockNumber:      (*hexutil.Big)(new(big.Int).Set(block.Number())),
		BlockTimestamp:   (*hexutil.Uint64)(&blockTime),
		TransactionIndex: (*hexutil.Uint64)(&index),
		Type:             hexutil.Uint64(tx.Type()),
		Gas:              hexutil.Uint64(tx.Gas()),
		GasPrice:         (*hexutil.Big)(tx.GasPrice()),
		Hash:             tx.Hash(),
		Input:            hexutil.Bytes(tx.Data()),
		Nonce:            hexutil.Uint64(tx.Nonce()),
		To:               tx.To(),
		Value:            (*hexutil.Big)(tx.Value()),
		V:                (*hexutil.Big)(v),
		R:                (*hexutil.Big)(r),
		S:                (*hexutil.Big)(s),
	}
	if tx.Type() == types.LegacyTxType {
		if id := tx.ChainId(); id.Sign() != 0 {
			result.ChainID = (*hexutil.Big)(id)
		}
		return result
	}
	al := tx.AccessList()
	yParity := hexutil.Uint64(v.Sign())
	result.Accesses = &al
	result.ChainID = (*hexutil.Big)(tx.ChainId())
	result.YParity = &yParity
	if tx.Type() == types.AccessListTxType {
		return result
	}
	result.GasFeeCap = (*hexutil.Big)(tx.GasFeeCap())
	result.GasTipCap = (*hexutil.Big)(tx.GasTipCap())
	if baseFee := block.BaseFee(); baseFee != nil {
		result.GasPrice = (*hexutil.Big)(effectiveGasPrice(tx, baseFee))
	} else {
		result.GasPrice = (*hexutil.Big)(tx.GasFeeCap())
	}
	switch tx.Type() {
	case types.BlobTxType:
		result.MaxFeePerBlobGas = (*hexutil.Big)(tx.BlobGasFeeCap())
		result.BlobVersionedHashes = tx.BlobHashes()
	case types.SetCodeTxType:
		result.AuthorizationList = tx.SetCodeAuthorizations()
	}
	return result
}

// effectiveGasPrice is min(tip + baseFee, feeCap).
func effectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	fee := tx.GasTipCap()
	fee = fee.Add(fee, baseFee)
	if tx.GasFeeCapIntCmp(fee) < 0 {
		return tx.GasFeeCap()
	}
	return fee
}

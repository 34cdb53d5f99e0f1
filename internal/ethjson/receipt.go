package ethjson

// This file encodes receipts the way go-ethereum's MarshalReceipt builds its map; encoding/json
// writes map keys in byte order, and so do these encoders.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// AppendReceipt appends r as go-ethereum's MarshalReceipt marshals it (eth_getTransactionReceipt,
// eth_getBlockReceipts). r must have its derived fields filled (GasUsed, EffectiveGasPrice,
// BlobGasPrice, ContractAddress and the logs' location fields), as rawdb.ReadReceipts and
// BlockChain.GetReceiptsByHash return them. tx is the receipt's transaction; blockHash,
// blockNumber and txIndex are written as given (pre-confirmed receipts carry the zero hash,
// decisions.md); signer recovers "from". Blob transactions add blobGasUsed and blobGasPrice;
// a receipt with a post-state root has "root" instead of "status"; contractAddress is null
// unless the receipt's ContractAddress is non-zero.
func AppendReceipt(dst []byte, r *types.Receipt, tx *types.Transaction, blockHash common.Hash, blockNumber uint64, signer types.Signer, txIndex int) []byte {
	from, _ := types.Sender(signer, tx)
	txType := tx.Type()
	start := len(dst)
	if txType == types.BlobTxType {
		dst = append(dst, `,"blobGasPrice":`...)
		dst = AppendBig(dst, r.BlobGasPrice)
		dst = append(dst, `,"blobGasUsed":`...)
		dst = AppendQuantity(dst, r.BlobGasUsed)
	}
	dst = append(dst, `,"blockHash":`...)
	dst = AppendHash(dst, blockHash)
	dst = append(dst, `,"blockNumber":`...)
	dst = AppendQuantity(dst, blockNumber)
	dst = append(dst, `,"contractAddress":`...)
	if r.ContractAddress != (common.Address{}) {
		dst = AppendAddress(dst, r.ContractAddress)
	} else {
		dst = append(dst, Null...)
	}
	dst = append(dst, `,"cumulativeGasUsed":`...)
	dst = AppendQuantity(dst, r.CumulativeGasUsed)
	dst = append(dst, `,"effectiveGasPrice":`...)
	dst = AppendBig(dst, r.EffectiveGasPrice)
	dst = append(dst, `,"from":`...)
	dst = AppendAddress(dst, from)
	dst = append(dst, `,"gasUsed":`...)
	dst = AppendQuantity(dst, r.GasUsed)
	dst = append(dst, `,"logs":`...)
	dst = AppendLogs(dst, r.Logs)
	dst = append(dst, `,"logsBloom":`...)
	dst = AppendHexBytes(dst, r.Bloom[:])
	if len(r.PostState) > 0 {
		dst = append(dst, `,"root":`...)
		dst = AppendHexBytes(dst, r.PostState)
	} else {
		dst = append(dst, `,"status":`...)
		dst = AppendQuantity(dst, r.Status)
	}
	dst = append(dst, `,"to":`...)
	dst = appendAddressPtr(dst, tx.To())
	dst = append(dst, `,"transactionHash":`...)
	dst = AppendHash(dst, tx.Hash())
	dst = append(dst, `,"transactionIndex":`...)
	dst = AppendQuantity(dst, uint64(txIndex))
	dst = append(dst, `,"type":`...)
	dst = AppendQuantity(dst, uint64(txType))
	dst[start] = '{'
	return append(dst, '}')
}

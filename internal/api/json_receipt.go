package api

// This file encodes receipts the way go-ethereum's MarshalReceipt builds its map; encoding/json
// writes map keys in byte order, and so do these encoders.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// appendReceipt appends r as go-ethereum's MarshalReceipt marshals it (eth_getTransactionReceipt,
// eth_getBlockReceipts). r must have its derived fields filled (GasUsed, EffectiveGasPrice,
// BlobGasPrice, ContractAddress and the logs' location fields), as rawdb.ReadReceipts and
// BlockChain.GetReceiptsByHash return them. tx is the receipt's transaction; blockHash,
// blockNumber and txIndex are written as given (pre-confirmed receipts carry the zero hash,
// decisions.md); signer recovers "from". Blob transactions add blobGasUsed and blobGasPrice;
// a receipt with a post-state root has "root" instead of "status"; contractAddress is null
// unless the receipt's ContractAddress is non-zero.
func appendReceipt(dst []byte, r *types.Receipt, tx *types.Transaction, blockHash common.Hash, blockNumber uint64, signer types.Signer, txIndex int) []byte {
	from, _ := types.Sender(signer, tx)
	txType := tx.Type()
	start := len(dst)
	if txType == types.BlobTxType {
		dst = append(dst, `,"blobGasPrice":`...)
		dst = appendBig(dst, r.BlobGasPrice)
		dst = append(dst, `,"blobGasUsed":`...)
		dst = appendQuantity(dst, r.BlobGasUsed)
	}
	dst = append(dst, `,"blockHash":`...)
	dst = appendHash(dst, blockHash)
	dst = append(dst, `,"blockNumber":`...)
	dst = appendQuantity(dst, blockNumber)
	dst = append(dst, `,"contractAddress":`...)
	if r.ContractAddress != (common.Address{}) {
		dst = appendAddress(dst, r.ContractAddress)
	} else {
		dst = append(dst, jsonNull...)
	}
	dst = append(dst, `,"cumulativeGasUsed":`...)
	dst = appendQuantity(dst, r.CumulativeGasUsed)
	dst = append(dst, `,"effectiveGasPrice":`...)
	dst = appendBig(dst, r.EffectiveGasPrice)
	dst = append(dst, `,"from":`...)
	dst = appendAddress(dst, from)
	dst = append(dst, `,"gasUsed":`...)
	dst = appendQuantity(dst, r.GasUsed)
	dst = append(dst, `,"logs":`...)
	dst = appendLogs(dst, r.Logs)
	dst = append(dst, `,"logsBloom":`...)
	dst = appendHexBytes(dst, r.Bloom[:])
	if len(r.PostState) > 0 {
		dst = append(dst, `,"root":`...)
		dst = appendHexBytes(dst, r.PostState)
	} else {
		dst = append(dst, `,"status":`...)
		dst = appendQuantity(dst, r.Status)
	}
	dst = append(dst, `,"to":`...)
	dst = appendAddressPtr(dst, tx.To())
	dst = append(dst, `,"transactionHash":`...)
	dst = appendHash(dst, tx.Hash())
	dst = append(dst, `,"transactionIndex":`...)
	dst = appendQuantity(dst, uint64(txIndex))
	dst = append(dst, `,"type":`...)
	dst = appendQuantity(dst, uint64(txType))
	dst[start] = '{'
	return append(dst, '}')
}

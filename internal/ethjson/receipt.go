package ethjson

// This file encodes receipts the way op-geth's MarshalReceipt builds its map; encoding/json
// writes map keys in byte order, and so do these encoders.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// AppendReceipt appends r as op-geth's MarshalReceipt marshals it (eth_getTransactionReceipt,
// eth_getBlockReceipts). r must have its derived fields filled (GasUsed, EffectiveGasPrice,
// BlobGasPrice, ContractAddress, the logs' location fields and on an OP Stack chain the L1 fee
// fields), as rawdb.ReadReceipts and BlockChain.GetReceiptsByHash return them. tx is the
// receipt's transaction; blockHash, blockNumber and txIndex are written as given
// (pre-confirmed receipts carry the zero hash, decisions.md); signer recovers "from"; config
// says whether the chain is an OP Stack chain. Blob transactions add blobGasUsed and
// blobGasPrice; a receipt with a post-state root has "root" instead of "status";
// contractAddress is null unless the receipt's ContractAddress is non-zero. On an OP Stack
// chain a deposit's receipt adds depositNonce and depositReceiptVersion, every other receipt
// the L1 fee fields (see appendL1FeeFields).
func AppendReceipt(dst []byte, r *types.Receipt, tx *types.Transaction, blockHash common.Hash, blockNumber uint64, signer types.Signer, txIndex int, config *params.ChainConfig) []byte {
	return AppendReceiptMs(dst, r, tx, blockHash, blockNumber, signer, txIndex, config, nil)
}

// AppendReceiptMs is AppendReceipt with the sealed block's time in milliseconds as each
// log's "blockTimestampMs" when ms is not nil (a Denim block; the receipt itself has no such
// field, as on Base).
func AppendReceiptMs(dst []byte, r *types.Receipt, tx *types.Transaction, blockHash common.Hash, blockNumber uint64, signer types.Signer, txIndex int, config *params.ChainConfig, ms *uint64) []byte {
	from, _ := types.Sender(signer, tx)
	txType := tx.Type()
	op := config.IsOptimism()
	l1Fees := op && txType != types.DepositTxType
	start := len(dst)
	switch {
	case txType == types.BlobTxType:
		dst = append(dst, `,"blobGasPrice":`...)
		dst = AppendBig(dst, r.BlobGasPrice)
		dst = append(dst, `,"blobGasUsed":`...)
		dst = AppendQuantity(dst, r.BlobGasUsed)
	case l1Fees && r.DAFootprintGasScalar != nil:
		// Jovian repurposes blobGasUsed for the transaction's DA footprint.
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
	if l1Fees && r.DAFootprintGasScalar != nil {
		dst = append(dst, `,"daFootprintGasScalar":`...)
		dst = AppendQuantity(dst, *r.DAFootprintGasScalar)
	}
	if op && txType == types.DepositTxType && r.DepositNonce != nil {
		dst = append(dst, `,"depositNonce":`...)
		dst = AppendQuantity(dst, *r.DepositNonce)
		if r.DepositReceiptVersion != nil {
			dst = append(dst, `,"depositReceiptVersion":`...)
			dst = AppendQuantity(dst, *r.DepositReceiptVersion)
		}
	}
	dst = append(dst, `,"effectiveGasPrice":`...)
	dst = AppendBig(dst, r.EffectiveGasPrice)
	dst = append(dst, `,"from":`...)
	dst = AppendAddress(dst, from)
	dst = append(dst, `,"gasUsed":`...)
	dst = AppendQuantity(dst, r.GasUsed)
	if l1Fees {
		dst = appendL1FeeFields(dst, r)
	}
	dst = append(dst, `,"logs":`...)
	dst = AppendLogsMs(dst, r.Logs, ms)
	dst = append(dst, `,"logsBloom":`...)
	dst = AppendHexBytes(dst, r.Bloom[:])
	if l1Fees {
		dst = appendOperatorFeeFields(dst, r)
	}
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

// appendL1FeeFields appends the L1 data fee fields of a non-deposit receipt on an OP Stack
// chain, between gasUsed and logs in key order: l1GasPrice, l1GasUsed and l1Fee always (null
// when not derived), the others when set (l1FeeScalar before Ecotone, l1BlobBaseFee and the
// two scalars since).
func appendL1FeeFields(dst []byte, r *types.Receipt) []byte {
	if r.L1BaseFeeScalar != nil {
		dst = append(dst, `,"l1BaseFeeScalar":`...)
		dst = AppendQuantity(dst, *r.L1BaseFeeScalar)
	}
	if r.L1BlobBaseFee != nil {
		dst = append(dst, `,"l1BlobBaseFee":`...)
		dst = AppendBig(dst, r.L1BlobBaseFee)
	}
	if r.L1BlobBaseFeeScalar != nil {
		dst = append(dst, `,"l1BlobBaseFeeScalar":`...)
		dst = AppendQuantity(dst, *r.L1BlobBaseFeeScalar)
	}
	dst = append(dst, `,"l1Fee":`...)
	dst = AppendBig(dst, r.L1Fee)
	if r.FeeScalar != nil {
		// big.Float's String: digits, '.', 'e' and signs only, nothing to escape.
		dst = append(dst, `,"l1FeeScalar":"`...)
		dst = append(dst, r.FeeScalar.String()...)
		dst = append(dst, '"')
	}
	dst = append(dst, `,"l1GasPrice":`...)
	dst = AppendBig(dst, r.L1GasPrice)
	dst = append(dst, `,"l1GasUsed":`...)
	return AppendBig(dst, r.L1GasUsed)
}

// appendOperatorFeeFields appends the Isthmus operator fee fields, when set (op-geth derives
// them only when either is non-zero), between logsBloom and status in key order.
func appendOperatorFeeFields(dst []byte, r *types.Receipt) []byte {
	if r.OperatorFeeConstant != nil {
		dst = append(dst, `,"operatorFeeConstant":`...)
		dst = AppendQuantity(dst, *r.OperatorFeeConstant)
	}
	if r.OperatorFeeScalar != nil {
		dst = append(dst, `,"operatorFeeScalar":`...)
		dst = AppendQuantity(dst, *r.OperatorFeeScalar)
	}
	return dst
}

package ethjson

// This file holds the OP Stack deposit transaction's own fields (type 0x7e), in the order
// op-geth's RPCTransaction declares them. Unlike op-geth, which omits a nil mint and a false
// isSystemTx, both are always written, as Base's node writes them (decisions.md).

import "github.com/ethereum/go-ethereum/core/types"

// appendDepositFields appends sourceHash, mint, isSystemTx and, when receipt has one,
// depositReceiptVersion.
func appendDepositFields(dst []byte, tx *types.Transaction, receipt *types.Receipt) []byte {
	dst = append(dst, `,"sourceHash":`...)
	dst = AppendHash(dst, tx.SourceHash())
	dst = append(dst, `,"mint":`...)
	if mint := tx.Mint(); mint != nil {
		dst = AppendBig(dst, mint)
	} else {
		dst = append(dst, `"0x0"`...)
	}
	dst = append(dst, `,"isSystemTx":`...)
	dst = AppendBool(dst, tx.IsSystemTx())
	if receipt != nil && receipt.DepositNonce != nil && receipt.DepositReceiptVersion != nil {
		dst = append(dst, `,"depositReceiptVersion":`...)
		dst = AppendQuantity(dst, *receipt.DepositReceiptVersion)
	}
	return dst
}

// txNonce is a transaction's "nonce": for a deposit the nonce its sender had when it ran,
// which only its receipt knows (0 without one, as op-geth writes it).
func txNonce(tx *types.Transaction, receipt *types.Receipt) uint64 {
	if tx.Type() != types.DepositTxType {
		return tx.Nonce()
	}
	if receipt != nil && receipt.DepositNonce != nil {
		return *receipt.DepositNonce
	}
	return 0
}

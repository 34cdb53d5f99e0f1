package ethjson

// This file encodes transactions the way go-ethereum's newRPCTransaction fills and
// encoding/json marshals its RPCTransaction struct: keys in struct field order, location
// fields null for a transaction outside any block, and the type-specific fields (accessList,
// chainId, yParity, fee caps, blob fields, authorizationList) present or omitted per type
// exactly as geth's omitempty rules give.

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// TxLocation says where a transaction sits. For a sealed block all fields are set. For a
// pre-confirmed transaction (block in progress) BlockHash is nil: the transaction JSON has
// "blockHash": null while blockNumber, blockTimestamp and transactionIndex are set
// (decisions.md). A transaction not in any block (a pool transaction) has Located == false:
// blockHash, blockNumber, blockTimestamp and transactionIndex are all null, like geth's pending
// transactions; its BlockNumber, BlockTime and Index are then ignored.
type TxLocation struct {
	Located     bool
	BlockHash   *common.Hash // nil → JSON null
	BlockNumber uint64
	BlockTime   uint64
	Index       uint64
	// BaseFee is the block's base fee (nil before London). For a located transaction with a
	// base fee, the gasPrice of fee-market transactions (types 2, 3, 4) is the effective gas
	// price min(maxPriorityFeePerGas + baseFee, maxFeePerGas); otherwise it is maxFeePerGas,
	// as geth prints pending transactions.
	BaseFee *big.Int
	// Sender, when set, is written as "from" instead of the sender recovered from the
	// signature: eth_simulateV1's transactions are unsigned.
	Sender *common.Address
	// Receipt is the transaction's receipt, needed for a deposit only: its "nonce" is the
	// receipt's depositNonce and its "depositReceiptVersion" the receipt's (op-geth). Without
	// it a deposit's nonce is 0 and the version is omitted.
	Receipt *types.Receipt
	// TimeMs, when set on a located transaction, is its sealed block's time in milliseconds
	// (Denim), written as "blockTimestampMs" after blockTimestamp; nil leaves it out.
	TimeMs *uint64
}

// AppendTransaction appends tx as go-ethereum's newRPCTransaction marshals it, at location loc.
// The sender of a located transaction is recovered with types.MakeSigner(config, number,
// time), as geth does; a transaction outside any block uses types.LatestSigner(config), which
// recovers the same sender for every transaction the head's rules admit (geth uses the head's
// MakeSigner). types.Sender caches the sender in tx, so repeated calls are cheap when the same
// signer was used before. An unrecoverable sender is written as the zero address, as in geth.
func AppendTransaction(dst []byte, tx *types.Transaction, loc TxLocation, config *params.ChainConfig) []byte {
	var signer types.Signer
	if loc.Located {
		signer = types.MakeSigner(config, new(big.Int).SetUint64(loc.BlockNumber), loc.BlockTime)
	} else {
		signer = types.LatestSigner(config)
	}
	return appendTransactionSigner(dst, tx, loc, signer)
}

// appendTransactionSigner is AppendTransaction with the signer chosen by the caller.
func appendTransactionSigner(dst []byte, tx *types.Transaction, loc TxLocation, signer types.Signer) []byte {
	var from common.Address
	if loc.Sender != nil {
		from = *loc.Sender
	} else {
		from, _ = types.Sender(signer, tx)
	}
	txType := tx.Type()

	dst = append(dst, `{"blockHash":`...)
	if loc.Located {
		dst = appendHashPtr(dst, loc.BlockHash)
		dst = append(dst, `,"blockNumber":`...)
		dst = AppendQuantity(dst, loc.BlockNumber)
		dst = append(dst, `,"blockTimestamp":`...)
		dst = AppendQuantity(dst, loc.BlockTime)
		if loc.TimeMs != nil {
			dst = append(dst, `,"blockTimestampMs":`...)
			dst = AppendQuantity(dst, *loc.TimeMs)
		}
	} else {
		dst = append(dst, `null,"blockNumber":null,"blockTimestamp":null`...)
	}
	dst = append(dst, `,"from":`...)
	dst = AppendAddress(dst, from)
	dst = append(dst, `,"gas":`...)
	dst = AppendQuantity(dst, tx.Gas())
	dst = appendTxFees(dst, tx, txType, loc)
	dst = append(dst, `,"hash":`...)
	dst = AppendHash(dst, tx.Hash())
	dst = append(dst, `,"input":`...)
	dst = AppendHexBytes(dst, tx.Data())
	dst = append(dst, `,"nonce":`...)
	dst = AppendQuantity(dst, txNonce(tx, loc.Receipt))
	dst = append(dst, `,"to":`...)
	dst = appendAddressPtr(dst, tx.To())
	dst = append(dst, `,"transactionIndex":`...)
	if loc.Located {
		dst = AppendQuantity(dst, loc.Index)
	} else {
		dst = append(dst, Null...)
	}
	dst = append(dst, `,"value":`...)
	dst = AppendBig(dst, tx.Value())
	dst = append(dst, `,"type":`...)
	dst = AppendQuantity(dst, uint64(txType))
	dst = appendTxTypeFields(dst, tx, txType)
	dst = appendTxSignature(dst, tx, txType)
	if txType == types.DepositTxType {
		dst = appendDepositFields(dst, tx, loc.Receipt)
	}
	return append(dst, '}')
}

// appendTxFees appends gasPrice and, per type, maxFeePerGas, maxPriorityFeePerGas and
// maxFeePerBlobGas. For fee-market types gasPrice is the effective price when the
// transaction is located in a block with a base fee, else maxFeePerGas (see TxLocation).
func appendTxFees(dst []byte, tx *types.Transaction, txType uint8, loc TxLocation) []byte {
	dst = append(dst, `,"gasPrice":`...)
	if txType != types.DynamicFeeTxType && txType != types.BlobTxType && txType != types.SetCodeTxType {
		return AppendBig(dst, tx.GasPrice())
	}
	// The accessors copy; fetch each value once.
	feeCap, tipCap := tx.GasFeeCap(), tx.GasTipCap()
	if loc.Located && loc.BaseFee != nil {
		dst = AppendBig(dst, minTipPlusBase(tipCap, feeCap, loc.BaseFee))
	} else {
		dst = AppendBig(dst, feeCap)
	}
	dst = append(dst, `,"maxFeePerGas":`...)
	dst = AppendBig(dst, feeCap)
	dst = append(dst, `,"maxPriorityFeePerGas":`...)
	dst = AppendBig(dst, tipCap)
	if txType == types.BlobTxType {
		dst = append(dst, `,"maxFeePerBlobGas":`...)
		dst = AppendBig(dst, tx.BlobGasFeeCap())
	}
	return dst
}

// appendTxSignature appends v, r, s and, for the typed transactions geth knows, yParity.
func appendTxSignature(dst []byte, tx *types.Transaction, txType uint8) []byte {
	v, r, s := tx.RawSignatureValues()
	dst = append(dst, `,"v":`...)
	dst = AppendBig(dst, v)
	dst = append(dst, `,"r":`...)
	dst = AppendBig(dst, r)
	dst = append(dst, `,"s":`...)
	dst = AppendBig(dst, s)
	if txType >= types.AccessListTxType && txType <= types.SetCodeTxType {
		dst = append(dst, `,"yParity":`...)
		dst = AppendQuantity(dst, txYParity(v))
	}
	return dst
}

// appendTxTypeFields appends accessList, chainId, blobVersionedHashes and authorizationList as
// newRPCTransaction sets them for txType: legacy transactions carry only a non-zero EIP-155
// chainId; typed transactions always carry accessList and chainId; the list fields are
// omitted when empty.
func appendTxTypeFields(dst []byte, tx *types.Transaction, txType uint8) []byte {
	switch txType {
	case types.LegacyTxType:
		if id := tx.ChainId(); id.Sign() != 0 {
			dst = append(dst, `,"chainId":`...)
			dst = AppendBig(dst, id)
		}
		return dst
	case types.AccessListTxType, types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
	default:
		return dst
	}
	dst = append(dst, `,"accessList":`...)
	dst = AppendAccessList(dst, tx.AccessList())
	dst = append(dst, `,"chainId":`...)
	dst = AppendBig(dst, tx.ChainId())
	if hs := tx.BlobHashes(); txType == types.BlobTxType && len(hs) > 0 {
		dst = append(dst, `,"blobVersionedHashes":`...)
		dst = appendHashes(dst, hs)
	}
	if auths := tx.SetCodeAuthorizations(); txType == types.SetCodeTxType && len(auths) > 0 {
		dst = append(dst, `,"authorizationList":`...)
		dst = appendAuthorizations(dst, auths)
	}
	return dst
}

// txYParity is geth's hexutil.Uint64(v.Sign()) for a typed transaction's signature value v
// (0 or 1 for any valid signature).
func txYParity(v *big.Int) uint64 {
	if v == nil {
		return 0
	}
	return uint64(int64(v.Sign()))
}

// minTipPlusBase is min(tipCap + baseFee, feeCap), geth's effectiveGasPrice: the price of a
// mined fee-market transaction. It returns feeCap itself or a new value.
func minTipPlusBase(tipCap, feeCap, baseFee *big.Int) *big.Int {
	fee := new(big.Int).Add(tipCap, baseFee)
	if feeCap.Cmp(fee) < 0 {
		return feeCap
	}
	return fee
}

// appendAccessList appends al as a JSON array of types.AccessTuple objects; a nil list is
// null, as geth marshals a pointer to a nil types.AccessList.
func AppendAccessList(dst []byte, al types.AccessList) []byte {
	if al == nil {
		return append(dst, Null...)
	}
	dst = append(dst, '[')
	for i := range al {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"address":`...)
		dst = AppendAddress(dst, al[i].Address)
		dst = append(dst, `,"storageKeys":`...)
		dst = appendHashes(dst, al[i].StorageKeys)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendAuthorizations appends auths as a JSON array of types.SetCodeAuthorization objects.
func appendAuthorizations(dst []byte, auths []types.SetCodeAuthorization) []byte {
	dst = append(dst, '[')
	for i := range auths {
		a := &auths[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"chainId":`...)
		dst = AppendU256(dst, &a.ChainID)
		dst = append(dst, `,"address":`...)
		dst = AppendAddress(dst, a.Address)
		dst = append(dst, `,"nonce":`...)
		dst = AppendQuantity(dst, a.Nonce)
		dst = append(dst, `,"yParity":`...)
		dst = AppendQuantity(dst, uint64(a.V))
		dst = append(dst, `,"r":`...)
		dst = AppendU256(dst, &a.R)
		dst = append(dst, `,"s":`...)
		dst = AppendU256(dst, &a.S)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

package api

// This file encodes block headers the way go-ethereum's RPCMarshalHeader does. geth builds a
// map, so encoding/json writes the keys in byte order; the encoders here write the same keys in
// the same order by hand. A block (json_block.go) adds size, transactions, uncles and
// withdrawals, which fall between header keys in that order, so the header is written in
// segments:
//
//	baseFeePerGas … sha3Uncles   appendHeaderFirst
//	size                         (block only)
//	slotNumber stateRoot timestamp  appendHeaderSecond
//	transactions                 (block only)
//	transactionsRoot
//	uncles withdrawals           (block only)
//	withdrawalsRoot

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// appendHeader appends h as go-ethereum's RPCMarshalHeader marshals it (eth_getHeaderByNumber,
// newHeads notifications). Optional fork fields (baseFeePerGas, withdrawalsRoot, blobGasUsed,
// excessBlobGas, parentBeaconBlockRoot, requestsHash, blockAccessListHash, slotNumber) are
// written only when set in h. It computes h.Hash().
func appendHeader(dst []byte, h *types.Header) []byte {
	start := len(dst)
	dst = appendHeaderFirst(dst, h, h.Hash())
	dst = appendHeaderSecond(dst, h)
	dst = appendHeaderLast(dst, h)
	dst[start] = '{'
	return append(dst, '}')
}

// appendHeaderFirst appends the header keys from baseFeePerGas to sha3Uncles, each preceded
// by a comma (the caller turns the object's first comma into '{'). hash is written as "hash".
func appendHeaderFirst(dst []byte, h *types.Header, hash common.Hash) []byte {
	if h.BaseFee != nil {
		dst = append(dst, `,"baseFeePerGas":`...)
		dst = appendBig(dst, h.BaseFee)
	}
	if h.BlobGasUsed != nil {
		dst = append(dst, `,"blobGasUsed":`...)
		dst = appendQuantity(dst, *h.BlobGasUsed)
	}
	if h.BlockAccessListHash != nil {
		dst = append(dst, `,"blockAccessListHash":`...)
		dst = appendHash(dst, *h.BlockAccessListHash)
	}
	dst = append(dst, `,"difficulty":`...)
	dst = appendBig(dst, h.Difficulty)
	if h.ExcessBlobGas != nil {
		dst = append(dst, `,"excessBlobGas":`...)
		dst = appendQuantity(dst, *h.ExcessBlobGas)
	}
	dst = append(dst, `,"extraData":`...)
	dst = appendHexBytes(dst, h.Extra)
	dst = append(dst, `,"gasLimit":`...)
	dst = appendQuantity(dst, h.GasLimit)
	dst = append(dst, `,"gasUsed":`...)
	dst = appendQuantity(dst, h.GasUsed)
	dst = append(dst, `,"hash":`...)
	dst = appendHash(dst, hash)
	dst = append(dst, `,"logsBloom":`...)
	dst = appendHexBytes(dst, h.Bloom[:])
	dst = append(dst, `,"miner":`...)
	dst = appendAddress(dst, h.Coinbase)
	dst = append(dst, `,"mixHash":`...)
	dst = appendHash(dst, h.MixDigest)
	dst = append(dst, `,"nonce":`...)
	dst = appendHexBytes(dst, h.Nonce[:])
	dst = append(dst, `,"number":`...)
	dst = appendBig(dst, h.Number)
	if h.ParentBeaconRoot != nil {
		dst = append(dst, `,"parentBeaconBlockRoot":`...)
		dst = appendHash(dst, *h.ParentBeaconRoot)
	}
	dst = append(dst, `,"parentHash":`...)
	dst = appendHash(dst, h.ParentHash)
	dst = append(dst, `,"receiptsRoot":`...)
	dst = appendHash(dst, h.ReceiptHash)
	if h.RequestsHash != nil {
		dst = append(dst, `,"requestsHash":`...)
		dst = appendHash(dst, *h.RequestsHash)
	}
	dst = append(dst, `,"sha3Uncles":`...)
	return appendHash(dst, h.UncleHash)
}

// appendHeaderSecond appends the header keys slotNumber, stateRoot and timestamp.
func appendHeaderSecond(dst []byte, h *types.Header) []byte {
	if h.SlotNumber != nil {
		dst = append(dst, `,"slotNumber":`...)
		dst = appendQuantity(dst, *h.SlotNumber)
	}
	dst = append(dst, `,"stateRoot":`...)
	dst = appendHash(dst, h.Root)
	dst = append(dst, `,"timestamp":`...)
	return appendQuantity(dst, h.Time)
}

// appendHeaderLast appends the header keys transactionsRoot and withdrawalsRoot, for a header
// without block fields.
func appendHeaderLast(dst []byte, h *types.Header) []byte {
	dst = appendTransactionsRoot(dst, h)
	return appendWithdrawalsRoot(dst, h)
}

func appendTransactionsRoot(dst []byte, h *types.Header) []byte {
	dst = append(dst, `,"transactionsRoot":`...)
	return appendHash(dst, h.TxHash)
}

func appendWithdrawalsRoot(dst []byte, h *types.Header) []byte {
	if h.WithdrawalsHash == nil {
		return dst
	}
	dst = append(dst, `,"withdrawalsRoot":`...)
	return appendHash(dst, *h.WithdrawalsHash)
}

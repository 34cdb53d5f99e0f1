package ethjson

// This file encodes block headers the way go-ethereum's RPCMarshalHeader does. geth builds a
// map, so encoding/json writes the keys in byte order; the encoders here write the same keys in
// the same order by hand. A block (block.go) adds size, transactions, uncles and
// withdrawals, which fall between header keys in that order, so the header is written in
// segments:
//
//	baseFeePerGas … sha3Uncles   appendHeaderFirst
//	size                         (block only)
//	slotNumber stateRoot timestamp timestampMs  appendHeaderSecond
//	transactions                 (block only)
//	transactionsRoot
//	uncles withdrawals           (block only)
//	withdrawalsRoot

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// AppendHeader appends h as go-ethereum's RPCMarshalHeader marshals it (eth_getHeaderByNumber,
// newHeads notifications). Optional fork fields (baseFeePerGas, withdrawalsRoot, blobGasUsed,
// excessBlobGas, parentBeaconBlockRoot, requestsHash, blockAccessListHash, slotNumber) are
// written only when set in h. It computes h.Hash().
func AppendHeader(dst []byte, h *types.Header) []byte { return AppendHeaderMs(dst, h, nil) }

// AppendHeaderMs is AppendHeader with the block's time in milliseconds as "timestampMs"
// (after "timestamp") when ms is not nil: a sealed Denim block's, as Base's node writes it.
func AppendHeaderMs(dst []byte, h *types.Header, ms *uint64) []byte {
	start := len(dst)
	dst = appendHeaderFirst(dst, h, h.Hash())
	dst = appendHeaderSecond(dst, h, ms)
	dst = appendHeaderLast(dst, h)
	dst[start] = '{'
	return append(dst, '}')
}

// AppendUncle appends uncle h as go-ethereum's RPCMarshalBlock(inclTx = false) writes an
// uncle: as a block of its own, the header's keys plus size and an empty uncles list.
func AppendUncle(dst []byte, h *types.Header) []byte {
	start := len(dst)
	dst = appendHeaderFirst(dst, h, h.Hash())
	dst = append(dst, `,"size":`...)
	dst = AppendQuantity(dst, types.NewBlockWithHeader(h).Size())
	dst = appendHeaderSecond(dst, h, nil)
	dst = appendTransactionsRoot(dst, h)
	dst = append(dst, `,"uncles":[]`...)
	dst = appendWithdrawalsRoot(dst, h)
	dst[start] = '{'
	return append(dst, '}')
}

// appendHeaderFirst appends the header keys from baseFeePerGas to sha3Uncles, each preceded
// by a comma (the caller turns the object's first comma into '{'). hash is written as "hash".
func appendHeaderFirst(dst []byte, h *types.Header, hash common.Hash) []byte {
	if h.BaseFee != nil {
		dst = append(dst, `,"baseFeePerGas":`...)
		dst = AppendBig(dst, h.BaseFee)
	}
	if h.BlobGasUsed != nil {
		dst = append(dst, `,"blobGasUsed":`...)
		dst = AppendQuantity(dst, *h.BlobGasUsed)
	}
	if h.BlockAccessListHash != nil {
		dst = append(dst, `,"blockAccessListHash":`...)
		dst = AppendHash(dst, *h.BlockAccessListHash)
	}
	dst = append(dst, `,"difficulty":`...)
	dst = AppendBig(dst, h.Difficulty)
	if h.ExcessBlobGas != nil {
		dst = append(dst, `,"excessBlobGas":`...)
		dst = AppendQuantity(dst, *h.ExcessBlobGas)
	}
	dst = append(dst, `,"extraData":`...)
	dst = AppendHexBytes(dst, h.Extra)
	dst = append(dst, `,"gasLimit":`...)
	dst = AppendQuantity(dst, h.GasLimit)
	dst = append(dst, `,"gasUsed":`...)
	dst = AppendQuantity(dst, h.GasUsed)
	dst = append(dst, `,"hash":`...)
	dst = AppendHash(dst, hash)
	dst = append(dst, `,"logsBloom":`...)
	dst = AppendHexBytes(dst, h.Bloom[:])
	dst = append(dst, `,"miner":`...)
	dst = AppendAddress(dst, h.Coinbase)
	dst = append(dst, `,"mixHash":`...)
	dst = AppendHash(dst, h.MixDigest)
	dst = append(dst, `,"nonce":`...)
	dst = AppendHexBytes(dst, h.Nonce[:])
	dst = append(dst, `,"number":`...)
	dst = AppendBig(dst, h.Number)
	if h.ParentBeaconRoot != nil {
		dst = append(dst, `,"parentBeaconBlockRoot":`...)
		dst = AppendHash(dst, *h.ParentBeaconRoot)
	}
	dst = append(dst, `,"parentHash":`...)
	dst = AppendHash(dst, h.ParentHash)
	dst = append(dst, `,"receiptsRoot":`...)
	dst = AppendHash(dst, h.ReceiptHash)
	if h.RequestsHash != nil {
		dst = append(dst, `,"requestsHash":`...)
		dst = AppendHash(dst, *h.RequestsHash)
	}
	dst = append(dst, `,"sha3Uncles":`...)
	return AppendHash(dst, h.UncleHash)
}

// appendHeaderSecond appends the header keys slotNumber, stateRoot, timestamp and, when ms is
// not nil, timestampMs.
func appendHeaderSecond(dst []byte, h *types.Header, ms *uint64) []byte {
	if h.SlotNumber != nil {
		dst = append(dst, `,"slotNumber":`...)
		dst = AppendQuantity(dst, *h.SlotNumber)
	}
	dst = append(dst, `,"stateRoot":`...)
	dst = AppendHash(dst, h.Root)
	dst = append(dst, `,"timestamp":`...)
	dst = AppendQuantity(dst, h.Time)
	if ms != nil {
		dst = append(dst, `,"timestampMs":`...)
		dst = AppendQuantity(dst, *ms)
	}
	return dst
}

// appendHeaderLast appends the header keys transactionsRoot and withdrawalsRoot, for a header
// without block fields.
func appendHeaderLast(dst []byte, h *types.Header) []byte {
	dst = appendTransactionsRoot(dst, h)
	return appendWithdrawalsRoot(dst, h)
}

func appendTransactionsRoot(dst []byte, h *types.Header) []byte {
	dst = append(dst, `,"transactionsRoot":`...)
	return AppendHash(dst, h.TxHash)
}

func appendWithdrawalsRoot(dst []byte, h *types.Header) []byte {
	if h.WithdrawalsHash == nil {
		return dst
	}
	dst = append(dst, `,"withdrawalsRoot":`...)
	return AppendHash(dst, *h.WithdrawalsHash)
}

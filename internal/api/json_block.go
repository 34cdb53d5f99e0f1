package api

// This file encodes blocks the way go-ethereum's RPCMarshalBlock(block, inclTx=true, fullTx,
// config) does: the header keys (json_header.go) plus size, transactions, uncles and, when the
// block carries them, withdrawals, all in byte order of the keys.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// blockJSONOptions adjusts a block's JSON for blocks that are not (yet) sealed. The zero value
// encodes a sealed block exactly as geth does.
type blockJSONOptions struct {
	// hash, if not nil, replaces block.Hash() in the block's "hash" and, unless inProgress is
	// set, in the "blockHash" of each full transaction. The pending block passes the hash of
	// the partial block at its pre-confirmation index.
	hash *common.Hash
	// inProgress marks the block in progress: its full transactions carry "blockHash": null
	// while blockNumber, blockTimestamp and transactionIndex are set (decisions.md).
	inProgress bool
	// senders, when set, are the full transactions' "from" values, in order, instead of the
	// senders recovered from signatures (eth_simulateV1's unsigned transactions).
	senders []common.Address
	// txHashes, when set, are the transactions' hashes, in order, and size, when not 0, is
	// block.Size(), so that they need not be computed again (eth_simulateV1 knows them from
	// building the block).
	txHashes []common.Hash
	size     uint64
	// header, when set, is block's header, to be read instead of a copy of it.
	header *types.Header
}

// appendBlock appends block as go-ethereum's RPCMarshalBlock with inclTx = true marshals it.
// With fullTx the transactions are full objects located in the block (see appendTransaction),
// otherwise their hashes. config selects the signer used to recover senders, as geth's
// types.MakeSigner for the block's number and time. opts adjusts pending blocks; its zero
// value encodes a sealed block.
func appendBlock(dst []byte, block *types.Block, fullTx bool, config *params.ChainConfig, opts blockJSONOptions) []byte {
	h := opts.header
	if h == nil {
		h = block.Header() // a copy, as geth marshals it: nil Number or Difficulty become 0
	}
	var hash common.Hash
	if opts.hash != nil {
		hash = *opts.hash
	} else {
		hash = block.Hash()
	}
	size := opts.size
	if size == 0 {
		size = block.Size()
	}
	start := len(dst)
	dst = appendHeaderFirst(dst, h, hash)
	dst = append(dst, `,"size":`...)
	dst = appendQuantity(dst, size)
	dst = appendHeaderSecond(dst, h)
	dst = append(dst, `,"transactions":`...)
	if fullTx {
		dst = appendBlockFullTxs(dst, block, h, hash, config, opts)
	} else {
		dst = appendBlockTxHashes(dst, block.Transactions(), opts.txHashes)
	}
	dst = appendTransactionsRoot(dst, h)
	dst = append(dst, `,"uncles":[`...)
	for i, uncle := range block.Uncles() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendHash(dst, uncle.Hash())
	}
	dst = append(dst, ']')
	if ws := block.Withdrawals(); ws != nil {
		dst = append(dst, `,"withdrawals":`...)
		dst = appendWithdrawals(dst, ws)
	}
	dst = appendWithdrawalsRoot(dst, h)
	dst[start] = '{'
	return append(dst, '}')
}

// appendBlockTxHashes appends the hashes of txs as a JSON array ([] when empty).
func appendBlockTxHashes(dst []byte, txs types.Transactions, hashes []common.Hash) []byte {
	dst = append(dst, '[')
	for i, tx := range txs {
		if i > 0 {
			dst = append(dst, ',')
		}
		if i < len(hashes) {
			dst = appendHash(dst, hashes[i])
		} else {
			dst = appendHash(dst, tx.Hash())
		}
	}
	return append(dst, ']')
}

// appendBlockFullTxs appends the block's transactions as full objects, located at their index
// in the block. One signer serves the whole block, as geth's per-transaction MakeSigner with
// the block's number and time would pick the same one.
func appendBlockFullTxs(dst []byte, block *types.Block, h *types.Header, hash common.Hash, config *params.ChainConfig, opts blockJSONOptions) []byte {
	signer := types.MakeSigner(config, h.Number, h.Time)
	loc := txLocation{
		located:     true,
		blockHash:   &hash,
		blockNumber: h.Number.Uint64(),
		blockTime:   h.Time,
		baseFee:     h.BaseFee,
	}
	if opts.inProgress {
		loc.blockHash = nil
	}
	dst = append(dst, '[')
	for i, tx := range block.Transactions() {
		if i > 0 {
			dst = append(dst, ',')
		}
		loc.index = uint64(i)
		if i < len(opts.senders) {
			loc.sender = &opts.senders[i]
		}
		dst = appendTransactionSigner(dst, tx, loc, signer)
	}
	return append(dst, ']')
}

// appendWithdrawals appends ws as a JSON array of types.Withdrawal objects.
func appendWithdrawals(dst []byte, ws types.Withdrawals) []byte {
	dst = append(dst, '[')
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ',')
		}
		if w == nil {
			dst = append(dst, jsonNull...)
			continue
		}
		dst = append(dst, `{"index":`...)
		dst = appendQuantity(dst, w.Index)
		dst = append(dst, `,"validatorIndex":`...)
		dst = appendQuantity(dst, w.Validator)
		dst = append(dst, `,"address":`...)
		dst = appendAddress(dst, w.Address)
		dst = append(dst, `,"amount":`...)
		dst = appendQuantity(dst, w.Amount)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

package ethjson

// This file encodes blocks the way go-ethereum's RPCMarshalBlock(block, inclTx=true, fullTx,
// config) does: the header keys (header.go) plus size, transactions, uncles and, when the
// block carries them, withdrawals, all in byte order of the keys.

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// BlockOptions adjusts a block's JSON for blocks that are not (yet) sealed. The zero value
// encodes a sealed block exactly as geth does.
type BlockOptions struct {
	// Hash, if not nil, replaces block.Hash() in the block's "hash" and, unless InProgress is
	// set, in the "blockHash" of each full transaction. The pending block passes the hash of
	// the partial block at its pre-confirmation index.
	Hash *common.Hash
	// InProgress marks the block in progress: its full transactions carry "blockHash": null
	// while blockNumber, blockTimestamp and transactionIndex are set (decisions.md).
	InProgress bool
	// Senders, when set, are the full transactions' "from" values, in order, instead of the
	// senders recovered from signatures (eth_simulateV1's unsigned transactions).
	Senders []common.Address
	// TxHashes, when set, are the transactions' hashes, in order, and Size, when not 0, is
	// block.Size(), so that they need not be computed again (eth_simulateV1 knows them from
	// building the block).
	TxHashes []common.Hash
	Size     uint64
	// Header, when set, is block's header, to be read instead of a copy of it.
	Header *types.Header
	// Receipts, when set, are the block's receipts, for the nonce and depositReceiptVersion of
	// its full deposit transactions (TxLocation.Receipt). Other transactions ignore them.
	Receipts types.Receipts
	// TimeMs, when set, is the sealed block's time in milliseconds (a Denim block's,
	// 1000 × timestamp + its BaseTime part): the block's "timestampMs" and, unless InProgress,
	// its full transactions' "blockTimestampMs". Nil leaves both out, as before Denim and
	// for the block in progress.
	TimeMs *uint64
}

// AppendBlock appends block as go-ethereum's RPCMarshalBlock with inclTx = true marshals it.
// With fullTx the transactions are full objects located in the block (see AppendTransaction),
// otherwise their hashes. config selects the signer used to recover senders, as geth's
// types.MakeSigner for the block's number and time. opts adjusts pending blocks; its zero
// value encodes a sealed block.
func AppendBlock(dst []byte, block *types.Block, fullTx bool, config *params.ChainConfig, opts BlockOptions) []byte {
	h := opts.Header
	if h == nil {
		h = block.Header() // a copy, as geth marshals it: nil Number or Difficulty become 0
	}
	var hash common.Hash
	if opts.Hash != nil {
		hash = *opts.Hash
	} else {
		hash = block.Hash()
	}
	size := opts.Size
	if size == 0 {
		size = block.Size()
	}
	return appendBlock(dst, h, hash, size, block.Transactions(), block.Uncles(), block.Withdrawals(), fullTx, config, opts)
}

// AppendBlockParts appends the block of header h and body as AppendBlock would, when its hash
// and size are known and no types.Block exists: eth_simulateV1 assembles its blocks from
// these parts, and a types.Block would copy the header. h's Number and Difficulty must not
// be nil (a types.Block's Header() sets them to 0). Without fullTx and with nil
// body.Transactions the block's transactions are opts.TxHashes. opts.Hash, opts.Size and
// opts.Header are ignored.
func AppendBlockParts(dst []byte, h *types.Header, body *types.Body, hash common.Hash, size uint64, fullTx bool, config *params.ChainConfig, opts BlockOptions) []byte {
	return appendBlock(dst, h, hash, size, body.Transactions, body.Uncles, body.Withdrawals, fullTx, config, opts)
}

// appendBlock is AppendBlock with the block's hash, size and body at hand.
func appendBlock(dst []byte, h *types.Header, hash common.Hash, size uint64, txs types.Transactions, uncles []*types.Header, ws types.Withdrawals, fullTx bool, config *params.ChainConfig, opts BlockOptions) []byte {
	start := len(dst)
	dst = appendHeaderFirst(dst, h, hash)
	dst = append(dst, `,"size":`...)
	dst = AppendQuantity(dst, size)
	dst = appendHeaderSecond(dst, h, opts.TimeMs)
	dst = append(dst, `,"transactions":`...)
	if fullTx {
		dst = appendBlockFullTxs(dst, txs, h, hash, config, opts)
	} else {
		dst = appendBlockTxHashes(dst, txs, opts.TxHashes)
	}
	dst = appendTransactionsRoot(dst, h)
	dst = append(dst, `,"uncles":[`...)
	for i, uncle := range uncles {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendHash(dst, uncle.Hash())
	}
	dst = append(dst, ']')
	if ws != nil {
		dst = append(dst, `,"withdrawals":`...)
		dst = appendWithdrawals(dst, ws)
	}
	dst = appendWithdrawalsRoot(dst, h)
	dst[start] = '{'
	return append(dst, '}')
}

// appendBlockTxHashes appends the hashes of txs as a JSON array ([] when empty), hashes[i]
// when known; nil txs are the transactions of hashes.
func appendBlockTxHashes(dst []byte, txs types.Transactions, hashes []common.Hash) []byte {
	n := len(txs)
	if txs == nil {
		n = len(hashes)
	}
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if i < len(hashes) {
			dst = AppendHash(dst, hashes[i])
		} else {
			dst = AppendHash(dst, txs[i].Hash())
		}
	}
	return append(dst, ']')
}

// appendBlockFullTxs appends the block's transactions txs as full objects, located at their index
// in the block. One signer serves the whole block, as geth's per-transaction MakeSigner with
// the block's number and time would pick the same one.
func appendBlockFullTxs(dst []byte, txs types.Transactions, h *types.Header, hash common.Hash, config *params.ChainConfig, opts BlockOptions) []byte {
	signer := types.MakeSigner(config, h.Number, h.Time)
	loc := TxLocation{
		Located:     true,
		BlockHash:   &hash,
		BlockNumber: h.Number.Uint64(),
		BlockTime:   h.Time,
		BaseFee:     h.BaseFee,
		TimeMs:      opts.TimeMs,
	}
	if opts.InProgress {
		loc.BlockHash, loc.TimeMs = nil, nil
	}
	dst = append(dst, '[')
	for i, tx := range txs {
		if i > 0 {
			dst = append(dst, ',')
		}
		loc.Index = uint64(i)
		if i < len(opts.Senders) {
			loc.Sender = &opts.Senders[i]
		}
		loc.Receipt = nil
		if i < len(opts.Receipts) {
			loc.Receipt = opts.Receipts[i]
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
			dst = append(dst, Null...)
			continue
		}
		dst = append(dst, `{"index":`...)
		dst = AppendQuantity(dst, w.Index)
		dst = append(dst, `,"validatorIndex":`...)
		dst = AppendQuantity(dst, w.Validator)
		dst = append(dst, `,"address":`...)
		dst = AppendAddress(dst, w.Address)
		dst = append(dst, `,"amount":`...)
		dst = AppendQuantity(dst, w.Amount)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

package flashblocks

import (
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// FromBlock returns the payload of one pre-confirmation: block is the partial block as if
// sealed now (every transaction so far, cumulative header), index the pre-confirmation's
// position in the block and firstNew the position of the first transaction it added. Index 0
// carries the base. The payload shares nothing with block.
func FromBlock(block *types.Block, index, firstNew int) (*Payload, error) {
	txs := block.Transactions()
	if firstNew < 0 || firstNew > len(txs) || index < 0 {
		return nil, fmt.Errorf("flashblock %d of block %d: first new transaction %d of %d", index, block.NumberU64(), firstNew, len(txs))
	}
	h := block.Header()
	p := &Payload{
		PayloadID: PayloadIDOf(h),
		Index:     uint64(index),
		Diff: Diff{
			StateRoot:    h.Root,
			ReceiptsRoot: h.ReceiptHash,
			LogsBloom:    h.Bloom,
			GasUsed:      hexutil.Uint64(h.GasUsed),
			BlockHash:    block.Hash(),
			Transactions: make([]hexutil.Bytes, 0, len(txs)-firstNew),
			Withdrawals:  []*types.Withdrawal{},
		},
		Metadata: Metadata{BlockNumber: h.Number.Uint64()},
	}
	for _, tx := range txs[firstNew:] {
		enc, err := tx.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("flashblock %d of block %d: encode transaction %s: %w", index, h.Number, tx.Hash().TerminalString(), err)
		}
		p.Diff.Transactions = append(p.Diff.Transactions, enc)
	}
	if h.WithdrawalsHash != nil {
		p.Diff.WithdrawalsRoot = *h.WithdrawalsHash
	}
	if h.BlobGasUsed != nil {
		used := hexutil.Uint64(*h.BlobGasUsed)
		p.Diff.BlobGasUsed = &used
	}
	if index == 0 {
		p.Base = &Base{
			ParentHash:    h.ParentHash,
			FeeRecipient:  h.Coinbase,
			PrevRandao:    h.MixDigest,
			BlockNumber:   hexutil.Uint64(h.Number.Uint64()),
			GasLimit:      hexutil.Uint64(h.GasLimit),
			Timestamp:     hexutil.Uint64(h.Time),
			ExtraData:     h.Extra,
			BaseFeePerGas: (*hexutil.Big)(h.BaseFee),
		}
		if h.ParentBeaconRoot != nil {
			p.Base.ParentBeaconBlockRoot = *h.ParentBeaconRoot
		}
	}
	return p, nil
}

// PayloadIDOf derives a block's payload id from the fields fixed when it opens: the first 8
// bytes of keccak256(parent hash ‖ number ‖ timestamp), numbers as 8-byte big-endian. Every
// pre-confirmation of the block has the same id, and a different block (another parent,
// number or time) a different one.
func PayloadIDOf(h *types.Header) PayloadID {
	var buf [32 + 8 + 8]byte
	copy(buf[:32], h.ParentHash[:])
	binary.BigEndian.PutUint64(buf[32:40], h.Number.Uint64())
	binary.BigEndian.PutUint64(buf[40:], h.Time)
	var id PayloadID
	copy(id[:], crypto.Keccak256(buf[:]))
	return id
}

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// flashblockSummary is what the load generator reads from a flashblock: which block and index
// it is, how many transactions other than deposits it added and the block's cumulative gas.
type flashblockSummary struct {
	block, index uint64
	txs          int
	gas          uint64
}

// feedMessage is the part of a FlashblocksPayloadV1 that summarizeFlashblock decodes. The
// transactions are read only for their type byte, so a message's hundreds of kilobytes of
// transactions are scanned but not copied, and metadata's other members (receipts and balances
// of other producers) are skipped.
type feedMessage struct {
	Index uint64          `json:"index"`
	Base  *present        `json:"base"`
	Diff  feedMessageDiff `json:"diff"`
	Meta  feedMessageMeta `json:"metadata"`
}

// feedMessageMeta is the metadata's block number. As flashblocks.Metadata, it refuses a
// metadata of null or without block_number; a message without metadata is block 0.
type feedMessageMeta struct {
	BlockNumber uint64
}

func (m *feedMessageMeta) UnmarshalJSON(data []byte) error {
	var members struct {
		BlockNumber *uint64 `json:"block_number"`
	}
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	if members.BlockNumber == nil {
		return flashblocks.ErrNoBlockNumber
	}
	m.BlockNumber = *members.BlockNumber
	return nil
}

type feedMessageDiff struct {
	GasUsed      hexutil.Uint64 `json:"gas_used"`
	Transactions []txTypeOnly   `json:"transactions"`
}

// present records that a JSON member was there and not null, without decoding it.
type present struct{}

func (*present) UnmarshalJSON([]byte) error { return nil }

// txTypeOnly is an EIP-2718 transaction written as hex, of which only the type is kept: its
// first byte, or -1 for an empty one.
type txTypeOnly int16

// UnmarshalText reads the first byte of "0x…"; the digits after it are left unchecked (the node
// checked them when it encoded them, and the load generator counts, it does not execute).
func (t *txTypeOnly) UnmarshalText(text []byte) error {
	if len(text) < 2 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') {
		return errors.New("transaction: hex string without 0x prefix")
	}
	digits := text[2:]
	if len(digits) == 0 {
		*t = -1
		return nil
	}
	if len(digits) < 2 {
		return errors.New("transaction: odd number of hex digits")
	}
	hi, okHi := hexDigit(digits[0])
	lo, okLo := hexDigit(digits[1])
	if !okHi || !okLo {
		return fmt.Errorf("transaction: invalid hex digits %q", digits[:2])
	}
	*t = txTypeOnly(hi<<4 | lo)
	return nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// summarizeFlashblock reads a feed message's summary. It refuses what flashblocks.Decode
// refuses for the fields it reads (base at index 0 and only there, metadata's block_number
// present); the fields it does not read are not checked. A brotli frame is decompressed and
// decoded whole by flashblocks.Decode.
func summarizeFlashblock(msg []byte) (flashblockSummary, error) {
	if len(msg) == 0 || msg[0] != '{' || !utf8.Valid(msg) {
		return summarizeDecoded(msg)
	}
	var m feedMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return flashblockSummary{}, fmt.Errorf("decode flashblock: %w", err)
	}
	switch {
	case m.Index == 0 && m.Base == nil:
		return flashblockSummary{}, flashblocks.ErrMissingBase
	case m.Index != 0 && m.Base != nil:
		return flashblockSummary{}, fmt.Errorf("%w (index %d)", flashblocks.ErrUnexpectedBase, m.Index)
	}
	s := flashblockSummary{block: m.Meta.BlockNumber, index: m.Index, gas: uint64(m.Diff.GasUsed)}
	for _, t := range m.Diff.Transactions {
		if t >= 0 && t != types.DepositTxType {
			s.txs++
		}
	}
	return s, nil
}

// summarizeDecoded is summarizeFlashblock by way of the full decoding: for brotli frames and
// text that does not start with '{' (leading blanks).
func summarizeDecoded(msg []byte) (flashblockSummary, error) {
	p, err := flashblocks.Decode(msg)
	if err != nil {
		return flashblockSummary{}, err
	}
	s := flashblockSummary{block: p.Metadata.BlockNumber, index: p.Index, gas: uint64(p.Diff.GasUsed)}
	for _, enc := range p.Diff.Transactions {
		if len(enc) > 0 && enc[0] != types.DepositTxType {
			s.txs++
		}
	}
	return s, nil
}

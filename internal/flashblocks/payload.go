package flashblocks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
)

// Errors of a payload that breaks the format's rules.
var (
	ErrMissingBase    = errors.New("flashblocks: index 0 without base")
	ErrUnexpectedBase = errors.New("flashblocks: base at an index other than 0")
	ErrNoBlockNumber  = errors.New("flashblocks: metadata without block_number")
)

// Payload is one FlashblocksPayloadV1 message: one pre-confirmation of a block.
type Payload struct {
	// PayloadID identifies the block being built; every pre-confirmation of a block has the
	// same one.
	PayloadID PayloadID `json:"payload_id"`
	// Index is the pre-confirmation's position within the block, from 0. A JSON number.
	Index uint64 `json:"index"`
	// Base holds the block's fixed header fields. It is set at index 0 only; later indices
	// omit it (decoding accepts "base": null too).
	Base *Base `json:"base,omitempty"`
	// Diff holds what this pre-confirmation adds and the block's cumulative roots.
	Diff Diff `json:"diff"`
	// Metadata is free-form; consumers read only its block number.
	Metadata Metadata `json:"metadata"`
}

// Base is ExecutionPayloadBaseV1: the fixed header fields of the block, known when it opens.
type Base struct {
	ParentBeaconBlockRoot common.Hash    `json:"parent_beacon_block_root"`
	ParentHash            common.Hash    `json:"parent_hash"`
	FeeRecipient          common.Address `json:"fee_recipient"`
	PrevRandao            common.Hash    `json:"prev_randao"`
	BlockNumber           hexutil.Uint64 `json:"block_number"`
	GasLimit              hexutil.Uint64 `json:"gas_limit"`
	Timestamp             hexutil.Uint64 `json:"timestamp"`
	ExtraData             hexutil.Bytes  `json:"extra_data"`
	BaseFeePerGas         *hexutil.Big   `json:"base_fee_per_gas"`
}

// Diff is ExecutionPayloadFlashblockDeltaV1 (OP's SubblockDelta). Roots, bloom, gas used and
// block hash are those of the block so far (cumulative); Transactions are only those this
// pre-confirmation adds. In OP's subblocks format the state root, block hash and withdrawals
// root are zero ([Diff.HasRoots]).
type Diff struct {
	StateRoot    common.Hash    `json:"state_root"`
	ReceiptsRoot common.Hash    `json:"receipts_root"`
	LogsBloom    types.Bloom    `json:"logs_bloom"`
	GasUsed      hexutil.Uint64 `json:"gas_used"`
	// BlockHash is the hash of the block as if it were sealed now.
	BlockHash common.Hash `json:"block_hash"`
	// Transactions are EIP-2718 encoded, as they appear in a block. They are kept as bytes:
	// decoding them is the consumer's business (an OP chain's deposit type 0x7e is not a
	// go-ethereum type).
	Transactions []hexutil.Bytes `json:"transactions"`
	// Withdrawals is always empty on the chains that pre-confirm; it is written as [].
	Withdrawals     []*types.Withdrawal `json:"withdrawals"`
	WithdrawalsRoot common.Hash         `json:"withdrawals_root"`
	// BlobGasUsed is the cumulative blob gas, omitted when the block has none. On an OP Stack
	// chain from Jovian on it is the block's cumulative data-availability footprint.
	BlobGasUsed *hexutil.Uint64 `json:"blob_gas_used,omitempty"`
	// PostExecTx is OP's post-execution transaction from Lagoon on (subblocks only; type
	// 0x7d, [DecodePostExecTx]): the latest cumulative one, restated by each subblock and
	// not part of Transactions. Omitted when absent.
	PostExecTx hexutil.Bytes `json:"post_exec_tx,omitempty"`
}

// PayloadID is the Engine API's 8-byte payload id, written as 0x and 16 hex digits.
type PayloadID [8]byte

// String returns the id as 0x and 16 hex digits.
func (id PayloadID) String() string { return hexutil.Encode(id[:]) }

// MarshalText implements encoding.TextMarshaler.
func (id PayloadID) MarshalText() ([]byte, error) { return hexutil.Bytes(id[:]).MarshalText() }

// UnmarshalText implements encoding.TextUnmarshaler; the id must be exactly 8 bytes.
func (id *PayloadID) UnmarshalText(text []byte) error {
	return hexutil.UnmarshalFixedText("PayloadID", text, id[:])
}

// Metadata is the payload's free-form metadata. BlockNumber is written first as a decimal JSON
// number; other members are kept as received and written back in key order.
type Metadata struct {
	BlockNumber uint64
	// Extra holds every other member (for example new_account_balances or receipts from
	// other producers). It may be nil. Consumers must not modify it.
	Extra map[string]json.RawMessage
}

// MarshalJSON implements json.Marshaler.
func (m Metadata) MarshalJSON() ([]byte, error) {
	out := append([]byte(`{"block_number":`), strconv.FormatUint(m.BlockNumber, 10)...)
	keys := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		if k != "block_number" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		out = append(append(append(out, ','), name...), ':')
		out = append(out, m.Extra[k]...)
	}
	return append(out, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler. block_number must be present, as a JSON number.
func (m *Metadata) UnmarshalJSON(data []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	raw, ok := members["block_number"]
	if !ok || bytes.Equal(raw, []byte("null")) {
		return ErrNoBlockNumber
	}
	var n uint64
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("metadata block_number: %w", err)
	}
	delete(members, "block_number")
	if len(members) == 0 {
		members = nil
	}
	*m = Metadata{BlockNumber: n, Extra: members}
	return nil
}

// Check reports whether p follows the format's structural rules: base at index 0 and only
// there.
func (p *Payload) Check() error {
	switch {
	case p.Index == 0 && p.Base == nil:
		return ErrMissingBase
	case p.Index != 0 && p.Base != nil:
		return fmt.Errorf("%w (index %d)", ErrUnexpectedBase, p.Index)
	}
	return nil
}

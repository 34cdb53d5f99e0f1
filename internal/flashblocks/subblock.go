package flashblocks

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
)

// Format is a feed's wire format. Both are FlashblocksPayloadV1 JSON; they differ in what
// diff and metadata carry. A consumer needs no setting: [Decode] reads both, and a
// flashblock says by its zero roots whether it commits to the block ([Diff.HasRoots]).
type Format uint8

const (
	// FormatBase is Base's Flashblocks format (reference/flashblocks.md §1): every diff has
	// the cumulative state root and the partial block's hash; metadata is the block number.
	FormatBase Format = iota
	// FormatSubblocks is OP's subblocks format (ethereum-optimism/specs,
	// specs/protocol/subblocks.md): diff.state_root, diff.block_hash and
	// diff.withdrawals_root are zero and diff.withdrawals is []; metadata carries the
	// receipts of the subblock's transactions and the balances it changed.
	FormatSubblocks
)

// String returns the format's name, as --feed.format takes it.
func (f Format) String() string {
	switch f {
	case FormatBase:
		return "base"
	case FormatSubblocks:
		return "subblocks"
	}
	return fmt.Sprintf("format(%d)", uint8(f))
}

// ParseFormat returns the format named s: "base" or "subblocks".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "base":
		return FormatBase, nil
	case "subblocks":
		return FormatSubblocks, nil
	}
	return 0, fmt.Errorf("flashblocks: unknown feed format %q (want base or subblocks)", s)
}

// HasRoots reports whether the diff commits to the partial block: a state root and a block
// hash are published. Subblocks publish neither (zero), nor does a Base builder run without
// state roots; their consumers cannot check a re-execution against them.
func (d *Diff) HasRoots() bool {
	return d.StateRoot != (common.Hash{}) && d.BlockHash != (common.Hash{})
}

// Subblock returns the payload of one pre-confirmation in OP's subblocks format: FromBlock's
// payload with the state root, block hash and withdrawals root zero, and metadata with the
// receipts of the transactions it adds (receipts[firstNew:], receipts being those of every
// transaction of block) and the balances given. balances maps the accounts the
// pre-confirmation changed to their balances after it; nil writes an empty map. The payload
// shares nothing with its arguments.
func Subblock(block *types.Block, receipts types.Receipts, balances map[common.Address]*big.Int, index, firstNew int) (*Payload, error) {
	p, err := FromBlock(block, index, firstNew)
	if err != nil {
		return nil, err
	}
	txs := block.Transactions()
	if len(receipts) != len(txs) {
		return nil, fmt.Errorf("subblock %d of block %d: %d receipts for %d transactions", index, block.NumberU64(), len(receipts), len(txs))
	}
	p.Diff.StateRoot, p.Diff.BlockHash, p.Diff.WithdrawalsRoot = common.Hash{}, common.Hash{}, common.Hash{}
	byHash := make(map[common.Hash]subblockReceipt, len(txs)-firstNew)
	for i := firstNew; i < len(txs); i++ {
		byHash[txs[i].Hash()] = newSubblockReceipt(receipts[i])
	}
	accounts := make(map[common.Address]*hexutil.Big, len(balances))
	for a, b := range balances {
		accounts[a] = (*hexutil.Big)(new(big.Int).Set(b))
	}
	rawReceipts, err := json.Marshal(byHash)
	if err != nil {
		return nil, fmt.Errorf("subblock %d of block %d: receipts: %w", index, block.NumberU64(), err)
	}
	rawBalances, err := json.Marshal(accounts)
	if err != nil {
		return nil, fmt.Errorf("subblock %d of block %d: balances: %w", index, block.NumberU64(), err)
	}
	p.Metadata.Extra = map[string]json.RawMessage{"receipts": rawReceipts, "new_account_balances": rawBalances}
	return p, nil
}

// subblockReceipt is a receipt in subblocks metadata: the consensus receipt with its type,
// as OP's builders write it (internally tagged; a deposit adds its nonce and receipt version).
type subblockReceipt struct {
	Type                  hexutil.Uint64  `json:"type"`
	Status                hexutil.Uint64  `json:"status"`
	CumulativeGasUsed     hexutil.Uint64  `json:"cumulativeGasUsed"`
	Logs                  []subblockLog   `json:"logs"`
	DepositNonce          *hexutil.Uint64 `json:"depositNonce,omitempty"`
	DepositReceiptVersion *hexutil.Uint64 `json:"depositReceiptVersion,omitempty"`
}

// subblockLog is a consensus log: address, topics and data.
type subblockLog struct {
	Address common.Address `json:"address"`
	Topics  []common.Hash  `json:"topics"`
	Data    hexutil.Bytes  `json:"data"`
}

func newSubblockReceipt(r *types.Receipt) subblockReceipt {
	out := subblockReceipt{
		Type:              hexutil.Uint64(r.Type),
		Status:            hexutil.Uint64(r.Status),
		CumulativeGasUsed: hexutil.Uint64(r.CumulativeGasUsed),
		Logs:              make([]subblockLog, len(r.Logs)),
	}
	for i, l := range r.Logs {
		topics := l.Topics
		if topics == nil {
			topics = []common.Hash{}
		}
		out.Logs[i] = subblockLog{Address: l.Address, Topics: topics, Data: l.Data}
	}
	if r.DepositNonce != nil {
		n := hexutil.Uint64(*r.DepositNonce)
		out.DepositNonce = &n
	}
	if r.DepositReceiptVersion != nil {
		v := hexutil.Uint64(*r.DepositReceiptVersion)
		out.DepositReceiptVersion = &v
	}
	return out
}

// ErrNotPostExec is returned for bytes that are not a post-execution transaction.
var ErrNotPostExec = errors.New("flashblocks: not a post-execution transaction (type 0x7d)")

// PostExecTx is a decoded post-execution transaction: 0x7d ‖ rlp([version, blockNumber,
// …schema fields]). The schema's fields are kept as their RLP items; flashrpc does not run
// Lagoon's rules, so it decodes no schema.
type PostExecTx struct {
	Version     uint64
	BlockNumber uint64
	// Fields are the schema's RLP items after the block number, each as encoded.
	Fields []rlp.RawValue
	// Hash is keccak256 of the encoding, the transaction's hash.
	Hash common.Hash
}

// DecodePostExecTx decodes a post-execution transaction's envelope: its type, version and
// block number, and the schema's fields as RLP items.
func DecodePostExecTx(enc []byte) (*PostExecTx, error) {
	if len(enc) == 0 || enc[0] != types.PostExecTxType {
		return nil, ErrNotPostExec
	}
	var body struct {
		Version     uint64
		BlockNumber uint64
		Fields      []rlp.RawValue `rlp:"tail"`
	}
	if err := rlp.DecodeBytes(enc[1:], &body); err != nil {
		return nil, fmt.Errorf("decode post-execution transaction: %w", err)
	}
	return &PostExecTx{Version: body.Version, BlockNumber: body.BlockNumber, Fields: body.Fields, Hash: crypto.Keccak256Hash(enc)}, nil
}

// PostExec decodes the diff's post-execution transaction (diff.post_exec_tx, from Lagoon on);
// nil when the diff has none.
func (d *Diff) PostExec() (*PostExecTx, error) {
	if len(d.PostExecTx) == 0 {
		return nil, nil
	}
	return DecodePostExecTx(d.PostExecTx)
}

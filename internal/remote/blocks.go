package remote

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/trie"
)

// Reads of the upstream's chain: its id, head, headers and blocks, each checked against the
// hashes that name them, so that a block the upstream answers is the block it says it is.

// ChainID returns the upstream's eth_chainId.
func (c *Client) ChainID(ctx context.Context) (uint64, error) {
	return c.quantity(ctx, "eth_chainId")
}

// BlockNumber returns the upstream's eth_blockNumber.
func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	return c.quantity(ctx, "eth_blockNumber")
}

func (c *Client) quantity(ctx context.Context, method string) (uint64, error) {
	raw, err := c.Call(ctx, method)
	if err != nil {
		return 0, c.wrap(method, err)
	}
	var v hexutil.Uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, c.fail(method, "not a quantity: "+snippet(raw), err)
	}
	return uint64(v), nil
}

// wrap makes a JSON-RPC error answer a failure of method.
func (c *Client) wrap(method string, err error) error {
	if rerr, ok := err.(*RPCError); ok {
		return c.fail(method, "answered "+rerr.Error(), rerr)
	}
	return err
}

// ErrNoBlock is the reason of an UpstreamError for a block the upstream does not have.
const reasonNoBlock = "the upstream has no block %d"

// HeaderByNumber returns the upstream's header at number, checked to hash to the hash the
// upstream gives it. A block the upstream does not have is an *UpstreamError.
func (c *Client) HeaderByNumber(ctx context.Context, number uint64) (*types.Header, error) {
	raw, err := c.Call(ctx, "eth_getBlockByNumber", hexutil.Uint64(number), false)
	if err != nil {
		return nil, c.wrap("eth_getBlockByNumber", err)
	}
	return c.decodeHeader(raw, number)
}

// HeadersByNumber returns the upstream's headers at numbers, in one batch, each checked as
// HeaderByNumber checks one.
func (c *Client) HeadersByNumber(ctx context.Context, numbers []uint64) ([]*types.Header, error) {
	calls := make([]Call, len(numbers))
	for i, n := range numbers {
		calls[i] = Call{Method: "eth_getBlockByNumber", Params: []any{hexutil.Uint64(n), false}}
	}
	res, err := c.Batch(ctx, calls)
	if err != nil {
		return nil, err
	}
	out := make([]*types.Header, len(numbers))
	for i, raw := range res {
		if out[i], err = c.decodeHeader(raw, numbers[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *Client) decodeHeader(raw json.RawMessage, number uint64) (*types.Header, error) {
	if isNull(raw) {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf(reasonNoBlock, number), nil)
	}
	var h types.Header
	if err := json.Unmarshal(raw, &h); err != nil {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: undecodable header: %v", number, err), err)
	}
	var named struct {
		Hash common.Hash `json:"hash"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: undecodable hash: %v", number, err), err)
	}
	if h.Number == nil || h.Number.Uint64() != number {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("asked for block %d, got block %v", number, h.Number), nil)
	}
	if got := h.Hash(); got != named.Hash {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: its header hashes to %s, the upstream names it %s (fields this client does not know?)", number, got, named.Hash), nil)
	}
	return &h, nil
}

// BlockByNumber returns the upstream's block at number with its transactions and
// withdrawals, the header checked as HeaderByNumber checks it and the body against the
// header's transactions and withdrawals roots.
func (c *Client) BlockByNumber(ctx context.Context, number uint64) (*types.Block, error) {
	raw, err := c.Call(ctx, "eth_getBlockByNumber", hexutil.Uint64(number), true)
	if err != nil {
		return nil, c.wrap("eth_getBlockByNumber", err)
	}
	h, err := c.decodeHeader(raw, number)
	if err != nil {
		return nil, err
	}
	var body struct {
		Transactions []*types.Transaction `json:"transactions"`
		Withdrawals  []*types.Withdrawal  `json:"withdrawals"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: undecodable body: %v", number, err), err)
	}
	if got := types.DeriveSha(types.Transactions(body.Transactions), trie.NewStackTrie(nil)); got != h.TxHash {
		return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: its transactions hash to %s, its header says %s", number, got, h.TxHash), nil)
	}
	b := types.NewBlockWithHeader(h).WithBody(types.Body{Transactions: body.Transactions, Withdrawals: body.Withdrawals})
	if h.WithdrawalsHash != nil && body.Withdrawals != nil {
		if got := types.DeriveSha(types.Withdrawals(body.Withdrawals), trie.NewStackTrie(nil)); got != *h.WithdrawalsHash {
			// OP Stack chains from Isthmus on put the L2ToL1MessagePasser's storage root in
			// withdrawalsRoot, with an empty list: only an Ethereum block is checked.
			if len(body.Withdrawals) > 0 {
				return nil, c.fail("eth_getBlockByNumber", fmt.Sprintf("block %d: its withdrawals hash to %s, its header says %s", number, got, *h.WithdrawalsHash), nil)
			}
		}
	}
	return b, nil
}

// BlockReceipts returns the receipts of the upstream's block with this hash
// (eth_getBlockReceipts), in their consensus fields; the caller checks them against the
// block's header (receipts root, bloom, gas used). A block the upstream does not have is an
// *UpstreamError.
func (c *Client) BlockReceipts(ctx context.Context, hash common.Hash) (types.Receipts, error) {
	raw, err := c.Call(ctx, "eth_getBlockReceipts", hash)
	if err != nil {
		return nil, c.wrap("eth_getBlockReceipts", err)
	}
	if isNull(raw) {
		return nil, c.fail("eth_getBlockReceipts", fmt.Sprintf("the upstream has no block %s", hash), nil)
	}
	var receipts types.Receipts
	if err := json.Unmarshal(raw, &receipts); err != nil {
		return nil, c.fail("eth_getBlockReceipts", fmt.Sprintf("block %s: undecodable receipts: %v", hash, err), err)
	}
	return receipts, nil
}

// RootNode returns the upstream's root node of the state at block number, whose hash is root:
// the first node of an eth_getProof account proof. It fails when the upstream cannot prove
// its state (anvil's state roots, for one, are not those of a real trie).
func (c *Client) RootNode(ctx context.Context, number uint64, root common.Hash) ([]byte, error) {
	raw, err := c.Call(ctx, "eth_getProof", common.Address{}, []common.Hash{}, hexutil.Uint64(number))
	if err != nil {
		return nil, c.wrap("eth_getProof", err)
	}
	var proof struct {
		AccountProof []hexutil.Bytes `json:"accountProof"`
	}
	if err := json.Unmarshal(raw, &proof); err != nil || len(proof.AccountProof) == 0 {
		return nil, c.fail("eth_getProof", "no account proof in "+snippet(raw), err)
	}
	node := proof.AccountProof[0]
	if crypto.Keccak256Hash(node) != root {
		return nil, c.fail("eth_getProof", fmt.Sprintf("the proof's root node does not hash to the state root %s of block %d", root, number), nil)
	}
	return node, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

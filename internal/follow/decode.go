package follow

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// decodeBlock rebuilds a block from the JSON of eth_getBlockByNumber/Hash with full
// transactions (the shapes internal/ethjson writes, which are go-ethereum's), and checks that
// it is the block the upstream named: the header's hash must equal "hash". The body is
// checked against the header (transactions root) when the block is inserted.
func decodeBlock(raw json.RawMessage) (*types.Block, error) {
	var header types.Header
	if err := json.Unmarshal(raw, &header); err != nil {
		return nil, fmt.Errorf("decode header: %w", err)
	}
	var body struct {
		Hash         common.Hash          `json:"hash"`
		Transactions []*types.Transaction `json:"transactions"`
		Uncles       []common.Hash        `json:"uncles"`
		Withdrawals  *types.Withdrawals   `json:"withdrawals"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("decode body: %w", err)
	}
	if got := header.Hash(); got != body.Hash {
		return nil, fmt.Errorf("header hashes to %s, the upstream calls it %s (a field the decoder does not know?)", got.TerminalString(), body.Hash.TerminalString())
	}
	if len(body.Uncles) > 0 {
		return nil, errors.New("block has uncles, which follow mode does not fetch")
	}
	b := types.Body{Transactions: body.Transactions}
	if body.Withdrawals != nil {
		b.Withdrawals = *body.Withdrawals
	}
	return types.NewBlockWithHeader(&header).WithBody(b), nil
}

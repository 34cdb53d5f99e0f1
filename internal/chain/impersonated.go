package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/impersonation"
)

// Impersonation reports whether the chain was opened with Config.Impersonation (the dev
// chain).
func (c *Chain) Impersonation() bool { return c.imp }

// impersonated gives the dev chain's impersonated transactions of b their sender
// (Config.Impersonation, internal/impersonation); b may be nil. Without Impersonation it
// returns b untouched.
func (c *Chain) impersonated(b *types.Block) *types.Block {
	if !c.imp || b == nil {
		return b
	}
	config := c.Config()
	for _, tx := range b.Transactions() {
		impersonation.Recover(config, tx)
	}
	return b
}

// impersonatedReceipts returns the receipts of block hash with the contract address of every
// contract an impersonated sender created derived from that sender: go-ethereum derives it
// from the sender the placeholder signature recovers to. The receipts it changes are copies
// (rs is go-ethereum's cached slice); without Impersonation, or without such a creation, it
// returns rs.
func (c *Chain) impersonatedReceipts(hash common.Hash, rs types.Receipts) types.Receipts {
	if !c.imp || len(rs) == 0 {
		return rs
	}
	b := c.bc.GetBlockByHash(hash)
	if b == nil || len(b.Transactions()) != len(rs) {
		return rs
	}
	out := rs
	for i, tx := range b.Transactions() {
		if tx.To() != nil {
			continue
		}
		from, ok := impersonation.Placeholder(tx)
		if !ok {
			continue
		}
		if &out[0] == &rs[0] {
			out = append(types.Receipts(nil), rs...)
		}
		cp := *rs[i]
		cp.ContractAddress = crypto.CreateAddress(from, tx.Nonce())
		out[i] = &cp
	}
	return out
}

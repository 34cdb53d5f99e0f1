package chain

import (
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/impersonation"
)

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

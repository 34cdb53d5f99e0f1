package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/core/types"
)

// Rewind sets the head back to block number, deleting the blocks after it; the OnReorg
// listeners receive their logs as removed. The safe and finalized markers above number are
// moved to it.
func (c *Chain) Rewind(number uint64) error {
	h := c.HeaderByNumber(number)
	if h == nil {
		return fmt.Errorf("rewind: no block %d", number)
	}
	if err := c.rewind(h); err != nil {
		return err
	}
	for _, m := range []struct {
		get func() *types.Header
		set func(*types.Header)
	}{{func() *types.Header { return c.Heads().Safe }, c.SetSafe}, {func() *types.Header { return c.Heads().Finalized }, c.SetFinalized}} {
		if cur := m.get(); cur == nil || cur.Number.Uint64() > number || c.CanonicalHash(cur.Number.Uint64()) != cur.Hash() {
			m.set(h)
		}
	}
	return nil
}

package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
)

// DumpAccount is one account of a state dump.
type DumpAccount struct {
	Balance string                      // decimal
	Nonce   uint64                      //
	Code    []byte                      // nil for none
	Storage map[common.Hash]common.Hash // non-zero slots
}

// DumpState lists every account of the state after the block with this header whose address
// is known (Config.Preimages), with its code and storage, into fn in the order of their
// hashed addresses. It checks ctx every account.
func (c *Chain) DumpState(ctx context.Context, header *types.Header, fn func(common.Address, DumpAccount)) error {
	st, err := c.StateAt(header)
	if err != nil {
		return err
	}
	col := &dumpCollector{ctx: ctx, fn: fn}
	st.DumpToCollector(col, &state.DumpConfig{OnlyWithAddresses: true})
	if col.err != nil {
		return fmt.Errorf("dump state of block %d: %w", header.Number.Uint64(), col.err)
	}
	return nil
}

// dumpCollector is go-ethereum's DumpCollector over DumpState's callback.
type dumpCollector struct {
	ctx context.Context
	fn  func(common.Address, DumpAccount)
	err error
}

func (d *dumpCollector) OnRoot(common.Hash) {}

func (d *dumpCollector) OnAccount(addr *common.Address, acc state.DumpAccount) {
	if d.err != nil || addr == nil {
		return
	}
	if d.err = d.ctx.Err(); d.err != nil {
		return
	}
	out := DumpAccount{Balance: acc.Balance, Nonce: acc.Nonce, Code: acc.Code}
	if len(acc.Storage) > 0 {
		out.Storage = make(map[common.Hash]common.Hash, len(acc.Storage))
		for k, v := range acc.Storage {
			out.Storage[k] = common.HexToHash(v)
		}
	}
	d.fn(*addr, out)
}

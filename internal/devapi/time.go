package devapi

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// maxIncrease bounds evm_increaseTime: about 35,000 years.
const maxIncrease = 1 << 40

// increaseTime is evm_increaseTime(seconds) / anvil_increaseTime: the clock moves seconds
// ahead and the block in progress is rebuilt after the sealed head by the sum of the increases
// made since it opened (its pre-confirmed transactions executed again, changed results
// retracted), so the next sealed block is that long after its parent: two calls back to back
// add up. After evm_setNextBlockTimestamp the block keeps that timestamp, as on anvil
// (doc.go, "Time"). It answers the clock's total offset in seconds.
func (a *API) increaseTime(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	v, err := decodeUintParam(p, 0, "seconds", 64)
	if err != nil {
		return nil, err
	}
	if v.Uint64() > maxIncrease {
		return nil, param.NamedArgError(0, "seconds", fmt.Errorf("%v is more than %d", v, uint64(maxIncrease)))
	}
	total, err := a.b.Sequencer.IncreaseTime(ctx, v.Uint64())
	if err != nil {
		return nil, err
	}
	return hexutil.Uint64(max(total, 0)), nil
}

// setNextBlockTimestamp is evm_setNextBlockTimestamp(timestamp) /
// anvil_setNextBlockTimestamp: the block in progress is rebuilt with this timestamp, which
// must be after the sealed head's, whatever evm_increaseTime did before or does after it, and
// the clock moves on from it.
func (a *API) setNextBlockTimestamp(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	ts, err := decodeUintParam(p, 0, "timestamp", 63)
	if err != nil {
		return nil, err
	}
	if _, err := a.b.Sequencer.SetNextTimestamp(ctx, ts.Uint64()); err != nil {
		return nil, timeError(0, "timestamp", err)
	}
	return true, nil
}

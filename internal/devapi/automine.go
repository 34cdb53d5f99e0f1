package devapi

import (
	"context"
	"fmt"
	"time"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
)

// setAutomine is evm_setAutomine(enabled) (anvil and Hardhat): while enabled every
// transaction the pool takes as executable is pre-confirmed and sealed in a block of its own
// before its send answers, and the timer seals nothing; disabled, the timer seals every block
// time again (sequencer.Sequencer.SetAutomine). It answers true, as Hardhat.
func (a *API) setAutomine(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	var on bool
	if err := decodeParam(p, 0, "enabled", &on); err != nil {
		return nil, err
	}
	a.b.Sequencer.SetAutomine(on)
	return true, nil
}

// getAutomine is evm_getAutomine / anvil_getAutomine / hardhat_getAutomine: whether automine
// is on.
func (a *API) getAutomine(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 0); err != nil {
		return nil, err
	}
	return a.b.Sequencer.Automine(), nil
}

// setIntervalMiningMs is evm_setIntervalMining(ms), as Hardhat (Config.HardhatIntervalMining): the timer seals a block every
// ms milliseconds from now on; 0 turns the timer's seals off. Automine is left as it is (while
// it is on the timer seals nothing). Pre-confirmations keep their interval. Hardhat's
// [min, max] range form is refused.
func (a *API) setIntervalMiningMs(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	if raw := p.At(0); len(raw) > 0 && raw[0] == '[' {
		return nil, param.NamedArgError(0, "interval", fmt.Errorf("a [min, max] range is not supported: give one interval in milliseconds"))
	}
	return a.setBlockTime(p, "interval", time.Millisecond)
}

// setIntervalMiningSeconds is anvil_setIntervalMining(seconds), and evm_setIntervalMining but
// on a node that presents itself as Hardhat, as anvil: automine goes off
// and the timer seals a block every seconds from now on; 0 turns the timer's seals off too.
func (a *API) setIntervalMiningSeconds(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	res, err := a.setBlockTime(p, "seconds", time.Second)
	if err != nil {
		return nil, err
	}
	a.b.Sequencer.SetAutomine(false)
	return res, nil
}

// setBlockTime sets the sequencer's block time to parameter 0, called name, in units.
func (a *API) setBlockTime(p rpc.Params, name string, unit time.Duration) (any, error) {
	v, err := decodeUintParam(p, 0, name, 63)
	if err != nil {
		return nil, err
	}
	limit := uint64(sequencer.MaxBlockTime / unit)
	if v.Uint64() > limit {
		return nil, param.NamedArgError(0, name, fmt.Errorf("%s exceeds %d (%s)", v, limit, sequencer.MaxBlockTime))
	}
	if err := a.b.Sequencer.SetBlockTime(time.Duration(v.Uint64()) * unit); err != nil {
		return nil, param.NamedArgError(0, name, err)
	}
	return true, nil
}

package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// denimProcessor is the block processor of an OP Stack chain that runs Denim: before a Denim
// block's transactions it installs BaseTime's implementation when the state lacks it
// (oprollup.EnsureBaseTime), as Base's node does, then runs go-ethereum's processor. A replica
// with local state that crosses Denim's activation executes its first Denim block with
// BaseTime in place, as the sequencer built it.
type denimProcessor struct {
	core.Processor
	denim *uint64
}

// Process implements core.Processor.
func (p denimProcessor) Process(ctx context.Context, block *types.Block, st *state.StateDB, cfg vm.Config) (*core.ProcessResult, error) {
	if err := EnsureBaseTime(p.denim, block.Time(), st); err != nil {
		return nil, fmt.Errorf("block %d: %w", block.NumberU64(), err)
	}
	return p.Processor.Process(ctx, block, st, cfg)
}

// EnsureBaseTime installs BaseTime's implementation in st, the state a block at time opens
// with, when the block is a Denim block on a chain whose Denim time is denim and st lacks it
// (oprollup.EnsureBaseTime); otherwise it does nothing. Every path that executes a block of an
// OP Stack chain calls it before the block's transactions: the chain's processor, the block
// in progress, a fork's blocks, and a traced block's replay (exec.BlockEnv, which calls
// oprollup.EnsureBaseTime itself: internal/exec does not import the chain).
func EnsureBaseTime(denim *uint64, time uint64, st vm.StateDB) error {
	if !oprollup.IsDenim(denim, time) {
		return nil
	}
	_, err := oprollup.EnsureBaseTime(st)
	return err
}

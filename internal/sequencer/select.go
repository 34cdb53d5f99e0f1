package sequencer

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/preconf"
)

// ErrNotPreconfirmed is returned by SealSelected for a transaction that is not in the block in
// progress.
var ErrNotPreconfirmed = errors.New("transaction not pre-confirmed in the block in progress")

// SealSelected seals the block in progress now with the pre-confirmed transactions listed, in
// the listed order, and opens the next block. An OP Stack block's deposits open it and stay,
// listed or not. Pre-confirmed transactions not listed are
// dropped for good, and when the list differs from what was pre-confirmed, the pre-confirmed
// logs the sealed block does not carry are retracted (preconf.Dev.SealWith). This is the dev
// chain's way to exercise retraction (dev_seal with a transaction list); the timers always
// seal what was pre-confirmed. A chain without pre-confirmations refuses it
// (ErrNoPreconfirmations).
func (s *Sequencer) SealSelected(ctx context.Context, hashes []common.Hash) (*types.Block, error) {
	if s.cfg.NoPreconfirmations {
		return nil, ErrNoPreconfirmations
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	staged := s.publishStagedLocked() // stage.go; given back below when left out
	snap := s.preconf.Current()
	if snap == nil {
		return nil, preconf.ErrNoBlock
	}
	txs := make([]*types.Transaction, 0, len(hashes))
	seen := make(map[common.Hash]bool, len(hashes))
	for _, h := range hashes {
		i, ok := snap.TxIndex(h)
		if !ok {
			return nil, fmt.Errorf("%w: %s", ErrNotPreconfirmed, h)
		}
		if seen[h] {
			return nil, fmt.Errorf("transaction %s listed twice", h)
		}
		seen[h] = true
		if tx := snap.Block.Transactions()[i]; !tx.IsDepositTx() { // deposits open the block: always kept
			txs = append(txs, tx)
		}
	}
	block, err := s.dev.SealWith(ctx, txs)
	if err != nil {
		// A failed insert after a re-build leaves no block in progress: open the next one on
		// the head so the chain goes on.
		if oerr := s.openLocked(ctx); oerr != nil && !errors.Is(oerr, preconf.ErrBlockOpen) {
			err = errors.Join(err, oerr)
		}
		return nil, err
	}
	s.sealed = block
	s.log.Info("sealed block", "number", block.NumberU64(), "hash", block.Hash(), "txs", len(block.Transactions()), "gasUsed", block.GasUsed(), "preconfirmed", len(snap.Block.Transactions()))
	if err := s.openLocked(ctx); err != nil {
		return block, fmt.Errorf("open block %d: %w", block.NumberU64()+1, err)
	}
	s.requeueStagedLocked(staged)
	return block, nil
}

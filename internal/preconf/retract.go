package preconf

import (
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Retraction reports how a sealed block differs from what was pre-confirmed for it: the
// pre-confirmed logs it does not carry, the logs it carries that were not pre-confirmed as they
// are, and the pre-confirmed transactions it does not include. Its slices are immutable:
// listeners must not modify them or the logs they hold.
//
// Logs are compared by transaction hash, transaction index, log index, address, topics and
// data: a transaction that moved, failed differently or emitted other logs retracts its
// pre-confirmed logs, even when the block's transaction list is unchanged (Base's node
// compares transaction hashes only and never retracts such logs, base/base#3274).
type Retraction struct {
	// Block is the sealed block; nil when the block in progress was rebuilt (Dev.Rebuild) or
	// abandoned (Dev.Rewind) instead.
	Block *types.Block
	// Removed are copies of the pre-confirmed logs that the sealed block does not carry, with
	// Removed set, in pre-confirmed order. Like every pre-confirmed log, their BlockHash is the
	// zero hash.
	Removed []*types.Log
	// Added are the sealed block's logs that were not pre-confirmed as they are, in block
	// order, with the sealed block's hash.
	Added []*types.Log
	// Dropped are the hashes of pre-confirmed transactions that the sealed block does not
	// include, in pre-confirmed order.
	Dropped []common.Hash
}

// OnRetract registers fn to run, on the writer's goroutine, when a block is sealed that differs
// from what was pre-confirmed. It runs after the block in progress is cleared (no reader sees
// the retracted logs any more) and before the sealed block is inserted, so subscribers hear
// of the retraction before they hear of the sealed block. fn must return quickly.
func (p *Preconf) OnRetract(fn func(*Retraction)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.retracts = append(p.retracts, fn)
}

func sameHashes(a, b []*types.Transaction) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Hash() != b[i].Hash() {
			return false
		}
	}
	return true
}

// retraction compares the last pre-confirmation with the sealed block and its receipts; nil
// when they carry the same logs and transactions.
func retraction(pre *Snapshot, sealed *types.Block, receipts types.Receipts) *Retraction {
	var preLogs []*types.Log
	included := make(map[common.Hash]bool, len(sealed.Transactions()))
	for _, tx := range sealed.Transactions() {
		included[tx.Hash()] = true
	}
	r := &Retraction{Block: sealed}
	if pre != nil {
		preLogs = pre.Logs()
		for _, tx := range pre.Block.Transactions() {
			if !included[tx.Hash()] {
				r.Dropped = append(r.Dropped, tx.Hash())
			}
		}
	}
	preKeys := make(map[string]bool, len(preLogs))
	for _, l := range preLogs {
		preKeys[logKey(l)] = true
	}
	sealedKeys := make(map[string]bool)
	for _, rc := range receipts {
		for _, l := range rc.Logs {
			key := logKey(l)
			sealedKeys[key] = true
			if !preKeys[key] {
				cp := *l
				cp.BlockHash = sealed.Hash()
				r.Added = append(r.Added, &cp)
			}
		}
	}
	for _, l := range preLogs {
		if !sealedKeys[logKey(l)] {
			cp := *l
			cp.Removed = true
			r.Removed = append(r.Removed, &cp)
		}
	}
	if len(r.Removed) == 0 && len(r.Added) == 0 && len(r.Dropped) == 0 {
		return nil
	}
	return r
}

// logKey identifies a log by everything but its block hash: transaction, positions and
// content.
func logKey(l *types.Log) string {
	key := make([]byte, 0, 32+16+20+32*len(l.Topics)+len(l.Data))
	key = append(key, l.TxHash[:]...)
	key = binary.BigEndian.AppendUint64(key, uint64(l.TxIndex))
	key = binary.BigEndian.AppendUint64(key, uint64(l.Index))
	key = append(key, l.Address[:]...)
	key = append(key, byte(len(l.Topics)))
	for _, t := range l.Topics {
		key = append(key, t[:]...)
	}
	return string(append(key, l.Data...))
}

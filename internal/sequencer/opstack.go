package sequencer

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// On an OP Stack chain (Config.L1 set) every block opens with the L1-attributes deposit of the
// dev L1 origin, then the user deposits queued by Deposit, all in pre-confirmation 0; its
// coinbase is the SequencerFeeVault and its extraData carries the EIP-1559 parameters and the
// minimum base fee (oprollup.ExtraData; on a fork, the fork block's: DevL1.Extra).

// ErrNotOPStack refuses a deposit on a chain that is not an OP Stack chain.
var ErrNotOPStack = errors.New("deposits need an OP Stack chain (this dev chain runs with --chain-type l1)")

// ErrDepositGas refuses a deposit with more gas than a block has room for beside its
// L1-attributes deposit.
var ErrDepositGas = errors.New("deposit gas exceeds what a block has room for")

// queuedDeposit is a deposit waiting for the next block.
type queuedDeposit struct {
	tx *types.Transaction
}

// depositQueue holds the deposits for the blocks to come. Guarded by Sequencer.mu.
type depositQueue struct {
	pending []queuedDeposit
	// block and next number the source hashes: the next deposit is the next-th of block.
	block, next uint64
}

// Deposit queues a user deposit for the top of the next block, right after its L1-attributes
// deposit (pre-confirmation 0 of that block), and returns its transaction hash. Its source
// hash is unique (oprollup.DevDepositSourceHash of the block it is meant for and its position).
// Deposits that do not fit in the next block's gas wait for the one after.
func (s *Sequencer) Deposit(d oprollup.Deposit) (common.Hash, error) {
	if s.cfg.L1 == nil {
		return common.Hash{}, ErrNotOPStack
	}
	s.lock() // stage.go
	defer s.mu.Unlock()
	head := s.preconf.Head()
	if room := head.GasLimit - min(head.GasLimit, l1InfoGas); d.Gas > room {
		return common.Hash{}, fmt.Errorf("%w: gas %d, block room %d", ErrDepositGas, d.Gas, room)
	}
	target := head.Number.Uint64() + 2 // the block after the one in progress
	if s.deposits.block != target {
		s.deposits.block, s.deposits.next = target, 0
	}
	tx := d.Tx(oprollup.DevDepositSourceHash(target, s.deposits.next))
	s.deposits.next++
	s.deposits.pending = append(s.deposits.pending, queuedDeposit{tx: tx})
	return tx.Hash(), nil
}

// l1InfoGas is the L1-attributes deposit's gas.
const l1InfoGas = 1_000_000

// opAttributes makes attrs an OP Stack block's: the L1-attributes deposit of the dev L1 origin
// for its time, then as many queued deposits as fit in its gas, the SequencerFeeVault as
// coinbase, the extraData of its time and the L1 origin's hash as prevRandao. It returns the
// deposits taken from the queue, for putBack when the block does not open. A Denim block
// (denim.go) has the BaseTime deposit right after the L1-attributes deposit, and its gas limit
// and extraData are denim's.
func (s *Sequencer) opAttributes(attrs *preconf.Attributes, head *types.Header, denim oprollup.DenimNext) []queuedDeposit {
	// Only the parent's L1-attributes deposit (its first transaction) matters: take it from the
	// block this sequencer just sealed rather than read and decode the whole block back.
	info := s.cfg.L1.Info(s.parentTxs(head), attrs.Time)
	l1Info := info.DepositTx()
	attrs.Transactions = []*types.Transaction{l1Info}
	attrs.FeeRecipient = oprollup.SequencerFeeVault
	attrs.ExtraData = s.cfg.L1.ExtraData(s.chain.Config(), attrs.Time)
	attrs.PrevRandao = info.Hash
	gas := l1Info.Gas()
	if denim.On {
		baseTime := oprollup.BaseTimeDeposit(attrs.Number, denim.Part)
		attrs.Transactions = append(attrs.Transactions, baseTime)
		attrs.GasLimit, attrs.ExtraData = denim.GasLimit, denim.Extra
		gas += baseTime.Gas()
	}
	n := 0
	for _, d := range s.deposits.pending {
		if gas+d.tx.Gas() > attrs.GasLimit {
			break
		}
		gas += d.tx.Gas()
		attrs.Transactions = append(attrs.Transactions, d.tx)
		n++
	}
	taken := s.deposits.pending[:n:n]
	s.deposits.pending = s.deposits.pending[n:]
	return taken
}

// putBack returns deposits taken for a block that did not open to the front of the queue.
func (s *Sequencer) putBack(taken []queuedDeposit) {
	s.deposits.pending = append(taken, s.deposits.pending...)
}

package sequencer

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// FeedPayload returns the feed message of one of the dev sequencer's pre-confirmations in
// format. Base's format (flashblocks.FromBlock) commits to the partial block: state root,
// receipts root and block hash. OP's subblocks format (flashblocks.Subblock) publishes the
// state root, block hash and withdrawals root as zero, the transactions the pre-confirmation
// adds, their receipts, and the balances after it of the accounts those transactions touch
// directly: senders, recipients, created contracts, the fee recipient and, on an OP Stack
// chain, the base fee, L1 fee and operator fee vaults (an account paid by a contract's
// internal call is not listed). Both carry only the transactions the pre-confirmation adds.
//
// It reads snap's state; it is meant for a preconf.Preconf.OnSnapshot listener.
func FeedPayload(snap *preconf.Snapshot, format flashblocks.Format) (*flashblocks.Payload, error) {
	if format != flashblocks.FormatSubblocks {
		return flashblocks.FromBlock(snap.Block, snap.Index, snap.FirstNew)
	}
	return flashblocks.Subblock(snap.Block, snap.Receipts, touchedBalances(snap), snap.Index, snap.FirstNew)
}

// touchedBalances returns the balances after snap of the accounts its own transactions touch
// directly (FeedPayload).
func touchedBalances(snap *preconf.Snapshot) map[common.Address]*big.Int {
	txs := snap.Block.Transactions()
	accounts := []common.Address{snap.Block.Coinbase()}
	if isOP(snap) {
		accounts = append(accounts, oprollup.BaseFeeVault, oprollup.L1FeeVault, oprollup.OperatorFeeVault)
	}
	for i := snap.FirstNew; i < len(txs); i++ {
		accounts = append(accounts, snap.Senders[i])
		if to := txs[i].To(); to != nil {
			accounts = append(accounts, *to)
		}
		if r := snap.Receipts[i]; r.ContractAddress != (common.Address{}) {
			accounts = append(accounts, r.ContractAddress)
		}
	}
	balances := make(map[common.Address]*big.Int, len(accounts))
	snap.ReadState(func(st *state.StateDB) {
		for _, a := range accounts {
			if _, done := balances[a]; !done {
				balances[a] = st.GetBalance(a).ToBig()
			}
		}
	})
	return balances
}

// isOP reports whether snap's block is an OP Stack block: it opens with a deposit.
func isOP(snap *preconf.Snapshot) bool {
	txs := snap.Block.Transactions()
	return len(txs) > 0 && txs[0].IsDepositTx()
}

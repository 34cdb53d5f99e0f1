package fork

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// A fork of an OP Stack chain runs the OP Stack rules on (decisions.md "OP Stack chains"):
// every local block opens with the L1-attributes deposit, whose attributes continue those of
// the fork block N (oprollup.DevL1.Fork: N's L1 origin, fees, scalars and batcher, the
// sequence number counting on), with N's extraData (its EIP-1559 parameters and minimum base
// fee) and N's fee recipient, the SequencerFeeVault. The first forked block, which flashrpc
// writes itself, opens the same way; the sequencer builds the later ones from L1.

// isOPBlock reports whether b opens with a deposit transaction, as every OP Stack block but
// the genesis does.
func isOPBlock(b *types.Block) bool {
	txs := b.Transactions()
	return len(txs) > 0 && txs[0].IsDepositTx()
}

// forkKind returns the rules kind a fork of upstream chain upID at block b runs when no
// --chain-type was given: a known chain's own; for an unknown one, OP Stack when b opens with a
// deposit, else "" (Ethereum).
func forkKind(upID uint64, b *types.Block) networks.Kind {
	if _, known := networks.Lookup(upID); !known && isOPBlock(b) {
		return networks.OPStack
	}
	return ""
}

// checkForkBlock refuses a fork block whose shape contradicts the rules the fork would run:
// an OP Stack fork needs block N's L1-attributes deposit in the Jovian layout (which the local
// blocks continue), an Ethereum fork a block without deposits.
func checkForkBlock(config *params.ChainConfig, network networks.Network, b *types.Block) error {
	if !config.IsOptimism() {
		if isOPBlock(b) {
			return fmt.Errorf("block %d opens with a deposit transaction, but %s runs Ethereum rules (an OP Stack chain? use --chain-type op)", b.NumberU64(), network.Name)
		}
		return nil
	}
	if !config.IsJovian(b.Time()) {
		return fmt.Errorf("block %d of %s is before Jovian: forks of OP Stack blocks before Jovian are not supported (fork a later block)", b.NumberU64(), network.Name)
	}
	if _, err := forkL1(b); err != nil {
		return err
	}
	return nil
}

// forkL1 returns the dev L1 that continues block b's L1 attributes.
func forkL1(b *types.Block) (*oprollup.DevL1, error) {
	info, err := oprollup.BlockL1Info(b.Transactions())
	if err != nil {
		return nil, fmt.Errorf("block %d is not a Jovian OP Stack block (%w): an OP Stack fork continues its L1 attributes", b.NumberU64(), err)
	}
	return &oprollup.DevL1{Fork: info, Extra: bytes.Clone(b.Extra())}, nil
}

// L1 returns the dev L1 of an OP Stack fork, for the sequencer (sequencer.Config.L1): block
// N's L1 attributes and extraData, continued.
func (f *Upstream) L1() (*oprollup.DevL1, error) {
	b := rawdb.ReadBlock(f.db, f.info.Hash, f.info.Number)
	if b == nil {
		return nil, fmt.Errorf("fork: block %d (%s) is missing from the database", f.info.Number, f.info.Hash)
	}
	return forkL1(b)
}

// eip1967Implementation is the slot where a proxy keeps its implementation's address
// (L1Block and the other predeploys are proxies).
var eip1967Implementation = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")

// opFirstBlockReads lists what the first forked block of an OP Stack fork reads besides the
// fee recipient and the funded accounts: the deposit's sender and L1Block (its implementation
// slot and the slots its attributes write), the fee vaults, and the zero address, every
// eth_call's default sender.
func opFirstBlockReads() ([]common.Address, []remote.SlotKey) {
	accounts := []common.Address{{}, oprollup.DepositorAccount, oprollup.L1Block, oprollup.SequencerFeeVault,
		oprollup.BaseFeeVault, oprollup.L1FeeVault, oprollup.OperatorFeeVault, oprollup.L2ToL1MessagePasser,
		params.BeaconRootsAddress, params.HistoryStorageAddress}
	slots := []remote.SlotKey{{Addr: oprollup.L1Block, Slot: eip1967Implementation}}
	for i := int64(0); i < 10; i++ {
		slots = append(slots, remote.SlotKey{Addr: oprollup.L1Block, Slot: common.BigToHash(big.NewInt(i))})
	}
	return accounts, slots
}

// applyOpening executes the deposits of the first forked block of an OP Stack fork, its only
// transactions (the L1-attributes deposit, and on a Denim block the BaseTime deposit), and
// returns their receipts. Each must succeed.
func applyOpening(config *params.ChainConfig, header *types.Header, st *state.StateDB, evm *vm.EVM, txs types.Transactions) (types.Receipts, error) {
	signer := types.MakeSigner(config, header.Number, header.Time)
	gp := core.NewGasPool(header.GasLimit)
	receipts := make(types.Receipts, 0, len(txs))
	for i, tx := range txs {
		msg, err := core.TransactionToMessage(tx, signer, header.BaseFee)
		if err != nil {
			return nil, err
		}
		st.SetTxContext(tx.Hash(), i)
		receipt, err := core.ApplyTransactionWithEVM(msg, gp, st, header.Number, common.Hash{}, header.Time, tx, evm)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", depositName(i), err)
		}
		if receipt.Status != types.ReceiptStatusSuccessful {
			return nil, fmt.Errorf("%s: reverted", depositName(i))
		}
		header.GasUsed = receipt.CumulativeGasUsed
		receipts = append(receipts, receipt)
	}
	return receipts, nil
}

// depositName names the deposit at position i of the first forked block.
func depositName(i int) string {
	if i == 0 {
		return "L1-attributes deposit"
	}
	return "BaseTime deposit"
}

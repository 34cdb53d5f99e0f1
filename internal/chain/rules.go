package chain

import (
	"fmt"

	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// applyRules makes bc run the rules op-geth lacks (internal/oprollup), once the chain's
// configuration is known and before any block is inserted:
//
//   - blocks execute with the vm.Config every other EVM of flashrpc runs (oprollup.VMConfig:
//     Azul's and Karst's Osaka MODEXP and P256VERIFY, Karst's bn256Pairing cap, and no
//     code-size limits on a dev chain opened with Config.NoCodeSizeLimit), installed in the
//     BlockChain's own vm.Config;
//   - on an OP Stack chain, block bodies are validated without Osaka's EIP-7934 block size
//     limit, which neither Azul nor Karst has (oprollup.BodyRules): go-ethereum's validator
//     is replaced by one that checks bodies with that configuration. BlockChain offers no
//     other way to set its validator than SetBlockValidatorAndProcessorForTesting, which is
//     safe before the first insert, as here; the processor stays go-ethereum's, wrapped on
//     a chain that runs Denim (below);
//   - on a chain that runs Denim (Config.Denim), headers are verified by an engine that
//     accepts a timestamp equal to the parent's from Denim's activation on and only there
//     (oprollup.HeaderRules); Open wraps the engine with it. Bodies are checked against
//     Denim's rules too (oprollup.CheckDenimBody: the BaseTime deposit as transaction 1 and
//     the millisecond time 200 after the parent's), and the BaseTime deposit must succeed;
//     before a Denim block's transactions the processor installs BaseTime's implementation
//     when the state lacks it, as Base's node does (basetime.go).
func applyRules(bc *core.BlockChain, denim *uint64) {
	config := bc.Config()
	vmc := bc.GetVMConfig()
	*vmc = oprollup.VMConfig(config, *vmc)
	body := oprollup.BodyRules(config)
	if body == config && (denim == nil || !config.IsOptimism()) {
		return
	}
	v := opValidator{Validator: bc.Validator(), body: core.NewBlockValidator(body, bc)}
	if config.IsOptimism() {
		v.denim, v.bc = denim, bc
	}
	processor := bc.Processor()
	if v.denim != nil {
		processor = denimProcessor{Processor: processor, denim: denim} // basetime.go
	}
	bc.SetBlockValidatorAndProcessorForTesting(v, processor)
}

// opValidator is an OP Stack chain's block validator: go-ethereum's, with body checks run by
// a validator of the body rules, and Denim's rules when denim is set.
type opValidator struct {
	core.Validator
	body  core.Validator
	denim *uint64
	bc    *core.BlockChain // the parents of Denim blocks
}

// ValidateBody implements core.Validator with the body rules' validator, then Denim's rules.
func (v opValidator) ValidateBody(block *types.Block) error {
	if err := v.body.ValidateBody(block); err != nil || v.denim == nil {
		return err
	}
	parent := v.bc.GetBlock(block.ParentHash(), block.NumberU64()-1)
	if parent == nil {
		return consensus.ErrUnknownAncestor
	}
	return oprollup.CheckDenimBody(v.denim, block.NumberU64(), block.Time(), block.Transactions(), parent.Time(), parent.Transactions())
}

// ValidateState implements core.Validator: go-ethereum's checks, then, on a Denim block,
// that its BaseTime deposit succeeded.
func (v opValidator) ValidateState(block *types.Block, st *state.StateDB, res *core.ProcessResult, stateless bool) error {
	if err := v.Validator.ValidateState(block, st, res, stateless); err != nil {
		return err
	}
	if v.denim != nil && oprollup.IsDenim(v.denim, block.Time()) && len(res.Receipts) > 1 && res.Receipts[1].Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("%w: block %d: the BaseTime deposit failed", oprollup.ErrDenimBody, block.NumberU64())
	}
	return nil
}

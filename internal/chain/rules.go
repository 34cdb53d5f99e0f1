package chain

import (
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// applyRules makes bc run the rules op-geth lacks (internal/oprollup), once the chain's
// configuration is known and before any block is inserted:
//
//   - blocks execute with the precompiles every other EVM of flashrpc runs (Azul's and
//     Karst's Osaka MODEXP and P256VERIFY, Karst's bn256Pairing cap), through the hook of
//     the BlockChain's own vm.Config;
//   - on an OP Stack chain, block bodies are validated without Osaka's EIP-7934 block size
//     limit, which neither Azul nor Karst has (oprollup.BodyRules): go-ethereum's validator
//     is replaced by one that checks bodies with that configuration. BlockChain offers no
//     other way to set its validator than SetBlockValidatorAndProcessorForTesting, which is
//     safe before the first insert, as here; the processor stays go-ethereum's;
//   - on a chain that runs Denim (Config.Denim), headers are verified by an engine that
//     accepts a timestamp equal to the parent's from Denim's activation on and only there
//     (oprollup.HeaderRules); Open wraps the engine with it.
func applyRules(bc *core.BlockChain) {
	config := bc.Config()
	bc.GetVMConfig().PrecompileOverrides = oprollup.PrecompileOverrides(config)
	if body := oprollup.BodyRules(config); body != config {
		bc.SetBlockValidatorAndProcessorForTesting(opValidator{
			Validator: bc.Validator(),
			body:      core.NewBlockValidator(body, bc),
		}, bc.Processor())
	}
}

// opValidator is an OP Stack chain's block validator: go-ethereum's, with body checks run by
// a validator of the body rules.
type opValidator struct {
	core.Validator
	body core.Validator
}

// ValidateBody implements core.Validator with the body rules' validator.
func (v opValidator) ValidateBody(block *types.Block) error { return v.body.ValidateBody(block) }

package oprollup

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// Base's values. Base's chain is not in op-geth's superchain registry and none of its values
// could be read offline; where a value is Base's, the comment says where it came from and how
// to confirm it against the live chain (every Base block carries them: the header's extraData
// holds the EIP-1559 parameters and the minimum base fee since Jovian, and transaction 0, the
// L1-attributes deposit, holds the fee scalars; every receipt echoes the scalars too).
const (
	// BaseFeeScalar is the L1 base fee scalar of the L1 data fee (Ecotone/Fjord formula).
	// Base mainnet's value, from memory (0x8dd). Confirm: bytes [4:8] of the input of any
	// Base block's transaction 0, or a Base receipt's l1BaseFeeScalar.
	BaseFeeScalar uint32 = 2269
	// BlobBaseFeeScalar is the L1 blob base fee scalar of the L1 data fee. Base mainnet's
	// value, from memory (0x101c12). Confirm: bytes [8:12] of the input of any Base block's
	// transaction 0, or a Base receipt's l1BlobBaseFeeScalar.
	BlobBaseFeeScalar uint32 = 1_055_762
	// OperatorFeeScalar and OperatorFeeConstant are the Isthmus operator fee parameters: Base
	// charges no operator fee (receipts carry no operatorFee* fields). Confirm: bytes
	// [164:168] and [168:176] of transaction 0's input are zero.
	OperatorFeeScalar   uint32 = 0
	OperatorFeeConstant uint64 = 0
	// DAFootprintGasScalar is Jovian's data-availability footprint scalar: OP's default (0 in
	// the L1 SystemConfig means 400, op-node's derive.DAFootprintGasScalarDefault). Confirm:
	// bytes [176:178] of transaction 0's input, or a receipt's daFootprintGasScalar.
	DAFootprintGasScalar uint16 = 400

	// EIP1559Denominator and EIP1559Elasticity are the base fee change denominator and the
	// elasticity multiplier written into every block's extraData (Holocene). 250 and 6 are
	// the OP Stack standard that OP's genesis generator writes (op-chain-ops/genesis) and
	// every superchain registry chain starts with; Base's current values are not known
	// offline. Confirm: bytes [1:5] and [5:9] of any Base block's extraData.
	EIP1559Denominator uint64 = 250
	EIP1559Elasticity  uint64 = 6
	// MinBaseFee is the Jovian minimum base fee in wei, bytes [9:17] of extraData. Our
	// choice, not Base's (unknown offline): 0.001 gwei keeps an idle dev chain's base fee at
	// the order of Base's. Confirm Base's: bytes [9:17] of any Base block's extraData.
	MinBaseFee uint64 = 1_000_000

	// DefaultGasLimit is the dev chain's block gas limit: Base mainnet's, about 187.5M
	// (decisions.md, from Base's docs). Confirm: any Base block's gasLimit.
	DefaultGasLimit uint64 = 187_500_000
	// DefaultBaseFee is the genesis block's base fee: MinBaseFee, where an idle chain's base
	// fee settles.
	DefaultBaseFee = MinBaseFee
)

// Addresses of the OP Stack's system accounts and predeploys that flashrpc refers to.
var (
	// DepositorAccount sends the L1-attributes deposit of every block.
	DepositorAccount = common.HexToAddress("0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001")
	// L1Block holds the L1 origin's attributes; the L1 fee functions read them.
	L1Block = types.L1BlockAddr
	// GasPriceOracle computes L1 fees on chain (getL1Fee, getL1FeeUpperBound).
	GasPriceOracle = common.HexToAddress("0x420000000000000000000000000000000000000F")
	// SequencerFeeVault receives the priority fees: it is every block's coinbase.
	SequencerFeeVault = common.HexToAddress("0x4200000000000000000000000000000000000011")
	// BaseFeeVault receives the base fees.
	BaseFeeVault = params.OptimismBaseFeeRecipient
	// L1FeeVault receives the L1 data fees.
	L1FeeVault = params.OptimismL1FeeRecipient
	// OperatorFeeVault receives the operator fees (Isthmus).
	OperatorFeeVault = params.OptimismOperatorFeeRecipient
	// L2ToL1MessagePasser holds the withdrawals; its storage root is every Isthmus header's
	// withdrawalsRoot.
	L2ToL1MessagePasser = params.OptimismL2ToL1MessagePasser
)

// ExtraData returns the extraData of a block at time on chain config: since Jovian the
// version byte 1, the EIP-1559 denominator and elasticity and the minimum base fee, which
// the next block's base fee is computed from; since Holocene the first two; nil before.
func ExtraData(config *params.ChainConfig, time uint64) []byte {
	min := MinBaseFee
	return eip1559.EncodeOptimismExtraData(config, time, EIP1559Denominator, EIP1559Elasticity, &min)
}

// IsOP reports whether config is an OP Stack chain's (its genesis has an optimism section).
func IsOP(config *params.ChainConfig) bool { return config != nil && config.IsOptimism() }

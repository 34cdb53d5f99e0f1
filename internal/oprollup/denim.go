package oprollup

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
)

// Denim is Base's fork of 200 ms blocks (shared/reference/networks-2026.md §3; docs.base.org,
// base-chain/specs/upgrades/denim). It changes no opcode or precompile; it changes the
// block's time, its second transaction and the gas parameters:
//
//   - header timestamps stay whole seconds and may equal the parent's; the sub-second part
//     comes from the BaseTime predeploy, set by the BaseTime deposit, every Denim block's
//     transaction 1 (BaseTimeDeposit). A block's time in milliseconds is
//     Tms = 1000 × timestamp + part, part ∈ {0, 200, 400, 600, 800}, and grows by exactly
//     DenimBlockTimeMs per block (NextDenimTime). The first Denim block is the first block
//     whose timestamp is at or after the activation (on Base, whose blocks came every 2 s
//     before, the first 2-second slot at or after it), with part 0 (IsFirstDenimBlock).
//   - at the first Denim block the gas limit is divided by DenimGasScaling and the EIP-1559
//     denominator multiplied by it (DenimGasParams); later blocks keep the scaled values.
//   - the header rule op-geth lacks: equal timestamps (HeaderRules, forks.go).
//
// A chain configuration has no field for Denim: its activation time travels beside the
// configuration as a *uint64 (nil: never), internal/networks' to decide.

// DenimBlockTimeMs is a Denim block's time in milliseconds.
const DenimBlockTimeMs = 200

// DenimGasScaling is the number of Denim blocks in one 2-second block of before: the gas
// limit is divided and the EIP-1559 denominator multiplied by it at the first Denim block
// (base/base RollupConfig, DENIM_GAS_PARAMETER_SCALING_FACTOR).
const DenimGasScaling = 10

// IsDenim reports whether Denim is active at time on a chain whose Denim activation is denim
// (nil: never).
func IsDenim(denim *uint64, time uint64) bool { return denim != nil && time >= *denim }

// IsFirstDenimBlock reports whether a block at time whose parent is at parentTime is its
// chain's first Denim block (base/base RollupConfig.is_first_denim_block).
func IsFirstDenimBlock(denim *uint64, parentTime, time uint64) bool {
	return IsDenim(denim, time) && !IsDenim(denim, parentTime)
}

// Addresses of BaseTime (base/contracts src/L2/BaseTime.sol).
var (
	// BaseTime is the predeploy, a proxy whose implementation is BaseTimeImplementation.
	BaseTime = common.HexToAddress("0x4200000000000000000000000000000000000030")
	// BaseTimeImplementation is where BaseTime's implementation lives: the predeploy's
	// address in the 0xc0d3… namespace of OP Stack implementations.
	BaseTimeImplementation = common.HexToAddress("0xc0D3C0d3C0d3C0D3c0d3C0d3c0D3C0d3c0d30030")
)

// BaseTime's ABI: selectors and custom errors.
var (
	SetTimestampMillisPartSelector = []byte{0x86, 0xbd, 0xf3, 0x94} // setTimestampMillisPart(uint16)
	TimestampMillisPartSelector    = []byte{0x7b, 0x2f, 0xea, 0x99} // timestampMillisPart()
	TimestampMsSelector            = []byte{0x57, 0x45, 0xa6, 0x77} // timestampMs()
	BaseTimeVersionSelector        = []byte{0x54, 0xfd, 0x4d, 0x50} // version()
	// BaseTimeNotDepositorError is BaseTime_NotDepositor(): the setter's caller is not
	// DepositorAccount.
	BaseTimeNotDepositorError = []byte{0x3c, 0x7b, 0x52, 0x03}
	// BaseTimeInvalidPartError is BaseTime_InvalidTimestampMillisPart(): a part over 800 or
	// not a multiple of 200.
	BaseTimeInvalidPartError = []byte{0xce, 0xb5, 0xdf, 0x05}
)

// baseTimeDepositGas is the BaseTime deposit's gas, op-node's RegolithSystemTxGas as the
// L1-attributes deposit's.
const baseTimeDepositGas = 1_000_000

// baseTimeSourceDomain is the source-hash domain of the BaseTime deposit (user deposits are
// 0, L1-attributes 1, upgrades 2).
const baseTimeSourceDomain = 3

// BaseTimeSourceHash is the source hash of the BaseTime deposit of L2 block number:
// keccak256(uint256(3) ‖ keccak256(uint256(number))) (base/base BaseTimeDepositSource).
func BaseTimeSourceHash(number uint64) common.Hash {
	inner := crypto.Keccak256(common.BigToHash(new(big.Int).SetUint64(number)).Bytes())
	domain := common.BigToHash(big.NewInt(baseTimeSourceDomain))
	return crypto.Keccak256Hash(domain[:], inner)
}

// BaseTimeCalldata is setTimestampMillisPart(part): the selector and part as a right-aligned
// 32-byte word, 36 bytes.
func BaseTimeCalldata(part uint16) []byte {
	b := make([]byte, 36)
	copy(b, SetTimestampMillisPartSelector)
	binary.BigEndian.PutUint16(b[34:], part)
	return b
}

// BaseTimeDeposit returns the BaseTime deposit of L2 block number, whose time has the
// millisecond part part: from DepositorAccount to BaseTime, no mint, no value, 1,000,000
// gas, not a system transaction, setTimestampMillisPart(part). It is every Denim block's
// transaction 1, right after the L1-attributes deposit.
func BaseTimeDeposit(number uint64, part uint16) *types.Transaction {
	to := BaseTime
	return types.NewTx(&types.DepositTx{
		SourceHash: BaseTimeSourceHash(number),
		From:       DepositorAccount,
		To:         &to,
		Value:      new(big.Int),
		Gas:        baseTimeDepositGas,
		Data:       BaseTimeCalldata(part),
	})
}

// BaseTimePart returns the millisecond part tx sets when it is a BaseTime deposit (a deposit
// from DepositorAccount to BaseTime calling setTimestampMillisPart), and whether it is one.
func BaseTimePart(tx *types.Transaction) (uint16, bool) {
	if tx == nil || !tx.IsDepositTx() || tx.To() == nil || *tx.To() != BaseTime {
		return 0, false
	}
	data := tx.Data()
	if len(data) != 36 || string(data[:4]) != string(SetTimestampMillisPartSelector) {
		return 0, false
	}
	if tx.From() != DepositorAccount {
		return 0, false
	}
	return binary.BigEndian.Uint16(data[34:]), true
}

// BlockTimeMs returns a sealed block's time in milliseconds, 1000 × timestamp + the part its
// BaseTime deposit (transaction 1) sets, and whether it has one: only Denim blocks do. RPC
// answers carry it as timestampMs and blockTimestampMs.
func BlockTimeMs(time uint64, txs types.Transactions) (uint64, bool) {
	if len(txs) < 2 {
		return 0, false
	}
	part, ok := BaseTimePart(txs[1])
	if !ok {
		return 0, false
	}
	return TimeMs(time, part), true
}

// TimeMs is 1000 × time + part.
func TimeMs(time uint64, part uint16) uint64 { return time*1000 + uint64(part) }

// ValidBaseTimePart reports whether BaseTime accepts part: at most 800, a multiple of 200.
func ValidBaseTimePart(part uint16) bool { return part <= 800 && part%DenimBlockTimeMs == 0 }

// NextDenimTime returns the header timestamp and millisecond part of the block after a Denim
// block at parentTime with part parentPart: DenimBlockTimeMs later, so five blocks share a
// second and the part runs 0, 200, …, 800.
func NextDenimTime(parentTime uint64, parentPart uint16) (time uint64, part uint16) {
	ms := TimeMs(parentTime, parentPart) + DenimBlockTimeMs
	return ms / 1000, uint16(ms % 1000)
}

// DenimActivationBlock returns the number and timestamp of the first Denim block of a chain
// whose blocks came every blockTime seconds from its genesis (number genesisNumber at
// genesisTime) until then: the first slot at or after the activation denim, with part 0
// (base/base RollupConfig.denim_activation_block_number).
func DenimActivationBlock(genesisNumber, genesisTime, blockTime, denim uint64) (number, time uint64) {
	if denim <= genesisTime {
		return genesisNumber, genesisTime
	}
	slots := (denim - genesisTime + blockTime - 1) / blockTime
	return genesisNumber + slots, genesisTime + slots*blockTime
}

// ErrNoEIP1559Params reports extraData without the Holocene EIP-1559 parameters that
// DenimGasParams scales.
var ErrNoEIP1559Params = errors.New("extraData holds no EIP-1559 parameters (Holocene)")

// DenimGasParams returns the gas limit and extraData of the first Denim block of a chain
// config whose parent has gasLimit and parentExtra: the gas limit divided by DenimGasScaling
// (integer division) and the EIP-1559 denominator multiplied by it; the elasticity and the
// minimum base fee stay. A zero denominator (the configuration's default) stays zero, as
// base/base's saturating multiplication leaves it. The first Denim block's own base fee still
// comes from the parent's denominator: op-geth reads the parent's extraData.
func DenimGasParams(config *params.ChainConfig, time, gasLimit uint64, parentExtra []byte) (uint64, []byte, error) {
	if !config.IsHolocene(time) || len(parentExtra) < 9 {
		return 0, nil, fmt.Errorf("%w: %x", ErrNoEIP1559Params, parentExtra)
	}
	denominator, elasticity, minBaseFee := eip1559.DecodeOptimismExtraData(config, time, parentExtra)
	if config.IsJovian(time) && minBaseFee == nil {
		zero := uint64(0)
		minBaseFee = &zero
	}
	extra := eip1559.EncodeOptimismExtraData(config, time, denominator*DenimGasScaling, elasticity, minBaseFee)
	return gasLimit / DenimGasScaling, extra, nil
}

// baseTimeCodeHex is BaseTime's implementation runtime bytecode (878 bytes): base/base's
// crates/common/evm2/src/bytecode/base-time.hex (commit 2752447c), which records it as built
// from base/contracts commit 4848ec70, src/L2/BaseTime.sol, solc 0.8.15. Its keccak256 is
// base/base's IMPLEMENTATION_CODE_HASH (TestBaseTimeCode).
//
//go:embed basetime.hex
var baseTimeCodeHex string

// BaseTimeCode returns BaseTime's implementation runtime bytecode. The slice is the
// caller's.
func BaseTimeCode() []byte { return common.FromHex(strings.TrimSpace(baseTimeCodeHex)) }

// The EIP-1967 slots of OP's predeploy Proxy.
var (
	proxyImplementationSlot = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	proxyAdminSlot          = common.HexToHash("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103")
)

// InstallBaseTime puts BaseTime into alloc, as Base's node does at Denim's activation: the
// implementation's code at BaseTimeImplementation and the proxy at BaseTime pointing at it
// (EIP-1967 implementation slot). The proxy must be there already, with code and the
// ProxyAdmin as admin, as in every OP Stack genesis (Predeploys). alloc's accounts are
// replaced, not modified: Predeploys shares their code and storage.
func InstallBaseTime(alloc types.GenesisAlloc) error {
	proxy, ok := alloc[BaseTime]
	if !ok || len(proxy.Code) == 0 {
		return fmt.Errorf("install BaseTime: no proxy at %s", BaseTime)
	}
	if admin := proxy.Storage[proxyAdminSlot]; common.BytesToAddress(admin[:]) != ProxyAdmin {
		return fmt.Errorf("install BaseTime: proxy admin %s, want %s", common.BytesToAddress(admin[:]), ProxyAdmin)
	}
	storage := make(map[common.Hash]common.Hash, len(proxy.Storage)+1)
	for k, v := range proxy.Storage {
		storage[k] = v
	}
	storage[proxyImplementationSlot] = common.BytesToHash(BaseTimeImplementation[:])
	proxy.Storage = storage
	alloc[BaseTime] = proxy
	impl := alloc[BaseTimeImplementation]
	impl.Code = BaseTimeCode()
	if impl.Balance == nil {
		impl.Balance = new(big.Int) // a genesis file's account needs one to be read back
	}
	alloc[BaseTimeImplementation] = impl
	return nil
}

// ProxyAdmin is the OP Stack's ProxyAdmin predeploy, every predeploy proxy's admin.
var ProxyAdmin = common.HexToAddress("0x4200000000000000000000000000000000000018")

// ErrDenimBody reports a block whose transactions break Denim's rules (CheckDenimBody).
var ErrDenimBody = errors.New("invalid Denim block")

// CheckDenimBody checks a block's transactions against Denim's rules on a chain whose Denim
// activation is denim, as Base's node validates them (base/base validate_deposit,
// validate_progression, validate_first_denim_anchor): from Denim on, transaction 1 is the
// BaseTime deposit of the block's number exactly (fields, source hash, zero-padded calldata, a
// part BaseTime accepts) and the block's millisecond time is its parent's + 200, or has part
// 0 when the parent has none (the first Denim block, or a genesis already under Denim); no
// other transaction is a BaseTime deposit, and before Denim none is. parentTime and parentTxs
// are the parent's timestamp and transactions. That the deposit succeeded is the receipt's
// to show, after execution.
func CheckDenimBody(denim *uint64, number, time uint64, txs types.Transactions, parentTime uint64, parentTxs types.Transactions) error {
	if denim == nil {
		return nil
	}
	on := IsDenim(denim, time)
	for i, tx := range txs {
		if _, ok := BaseTimePart(tx); ok && (!on || i != 1) {
			return fmt.Errorf("%w: block %d: transaction %d sets BaseTime's part", ErrDenimBody, number, i)
		}
	}
	if !on {
		return nil
	}
	if len(txs) < 2 {
		return fmt.Errorf("%w: block %d has no BaseTime deposit (%d transactions)", ErrDenimBody, number, len(txs))
	}
	part, ok := BaseTimePart(txs[1])
	if !ok {
		return fmt.Errorf("%w: block %d: transaction 1 is not the BaseTime deposit", ErrDenimBody, number)
	}
	if want := BaseTimeDeposit(number, part); txs[1].Hash() != want.Hash() {
		return fmt.Errorf("%w: block %d: BaseTime deposit %s differs from the expected %s (source hash, gas, mint, value or calldata)", ErrDenimBody, number, txs[1].Hash(), want.Hash())
	}
	if !ValidBaseTimePart(part) {
		return fmt.Errorf("%w: block %d: millisecond part %d", ErrDenimBody, number, part)
	}
	ms := TimeMs(time, part)
	if parentMs, ok := BlockTimeMs(parentTime, parentTxs); ok {
		if ms != parentMs+DenimBlockTimeMs {
			return fmt.Errorf("%w: block %d at %d ms, want its parent's %d + %d", ErrDenimBody, number, ms, parentMs, DenimBlockTimeMs)
		}
	} else if part != 0 {
		return fmt.Errorf("%w: block %d is the first with a millisecond time, at part %d, want 0", ErrDenimBody, number, part)
	}
	return nil
}

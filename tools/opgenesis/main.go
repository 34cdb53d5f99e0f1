// Command opgenesis regenerates flashrpc's OP Stack genesis data,
// internal/oprollup/genesis.json.gz: the predeploys and preinstalls of an OP Stack chain whose
// forks through Jovian are active at genesis, as Base's chain has them today.
//
// The data comes from one pinned public source, the optimism monorepo's Go module
// (github.com/ethereum-optimism/optimism v1.19.6, this module's go.mod), read from the Go
// module cache:
//
//  1. op-deployer's L2 genesis alloc for op-contracts v1.6.0
//     (op-deployer/pkg/deployer/integration_test/testdata/allocs-l2-v160-1.json.gz): the
//     2,048 predeploy proxies at 0x4200…0000-07ff, their implementations at 0xc0d3c0d3…, the
//     preinstalls (Multicall3, Create2Deployer, Permit2, the deterministic deployment proxy,
//     CreateX, EntryPoint v0.6 and v0.7, the Safe contracts and singleton factory, the EIP-4788
//     beacon roots contract) and the precompile placeholders;
//  2. the network upgrade transactions op-node runs at Ecotone, Fjord, Isthmus and Jovian
//     (op-node/rollup/derive, *NetworkUpgradeTransactions), executed here with op-geth on top
//     of that alloc: they deploy the current L1Block, GasPriceOracle and OperatorFeeVault
//     implementations and the EIP-2935 history contract, point the proxies at them and set the
//     GasPriceOracle's fork flags, exactly as they did on Base when its forks activated.
//
// Then the depositor's and the zero address's nonces, which the upgrade transactions raised,
// are reset (a fresh chain's first L1-attributes deposit has deposit nonce 0), and the
// GovernanceToken predeploy (0x4200…0042) is left out, as on Base, which has no OP token.
// Permit2's code keeps the template chain id of the alloc (777); flashrpc patches the chain id
// and EIP-712 domain separator in at run time (oprollup.Genesis), as the OP genesis generator
// does.
//
// Run it from the repository root:
//
//	cd tools/opgenesis && go run . -out ../../internal/oprollup/genesis.json.gz
//
// The output is deterministic: the same module versions give the same bytes.
package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/big"
	"os"
	"path/filepath"
	"sort"

	"github.com/ethereum-optimism/optimism/op-node/rollup"
	"github.com/ethereum-optimism/optimism/op-node/rollup/derive"
	"github.com/ethereum-optimism/optimism/op-service/eth"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// The pinned sources. The module versions must match go.mod.
const (
	optimismModule = "github.com/ethereum-optimism/optimism@v1.19.6"
	opGethModule   = "github.com/ethereum-optimism/op-geth@v1.101702.3"
	allocsFile     = "op-deployer/pkg/deployer/integration_test/testdata/allocs-l2-v160-1.json.gz"
)

var (
	depositor       = common.HexToAddress("0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001")
	governanceToken = common.HexToAddress("0x4200000000000000000000000000000000000042")
)

// Source records where the data came from; it is written into the output next to the alloc.
type Source struct {
	Module       string   `json:"module"`
	AllocsFile   string   `json:"allocsFile"`
	AllocsSHA256 string   `json:"allocsSha256"`
	Upgrades     []string `json:"upgrades"`
	ExecutedWith string   `json:"executedWith"`
	Generator    string   `json:"generator"`
	Notes        []string `json:"notes"`
}

// output is the file's content.
type output struct {
	Source  Source             `json:"source"`
	Vectors Vectors            `json:"vectors"`
	Alloc   types.GenesisAlloc `json:"alloc"`
}

func main() {
	out := flag.String("out", "../../internal/oprollup/genesis.json.gz", "file to write")
	modCache := flag.String("modcache", "", "Go module cache (default: $GOMODCACHE or ~/go/pkg/mod)")
	flag.Parse()
	if err := run(*out, *modCache); err != nil {
		log.Fatal(err)
	}
}

func run(out, modCache string) error {
	if modCache == "" {
		modCache = os.Getenv("GOMODCACHE")
	}
	if modCache == "" {
		home, _ := os.UserHomeDir()
		modCache = filepath.Join(home, "go", "pkg", "mod")
	}
	raw, err := os.ReadFile(filepath.Join(modCache, optimismModule, allocsFile))
	if err != nil {
		return fmt.Errorf("read the v1.6.0 allocs (run `go mod download` in tools/opgenesis): %w", err)
	}
	alloc, err := decodeAllocs(raw)
	if err != nil {
		return err
	}
	upgraded, applied, err := upgrade(alloc)
	if err != nil {
		return err
	}
	vectors, err := makeVectors()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	o := output{
		Vectors: vectors,
		Source: Source{
			Module:       optimismModule,
			AllocsFile:   allocsFile,
			AllocsSHA256: hex.EncodeToString(sum[:]),
			Upgrades:     applied,
			ExecutedWith: opGethModule,
			Generator:    "tools/opgenesis (cd tools/opgenesis && go run .)",
			Notes: []string{
				"the EIP-4788 deployment of the Ecotone upgrade is skipped: the v1.6.0 alloc already holds the contract",
				"nonces of the depositor 0xDeaD…0001 and of the zero address reset to 0 after the upgrades",
				"GovernanceToken 0x4200…0042 left out (Base has no OP token)",
				"Permit2 keeps the alloc's template chain id 777; the chain id and domain separator are patched in at run time",
			},
		},
		Alloc: upgraded,
	}
	body, err := json.MarshalIndent(o, "", " ")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(body)
	if err := zw.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	log.Printf("wrote %s: %d accounts, %d bytes", out, len(upgraded), buf.Len())
	return nil
}

func decodeAllocs(raw []byte) (types.GenesisAlloc, error) {
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("allocs: %w", err)
	}
	var alloc types.GenesisAlloc
	if err := json.NewDecoder(zr).Decode(&alloc); err != nil {
		return nil, fmt.Errorf("allocs: %w", err)
	}
	return alloc, nil
}

// upgradeConfig is an OP chain config with every fork through Jovian active, for running the
// upgrade transactions under the rules they were written for.
func upgradeConfig() *params.ChainConfig {
	z := uint64(0)
	b0 := big.NewInt(0)
	return &params.ChainConfig{
		ChainID: big.NewInt(777), HomesteadBlock: b0, EIP150Block: b0, EIP155Block: b0, EIP158Block: b0,
		ByzantiumBlock: b0, ConstantinopleBlock: b0, PetersburgBlock: b0, IstanbulBlock: b0,
		MuirGlacierBlock: b0, BerlinBlock: b0, LondonBlock: b0, ArrowGlacierBlock: b0,
		GrayGlacierBlock: b0, MergeNetsplitBlock: b0, TerminalTotalDifficulty: b0,
		ShanghaiTime: &z, CancunTime: &z, PragueTime: &z,
		BedrockBlock: b0, RegolithTime: &z, CanyonTime: &z, EcotoneTime: &z, FjordTime: &z,
		GraniteTime: &z, HoloceneTime: &z, IsthmusTime: &z, JovianTime: &z,
		Optimism: &params.OptimismConfig{EIP1559Elasticity: 6, EIP1559Denominator: 50, EIP1559DenominatorCanyon: &[]uint64{250}[0]},
	}
}

// upgrade applies the Ecotone, Fjord, Isthmus and Jovian upgrade transactions to alloc and
// returns every account that holds something afterwards.
func upgrade(alloc types.GenesisAlloc) (types.GenesisAlloc, []string, error) {
	st, err := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err != nil {
		return nil, nil, err
	}
	touched := map[common.Address]map[common.Hash]bool{}
	touch := func(a common.Address) map[common.Hash]bool {
		if touched[a] == nil {
			touched[a] = map[common.Hash]bool{}
		}
		return touched[a]
	}
	for a, acc := range alloc {
		st.SetCode(a, acc.Code, tracing.CodeChangeUnspecified)
		st.SetNonce(a, acc.Nonce, tracing.NonceChangeUnspecified)
		if acc.Balance != nil {
			st.SetBalance(a, uint256.MustFromBig(acc.Balance), tracing.BalanceChangeUnspecified)
		}
		slots := touch(a)
		for k, v := range acc.Storage {
			st.SetState(a, k, v)
			slots[k] = true
		}
	}
	st.Finalise(true)
	hooks := &tracing.Hooks{
		OnStorageChange: func(a common.Address, k, _, _ common.Hash) { touch(a)[k] = true },
		OnCodeChange:    func(a common.Address, _ common.Hash, _ []byte, _ common.Hash, _ []byte) { touch(a) },
		OnNonceChange:   func(a common.Address, _, _ uint64) { touch(a) },
		OnBalanceChange: func(a common.Address, _, _ *big.Int, _ tracing.BalanceChangeReason) { touch(a) },
	}
	cfg := upgradeConfig()
	blockCtx := vm.BlockContext{
		CanTransfer: core.CanTransfer, Transfer: core.Transfer, GetHash: func(uint64) common.Hash { return common.Hash{} },
		BlockNumber: big.NewInt(0), Difficulty: big.NewInt(0), BaseFee: big.NewInt(0), BlobBaseFee: big.NewInt(1),
		GasLimit: 30_000_000, Random: &common.Hash{},
	}
	evm := vm.NewEVM(blockCtx, state.NewHookedState(st, hooks), cfg, vm.Config{Tracer: hooks})
	signer := types.LatestSignerForChainID(cfg.ChainID)
	forks := []struct {
		name string
		txs  func() ([]hexutil.Bytes, error)
	}{
		{"Ecotone", derive.EcotoneNetworkUpgradeTransactions},
		{"Fjord", derive.FjordNetworkUpgradeTransactions},
		{"Isthmus", derive.IsthmusNetworkUpgradeTransactions},
		{"Jovian", derive.JovianNetworkUpgradeTransactions},
	}
	var applied []string
	for _, fork := range forks {
		txs, err := fork.txs()
		if err != nil {
			return nil, nil, fmt.Errorf("%s upgrade transactions: %w", fork.name, err)
		}
		for i, raw := range txs {
			tx := new(types.Transaction)
			if err := tx.UnmarshalBinary(raw); err != nil {
				return nil, nil, fmt.Errorf("%s upgrade transaction %d: %w", fork.name, i, err)
			}
			from, _ := types.Sender(signer, tx)
			if from == derive.EIP4788From {
				continue // the v1.6.0 alloc already has the EIP-4788 contract
			}
			msg, err := core.TransactionToMessage(tx, signer, big.NewInt(0))
			if err != nil {
				return nil, nil, err
			}
			evm.SetTxContext(core.NewEVMTxContext(msg))
			res, err := core.ApplyMessage(evm, msg, core.NewGasPool(30_000_000))
			if err != nil {
				return nil, nil, fmt.Errorf("%s upgrade transaction %d: %w", fork.name, i, err)
			}
			st.Finalise(true)
			status := "ok"
			if res.Err != nil {
				status = "reverted: " + res.Err.Error() // setEcotone/setFjord: flag already set
			}
			applied = append(applied, fmt.Sprintf("derive.%sNetworkUpgradeTransactions()[%d] source %s: %s", fork.name, i, tx.SourceHash().Hex(), status))
		}
	}
	st.SetNonce(depositor, 0, tracing.NonceChangeUnspecified)
	st.SetNonce(common.Address{}, 0, tracing.NonceChangeUnspecified)
	st.Finalise(true)

	addrs := make([]common.Address, 0, len(touched))
	for a := range touched {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return bytes.Compare(addrs[i][:], addrs[j][:]) < 0 })
	result := types.GenesisAlloc{}
	for _, a := range addrs {
		if a == governanceToken {
			continue
		}
		acc := types.Account{Code: st.GetCode(a), Nonce: st.GetNonce(a), Balance: st.GetBalance(a).ToBig()}
		for k := range touched[a] {
			if v := st.GetState(a, k); v != (common.Hash{}) {
				if acc.Storage == nil {
					acc.Storage = map[common.Hash]common.Hash{}
				}
				acc.Storage[k] = v
			}
		}
		if len(acc.Code) == 0 && acc.Nonce == 0 && acc.Balance.Sign() == 0 && len(acc.Storage) == 0 {
			continue
		}
		result[a] = acc
	}
	return result, applied, nil
}

// Vectors are outputs of op-node's own code (op-node/rollup/derive) that flashrpc's
// re-implementation in internal/oprollup is tested against, so that flashrpc need not import
// the monorepo.
type Vectors struct {
	L1Info     L1InfoVector     `json:"l1Info"`
	UserSource UserSourceVector `json:"userDepositSource"`
}

// L1InfoVector is derive.L1InfoDeposit's transaction for a Jovian L2 block with these
// inputs.
type L1InfoVector struct {
	Number, Time, SequenceNumber     uint64
	BaseFee, BlobBaseFee             *hexutil.Big
	Hash                             common.Hash
	Batcher                          common.Address
	BaseFeeScalar, BlobBaseFeeScalar uint32
	OperatorFeeScalar                uint32
	OperatorFeeConstant              uint64
	DAFootprintGasScalar             uint16
	Raw                              hexutil.Bytes
}

// UserSourceVector is derive.UserDepositSource's hash of (L1BlockHash, LogIndex).
type UserSourceVector struct {
	L1BlockHash common.Hash
	LogIndex    uint64
	SourceHash  common.Hash
}

func makeVectors() (Vectors, error) {
	z := uint64(0)
	rcfg := &rollup.Config{BlockTime: 2, RegolithTime: &z, CanyonTime: &z, DeltaTime: &z, EcotoneTime: &z, FjordTime: &z,
		GraniteTime: &z, HoloceneTime: &z, IsthmusTime: &z, JovianTime: &z}
	excess := uint64(10_000_000)
	l1 := &types.Header{Number: big.NewInt(21_000_000), Time: 1_750_000_000, BaseFee: big.NewInt(3_000_000_000), ExcessBlobGas: &excess, Difficulty: big.NewInt(0)}
	batcher := common.HexToAddress("0x5050F69a9786F081509234F1a7F4684b5E5b76C9")
	v := L1InfoVector{
		Number: l1.Number.Uint64(), Time: l1.Time, SequenceNumber: 3,
		BaseFee: (*hexutil.Big)(l1.BaseFee), BlobBaseFee: (*hexutil.Big)(eip4844.CalcBlobFee(params.MainnetChainConfig, l1)),
		Hash: l1.Hash(), Batcher: batcher, BaseFeeScalar: 2269, BlobBaseFeeScalar: 1_055_762,
		OperatorFeeScalar: 5, OperatorFeeConstant: 1000,
		DAFootprintGasScalar: derive.DAFootprintGasScalarDefault, // what a SystemConfig 0 gives
	}
	sys := eth.SystemConfig{
		BatcherAddr:       batcher,
		Scalar:            eth.EncodeScalar(eth.EcotoneScalars{BlobBaseFeeScalar: v.BlobBaseFeeScalar, BaseFeeScalar: v.BaseFeeScalar}),
		OperatorFeeParams: eth.EncodeOperatorFeeParams(eth.OperatorFeeParams{Scalar: v.OperatorFeeScalar, Constant: v.OperatorFeeConstant}),
	}
	dep, err := derive.L1InfoDeposit(rcfg, params.MainnetChainConfig, sys, v.SequenceNumber, eth.HeaderBlockInfo(l1), l1.Time+10)
	if err != nil {
		return Vectors{}, fmt.Errorf("op-node L1 info deposit: %w", err)
	}
	if v.Raw, err = dep.MarshalBinary(); err != nil { // op-node's own encoding (op-core/types)
		return Vectors{}, err
	}
	u := UserSourceVector{L1BlockHash: l1.Hash(), LogIndex: 7}
	u.SourceHash = (&derive.UserDepositSource{L1BlockHash: u.L1BlockHash, LogIndex: u.LogIndex}).SourceHash()
	return Vectors{L1Info: v, UserSource: u}, nil
}

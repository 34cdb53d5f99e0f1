package oprollup

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// genesisData is tools/opgenesis's output: the predeploys and preinstalls of an OP Stack
// chain with every fork through Jovian, and the record of where they came from.
//
//go:embed genesis.json.gz
var genesisData []byte

// GenesisSource records where the genesis data came from, as tools/opgenesis wrote it.
type GenesisSource struct {
	Module       string   `json:"module"`       // the optimism monorepo's Go module and version
	AllocsFile   string   `json:"allocsFile"`   // the L2 genesis alloc within it
	AllocsSHA256 string   `json:"allocsSha256"` // that file's SHA-256
	Upgrades     []string `json:"upgrades"`     // the network upgrade transactions executed on it
	ExecutedWith string   `json:"executedWith"` // the op-geth that executed them
	Generator    string   `json:"generator"`
	Notes        []string `json:"notes"`
}

var loadGenesisData = sync.OnceValues(func() (*genesisFile, error) {
	zr, err := gzip.NewReader(bytes.NewReader(genesisData))
	if err != nil {
		return nil, fmt.Errorf("oprollup genesis data: %w", err)
	}
	f := new(genesisFile)
	if err := json.NewDecoder(zr).Decode(f); err != nil {
		return nil, fmt.Errorf("oprollup genesis data: %w", err)
	}
	return f, nil
})

type genesisFile struct {
	Source  GenesisSource      `json:"source"`
	Vectors json.RawMessage    `json:"vectors"` // op-node's outputs, for the tests
	Alloc   types.GenesisAlloc `json:"alloc"`
}

// Source returns the record of where the predeploy and preinstall bytecode came from.
func Source() GenesisSource {
	f, err := loadGenesisData()
	if err != nil {
		panic(err) // the embedded data is part of the build; tests decode it
	}
	return f.Source
}

// Predeploys returns the genesis accounts of an OP Stack chain with this chain id: the
// predeploys (L1Block, GasPriceOracle, the fee vaults, L2ToL1MessagePasser, … behind their
// proxies at 0x4200…), the preinstalls at their canonical addresses (Multicall3,
// Create2Deployer, Permit2, the deterministic deployment proxy, CreateX, EntryPoint v0.6 and
// v0.7, the Safe contracts and singleton factory), the EIP-4788 and EIP-2935 system contracts
// and the precompile placeholders. Permit2's chain id and EIP-712 domain separator are
// written for chainID. The map is new; the accounts' code and storage are shared and must
// not be modified.
func Predeploys(chainID uint64) types.GenesisAlloc {
	f, err := loadGenesisData()
	if err != nil {
		panic(err)
	}
	alloc := maps.Clone(f.Alloc)
	permit2 := alloc[Permit2]
	permit2.Code = permit2Code(permit2.Code, chainID)
	alloc[Permit2] = permit2
	return alloc
}

// Permit2 is Uniswap's Permit2 preinstall.
var Permit2 = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")

// Where Permit2's runtime code holds its immutables (the optimism monorepo's
// Preinstalls.getPermit2Code): the chain id it was deployed on and its EIP-712 domain
// separator for that chain.
const (
	permit2ChainIDAt   = 6945
	permit2SeparatorAt = 6983
)

// permit2Code returns template with the chain id and the domain separator for chainID, as
// OP's genesis generator writes them.
func permit2Code(template []byte, chainID uint64) []byte {
	code := common.CopyBytes(template)
	id := common.BigToHash(new(big.Int).SetUint64(chainID))
	copy(code[permit2ChainIDAt:], id[:])
	sep := permit2DomainSeparator(chainID)
	copy(code[permit2SeparatorAt:], sep[:])
	return code
}

// permit2DomainSeparator is keccak256(typeHash ‖ keccak256("Permit2") ‖ chainId ‖ Permit2).
func permit2DomainSeparator(chainID uint64) common.Hash {
	typeHash := crypto.Keccak256([]byte("EIP712Domain(string name,uint256 chainId,address verifyingContract)"))
	name := crypto.Keccak256([]byte("Permit2"))
	id := common.BigToHash(new(big.Int).SetUint64(chainID))
	return crypto.Keccak256Hash(typeHash, name, id[:], common.LeftPadBytes(Permit2[:], 32))
}

// DevGenesis returns the genesis of an OP Stack dev chain: the rules of networks.DevOPStack,
// the predeploys and preinstalls, and each of funded holding balance. As on OP Stack chains,
// the coinbase is the SequencerFeeVault and extraData carries the EIP-1559 parameters and
// minimum base fee (without them op-geth cannot compute block 1's base fee). Its timestamp is
// 0, so the genesis hash depends only on the chain id, gas limit and funded accounts.
func DevGenesis(chainID uint64, funded []common.Address, balance *big.Int) *core.Genesis {
	config := networks.DevOPStack(chainID)
	alloc := Predeploys(chainID)
	for _, addr := range funded {
		alloc[addr] = types.Account{Balance: new(big.Int).Set(balance)}
	}
	return &core.Genesis{
		Config:     config,
		GasLimit:   DefaultGasLimit,
		BaseFee:    new(big.Int).SetUint64(DefaultBaseFee),
		Difficulty: big.NewInt(0),
		ExtraData:  ExtraData(config, 0),
		Coinbase:   SequencerFeeVault,
		Alloc:      alloc,
	}
}

// DevDenimGenesis returns the genesis of an OP Stack dev chain that runs Denim from the time
// denim on: DevGenesis with BaseTime installed (InstallBaseTime; before denim nothing calls
// it, and its timestampMs() reads whole seconds). When denim is 0 the genesis block itself is
// under Denim, and its gas limit and extraData already carry Denim's gas parameters
// (DenimGasParams): the first block has no parent to scale them from.
func DevDenimGenesis(chainID uint64, funded []common.Address, balance *big.Int, denim uint64) (*core.Genesis, error) {
	g := DevGenesis(chainID, funded, balance)
	if err := InstallBaseTime(g.Alloc); err != nil {
		return nil, err
	}
	if denim == 0 {
		gasLimit, extra, err := DenimGasParams(g.Config, 0, g.GasLimit, g.ExtraData)
		if err != nil {
			return nil, err
		}
		g.GasLimit, g.ExtraData = gasLimit, extra
	}
	return g, nil
}

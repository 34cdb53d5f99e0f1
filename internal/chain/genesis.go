package chain

import (
	"maps"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// Dev chain defaults (decisions.md "Dev chain defaults").
const (
	// DefaultChainID is the dev chain's chain id unless --chain-id says otherwise.
	DefaultChainID = 1337
	// DefaultGasLimit is the dev chain's block gas limit: today's mainnet figure.
	DefaultGasLimit = 60_000_000
	// devExtraData marks blocks sealed by flashrpc's dev sequencer.
	devExtraData = "flashrpc"
)

// DevAccountBalance is what each dev account holds at genesis: 10,000 ETH.
var DevAccountBalance = new(big.Int).Mul(big.NewInt(10_000), big.NewInt(params.Ether))

// DevGenesis returns the dev chain's genesis: the rules of networks.DevEthereum, the system
// contracts the active forks call into, and each of funded holding DevAccountBalance. Its
// timestamp is 0, so the genesis hash depends only on the chain id and the funded accounts.
func DevGenesis(chainID uint64, funded []common.Address) *core.Genesis {
	alloc := types.GenesisAlloc{}
	maps.Copy(alloc, SystemContractAllocs())
	for _, addr := range funded {
		alloc[addr] = types.Account{Balance: new(big.Int).Set(DevAccountBalance)}
	}
	return &core.Genesis{
		Config:     networks.DevEthereum(chainID),
		GasLimit:   DefaultGasLimit,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: big.NewInt(0),
		ExtraData:  []byte(devExtraData),
		Alloc:      alloc,
	}
}

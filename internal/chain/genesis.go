package chain

import (
	"maps"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
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

// DevConfig returns the dev chain's fork configuration: every fork through Osaka active from
// genesis, merged from the start (terminal total difficulty 0), with the blob schedule that
// Cancun, Prague and Osaka need.
func DevConfig(chainID uint64) *params.ChainConfig {
	zero := uint64(0)
	return &params.ChainConfig{
		ChainID:                 new(big.Int).SetUint64(chainID),
		HomesteadBlock:          big.NewInt(0),
		EIP150Block:             big.NewInt(0),
		EIP155Block:             big.NewInt(0),
		EIP158Block:             big.NewInt(0),
		ByzantiumBlock:          big.NewInt(0),
		ConstantinopleBlock:     big.NewInt(0),
		PetersburgBlock:         big.NewInt(0),
		IstanbulBlock:           big.NewInt(0),
		MuirGlacierBlock:        big.NewInt(0),
		BerlinBlock:             big.NewInt(0),
		LondonBlock:             big.NewInt(0),
		ArrowGlacierBlock:       big.NewInt(0),
		GrayGlacierBlock:        big.NewInt(0),
		MergeNetsplitBlock:      big.NewInt(0),
		TerminalTotalDifficulty: big.NewInt(0),
		ShanghaiTime:            &zero,
		CancunTime:              &zero,
		PragueTime:              &zero,
		OsakaTime:               &zero,
		BlobScheduleConfig: &params.BlobScheduleConfig{
			Cancun: params.DefaultCancunBlobConfig,
			Prague: params.DefaultPragueBlobConfig,
			// op-geth requires Osaka's own entry; go-ethereum v1.17.10 had none and used
			// Prague's, which has the same values.
			Osaka: params.DefaultOsakaBlobConfig,
		},
	}
}

// DevGenesis returns the dev chain's genesis: DevConfig, the system contracts the active forks
// call into, and each of funded holding DevAccountBalance. Its timestamp is 0, so the genesis
// hash depends only on the chain id and the funded accounts.
func DevGenesis(chainID uint64, funded []common.Address) *core.Genesis {
	alloc := types.GenesisAlloc{}
	maps.Copy(alloc, SystemContractAllocs())
	for _, addr := range funded {
		alloc[addr] = types.Account{Balance: new(big.Int).Set(DevAccountBalance)}
	}
	return &core.Genesis{
		Config:     DevConfig(chainID),
		GasLimit:   DefaultGasLimit,
		BaseFee:    big.NewInt(params.InitialBaseFee),
		Difficulty: big.NewInt(0),
		ExtraData:  []byte(devExtraData),
		Alloc:      alloc,
	}
}

package networks

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// Base is not in op-geth's superchain registry (params.BaseMainnetChainID is only a constant
// there), so its configuration is carried here as data.
//
// Fork times (Delta, consensus-layer only, has no field here): base/base, crates/alloy/hardforks, as recorded in
// shared/reference/opstack.md (Bedrock at block 0, Regolith at genesis). The Ethereum forks map
// as on every OP Stack chain: Shanghai = Canyon, Cancun = Ecotone, Prague = Isthmus. Delta has
// no execution-layer change (Base Sepolia's Delta is consensus-layer only). Azul, Base's own
// fork with Osaka's EVM changes, is not here: flashrpc's OP Stack support does not run it yet,
// so a fork of Base keeps Jovian's EVM.
//
// EIP-1559 parameters before Holocene (from memory, UNVERIFIED offline): mainnet elasticity 6,
// Sepolia 10, denominator 50 and 250 from Canyon on. Since Holocene every block's extraData
// carries the parameters in force, and a fork reads them from the block it continues, so these
// matter only for a fork of a block before Holocene.
var baseNetworks = map[uint64]Network{
	params.BaseMainnetChainID: {Name: "Base", Kind: OPStack, Source: "flashrpc data (base/base hardforks)", Config: baseConfig(params.BaseMainnetChainID, baseSchedule{
		canyon: 1704992401, ecotone: 1710374401, fjord: 1720627201,
		granite: 1726070401, holocene: 1736445601, isthmus: 1746806401, jovian: 1764691201,
	}, 6)},
	baseSepoliaChainID: {Name: "Base Sepolia", Kind: OPStack, Source: "flashrpc data (base/base hardforks)", Config: baseConfig(baseSepoliaChainID, baseSchedule{
		canyon: 1699981200, ecotone: 1708534800, fjord: 1716998400,
		granite: 1723478400, holocene: 1732633200, isthmus: 1744905600, jovian: 1763568001,
	}, 10)},
}

const baseSepoliaChainID = 84532

// baseSchedule holds the OP fork times of a Base network; zero means none.
type baseSchedule struct {
	canyon, ecotone, fjord, granite, holocene, isthmus, jovian uint64
}

func baseConfig(chainID uint64, s baseSchedule, elasticity uint64) *params.ChainConfig {
	at := func(t uint64) *uint64 {
		if t == 0 {
			return nil
		}
		return &t
	}
	zero := uint64(0)
	canyonDenominator := uint64(250)
	return &params.ChainConfig{
		ChainID:                 new(big.Int).SetUint64(chainID),
		HomesteadBlock:          common.Big0,
		EIP150Block:             common.Big0,
		EIP155Block:             common.Big0,
		EIP158Block:             common.Big0,
		ByzantiumBlock:          common.Big0,
		ConstantinopleBlock:     common.Big0,
		PetersburgBlock:         common.Big0,
		IstanbulBlock:           common.Big0,
		MuirGlacierBlock:        common.Big0,
		BerlinBlock:             common.Big0,
		LondonBlock:             common.Big0,
		ArrowGlacierBlock:       common.Big0,
		GrayGlacierBlock:        common.Big0,
		MergeNetsplitBlock:      common.Big0,
		TerminalTotalDifficulty: common.Big0,
		BedrockBlock:            common.Big0,
		RegolithTime:            &zero,
		CanyonTime:              at(s.canyon),
		ShanghaiTime:            at(s.canyon),
		EcotoneTime:             at(s.ecotone),
		CancunTime:              at(s.ecotone),
		FjordTime:               at(s.fjord),
		GraniteTime:             at(s.granite),
		HoloceneTime:            at(s.holocene),
		IsthmusTime:             at(s.isthmus),
		PragueTime:              at(s.isthmus),
		JovianTime:              at(s.jovian),
		Optimism: &params.OptimismConfig{
			EIP1559Elasticity:        elasticity,
			EIP1559Denominator:       50,
			EIP1559DenominatorCanyon: &canyonDenominator,
		},
	}
}

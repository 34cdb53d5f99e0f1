package networks

import (
	"github.com/ethereum/go-ethereum/params"
)

// Base is not in op-geth's superchain registry (params.BaseMainnetChainID is only a constant
// there), so its configuration is carried here as data.
//
// Fork times (Delta, consensus-layer only, has no field here): base/base,
// crates/alloy/hardforks, as recorded in shared/reference/opstack.md (Bedrock at block 0,
// Regolith at genesis). The Ethereum forks map as on every OP Stack chain: Shanghai = Canyon,
// Cancun = Ecotone, Prague = Isthmus. Azul, Base's own fork with Osaka's EVM changes, has no
// time here, so a fork of Base keeps Jovian's EVM.
//
// EIP-1559 parameters before Holocene (from memory, UNVERIFIED offline): mainnet elasticity 6,
// Sepolia 10, denominator 50 and 250 from Canyon on. Since Holocene every block's extraData
// carries the parameters in force, and a fork reads them from the block it continues, so these
// matter only for a fork of a block before Holocene.
var baseNetworks = map[uint64]Network{
	params.BaseMainnetChainID: {Name: "Base", Kind: OPStack, Source: "flashrpc data (base/base hardforks)", Config: opConfig(params.BaseMainnetChainID, opForks{
		canyon: at(1704992401), ecotone: at(1710374401), fjord: at(1720627201),
		granite: at(1726070401), holocene: at(1736445601), isthmus: at(1746806401), jovian: at(1764691201),
	}, baseMainnetElasticity)},
	baseSepoliaChainID: {Name: "Base Sepolia", Kind: OPStack, Source: "flashrpc data (base/base hardforks)", Config: opConfig(baseSepoliaChainID, opForks{
		canyon: at(1699981200), ecotone: at(1708534800), fjord: at(1716998400),
		granite: at(1723478400), holocene: at(1732633200), isthmus: at(1744905600), jovian: at(1763568001),
	}, baseSepoliaElasticity)},
}

const baseSepoliaChainID = 84532

// The EIP-1559 elasticity of Base mainnet and Base Sepolia before Holocene.
const (
	baseMainnetElasticity = 6
	baseSepoliaElasticity = 10
)

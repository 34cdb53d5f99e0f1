package networks

import "github.com/ethereum/go-ethereum/params"

// Base is not in op-geth's superchain registry (params.BaseMainnetChainID is only a constant
// there), so its configuration is carried here as data.
//
// Fork times through Jovian (Delta, consensus-layer only, has no field here): base/base,
// crates/alloy/hardforks, as recorded in shared/reference/opstack.md (Bedrock at block 0,
// Regolith at genesis). The Ethereum forks map as on every OP Stack chain: Shanghai = Canyon,
// Cancun = Ecotone, Prague = Isthmus, and Osaka = Azul.
//
// Base's own forks after Jovian (baseMainnetForks, baseSepoliaForks), each with whether
// flashrpc runs it:
//   - Azul, Osaka's EVM on L2 (runs: OsakaTime, with internal/oprollup's precompiles):
//     mainnet 1779991200 (2026-05-28 18:00 UTC), Sepolia 1776708000 (2026-04-20 18:00 UTC);
//     docs.base.org, base-chain/specs/upgrades/azul (shared/reference/networks-2026.md §3).
//   - Beryl, Base's token and activation-registry precompiles (not run): mainnet 1782410400
//     (2026-06-25 18:00 UTC), Sepolia 1781805600 (2026-06-18 18:00 UTC); base/base
//     v1.1.1's chain config (config.rs, beryl_timestamp), as quoted in public release notes,
//     and status.base.org's activation notices.
//   - Cobalt (not run): mainnet 1790791200 (2026-09-30 18:00 UTC), from third-party
//     material only (UNCONFIRMED: base/base v1.1.1 still had no cobalt_timestamp); Sepolia
//     unknown, so not listed.
//   - Denim, 200 ms blocks with the BaseTime deposit (runs: internal/oprollup's Denim rules,
//     with the time beside the configuration, [Network.DenimTime]): mainnet 1793901600
//     (2026-11-05 18:00 UTC), Sepolia 1792605600 (2026-10-21 18:00 UTC);
//     docs.base.org, base-chain/specs/upgrades/denim (networks-2026.md §3).
//
// EIP-1559 parameters before Holocene (from memory, UNVERIFIED offline): mainnet elasticity 6,
// Sepolia 10, denominator 50 and 250 from Canyon on. Since Holocene every block's extraData
// carries the parameters in force, and a fork reads them from the block it continues, so these
// matter only for a fork of a block before Holocene.
var baseNetworks = map[uint64]Network{
	params.BaseMainnetChainID: {
		ID: "base-mainnet", Name: "Base", ChainID: params.BaseMainnetChainID, Kind: OPStack, Source: baseSource,
		Config: opConfig(params.BaseMainnetChainID, opForks{
			canyon: at(1704992401), ecotone: at(1710374401), fjord: at(1720627201),
			granite: at(1726070401), holocene: at(1736445601), isthmus: at(1746806401), jovian: at(1764691201),
			azul: at(baseMainnetAzul),
		}, baseMainnetElasticity),
		Later:     baseMainnetForks,
		BlockTime: baseBlockTime,
	},
	baseSepoliaChainID: {
		ID: "base-sepolia", Name: "Base Sepolia", ChainID: baseSepoliaChainID, Kind: OPStack, Source: baseSource,
		Config: opConfig(baseSepoliaChainID, opForks{
			canyon: at(1699981200), ecotone: at(1708534800), fjord: at(1716998400),
			granite: at(1723478400), holocene: at(1732633200), isthmus: at(1744905600), jovian: at(1763568001),
			azul: at(baseSepoliaAzul),
		}, baseSepoliaElasticity),
		Later:     baseSepoliaForks,
		BlockTime: baseBlockTime,
	},
}

const baseSource = "flashrpc data (base/base hardforks; Base's upgrade specs)"

// Azul's activation times (OsakaTime on Base's configurations).
const (
	baseMainnetAzul = 1779991200
	baseSepoliaAzul = 1776708000
)

// Base's forks after Jovian, in order; Azul's rules are the configuration's (OsakaTime).
// Beryl and Cobalt are not run: a block of live Base after Beryl is refused, and a local
// chain named after Base (`flashrpc dev --network base-*`) runs without them and says so
// (their LocalEffect; decisions.md "Networks by name", docs/denim.md).
var (
	baseMainnetForks = []Fork{
		{Name: "azul", Time: at(baseMainnetAzul), Runs: true},
		{Name: "beryl", Time: at(1782410400), LocalEffect: berylEffect},
		{Name: "cobalt", Time: at(1790791200), LocalEffect: cobaltEffect},
		{Name: "denim", Time: at(1793901600), Runs: true},
	}
	baseSepoliaForks = []Fork{
		{Name: "azul", Time: at(baseSepoliaAzul), Runs: true},
		{Name: "beryl", Time: at(1781805600), LocalEffect: berylEffect},
		{Name: "denim", Time: at(1792605600), Runs: true},
	}
)

// What a local chain named after Base lacks without Beryl and Cobalt.
const (
	berylEffect  = "no B20 native-token precompiles at their addresses (a call there finds no code)"
	cobaltEffect = "EIP-8130 account-abstraction transactions are refused as an unknown transaction type"
)

// baseBlockTime is Base's block time since Denim (200 ms blocks; decisions.md "Networks by
// name"). Base publishes no pre-confirmations since then.
const baseBlockTime = DenimBlockTime

const baseSepoliaChainID = 84532

// The EIP-1559 elasticity of Base mainnet and Base Sepolia before Holocene.
const (
	baseMainnetElasticity = 6
	baseSepoliaElasticity = 10
)

package chain

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

// SystemContractAllocs returns the genesis accounts of the system contracts in the dev genesis:
// those the active forks call into (EIP-4788 beacon roots, EIP-2935 block hashes, EIP-7002
// withdrawals and EIP-7251 consolidations), plus three that go-ethereum v1.17.10's
// core.SystemContractAllocs also put there and op-geth v1.101702.3 (go-ethereum 1.17.2) does not
// know: the EIP-8282 builder deposit and exit contracts and the EIP-7997 deterministic
// deployment factory. They are kept, with v1.17.10's code, so that the dev genesis, and with it
// the genesis hash of every existing dev datadir, stays the same. Each call returns a new map.
func SystemContractAllocs() types.GenesisAlloc {
	return types.GenesisAlloc{
		params.BeaconRootsAddress:        {Nonce: 1, Code: params.BeaconRootsCode, Balance: common.Big0},
		params.HistoryStorageAddress:     {Nonce: 1, Code: params.HistoryStorageCode, Balance: common.Big0},
		params.WithdrawalQueueAddress:    {Nonce: 1, Code: params.WithdrawalQueueCode, Balance: common.Big0},
		params.ConsolidationQueueAddress: {Nonce: 1, Code: params.ConsolidationQueueCode, Balance: common.Big0},
		builderDepositAddress:            {Nonce: 1, Code: builderDepositCode, Balance: common.Big0},
		builderExitAddress:               {Nonce: 1, Code: builderExitCode, Balance: common.Big0},
		deterministicFactoryAddress:      {Nonce: 1, Code: deterministicFactoryCode, Balance: common.Big0},
	}
}

// The system contracts of go-ethereum v1.17.10 (params/protocol_params.go) that op-geth
// v1.101702.3 lacks.
var (
	// EIP-8282: builder execution requests.
	builderDepositAddress = common.HexToAddress("0x0000BFF46984E3725691FA540A8C7589300D8282")
	builderDepositCode    = common.FromHex("0x3373fffffffffffffffffffffffffffffffffffffffe1461011c575f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146102705760015460088111605257506058565b60089003015b601190600182026001905f5b5f821115607f57810190830284830290049160010191906064565b90939004925050503660b814609f57366102705734610270575f5260205ff35b8034106102705760383567ffffffffffffffff1680633b9aca001161027057633b9aca00029034031061027057600154600101600155600354806006026004015f358155600101602035815560010160403581556001016060358155600101608035815560010160a035905560b85f5f3760b85fa0600101600355005b60035460025480820380604011610131575060405b5f5b8181146101d7578281016006026004018160b8028154815260200181600101548152602001816002015480825260401c67ffffffffffffffff16816010018160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c816001015353602001816003015481526020018160040154815260200190600501549052600101610133565b91018092146101e957906002556101f4565b90505f6002555f6003555b36610242575f54600154817fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461023057600882820111610238575b50505f610264565b0160089003610264565b7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff5b5f555f60015560b8025ff35b5f5ffd")
	builderExitAddress    = common.HexToAddress("0x000064D678505AD48F8CCB093BC65613800E8282")
	builderExitCode       = common.FromHex("0x3373fffffffffffffffffffffffffffffffffffffffe1460e1575f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101c65760015460028111605157506057565b60029003015b601190600182026001905f5b5f821115607e57810190830284830290049160010191906063565b909390049250505036603014609e57366101c657346101c6575f5260205ff35b34106101c657600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260305f60143760445fa0600101600355005b6003546002548082038060101160f5575060105b5f5b81811461012d5782810160030260040181604402815460601b8152601401816001015481526020019060020154905260010160f7565b910180921461013f579060025561014a565b90505f6002555f6003555b36610198575f54600154817fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101865760028282011161018e575b50505f6101ba565b01600290036101ba565b7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff5b5f555f6001556044025ff35b5f5ffd")

	// EIP-7997: deterministic deployment factory (the keyless CREATE2 factory).
	deterministicFactoryAddress = common.HexToAddress("0x4e59b44847b379578588920cA78FbF26c0B4956C")
	deterministicFactoryCode    = common.FromHex("0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3")
)

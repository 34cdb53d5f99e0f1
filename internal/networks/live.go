package networks

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// A local chain may take a live network's chain id (`flashrpc dev --network base-mainnet
// --chain-id 8453`): wallets and contracts that check the chain id then work against it. A fork
// or replica of such a chain must not take it for the live network, whose later forks flashrpc
// may not run: the genesis block hash tells them apart. Such a chain is treated as one whose
// chain id is no network's (decisions.md, "Networks by name"): it runs the rules --network
// names as of now, by default those of the network whose chain id it took.
//
// The hashes are Base's block 0 (base/base's chain specifications). Base is the network whose
// rules a local chain runs with forks the live one has and flashrpc does not (Beryl, Cobalt);
// for the other networks, registry chains and Ethereum's, flashrpc keeps no genesis hash, so a
// chain with their chain id is taken for the network.
var liveGenesis = map[uint64]common.Hash{
	params.BaseMainnetChainID: common.HexToHash("0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd"),
	baseSepoliaChainID:        common.HexToHash("0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4"),
}

// IsLocalChain reports whether a chain with chainID whose block 0 has hash genesis is a local
// chain that took a live network's chain id: flashrpc knows that network's genesis hash, and
// genesis is another. A chain whose network's genesis flashrpc does not know is taken for the
// network.
func IsLocalChain(chainID uint64, genesis common.Hash) bool {
	live, ok := liveGenesis[chainID]
	return ok && live != genesis
}

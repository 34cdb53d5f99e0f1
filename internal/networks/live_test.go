package networks

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestIsLocalChain: a chain with Base's chain id is the live network only with Base's genesis
// hash; a chain id whose live genesis flashrpc does not know is taken for its network.
func TestIsLocalChain(t *testing.T) {
	baseMainnet := common.HexToHash("0xf712aa9241cc24369b143cf6dce85f0902a9731e70d66818a3a5845b296c73dd")
	baseSepolia := common.HexToHash("0x0dcc9e089e30b90ddfc55be9a37dd15bc551aeee999d2e2b51414c54eaf934e4")
	local := common.HexToHash("0x01")
	for _, tc := range []struct {
		chainID uint64
		genesis common.Hash
		want    bool
	}{
		{8453, baseMainnet, false},
		{8453, baseSepolia, true},
		{8453, local, true},
		{84532, baseSepolia, false},
		{84532, local, true},
		{10, local, false},   // OP Mainnet: its genesis is not checked
		{1337, local, false}, // no network's chain id
	} {
		if got := IsLocalChain(tc.chainID, tc.genesis); got != tc.want {
			t.Errorf("IsLocalChain(%d, %s) = %v, want %v", tc.chainID, tc.genesis.TerminalString(), got, tc.want)
		}
	}
}

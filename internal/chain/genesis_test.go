package chain

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestDevGenesisHash pins the dev genesis. The hashes are those go-ethereum v1.17.10 computed
// before flashrpc moved to op-geth: a datadir made then must open now, and a change of the
// genesis state (a system contract more or less, a different balance) fails here.
func TestDevGenesisHash(t *testing.T) {
	t.Parallel()
	funded := []common.Address{
		common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
		common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
	}
	tests := []struct {
		name   string
		funded []common.Address
		want   common.Hash
	}{
		{"none funded", nil, common.HexToHash("0xac5b16bb7ebfdba85087e96e29ea1f3813fb7cfed617aa70903e601bf20952af")},
		{"two funded", funded, common.HexToHash("0x5e6344d3a7b9a0f5eb269354a11dc103586638f899cadabea0567f4be4d15116")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := DevGenesis(DefaultChainID, tt.funded).ToBlock().Hash(); got != tt.want {
				t.Fatalf("dev genesis hash %s, want %s", got, tt.want)
			}
		})
	}
}

package api

import (
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// TestNonceAtLatest: on the pre-confirmed endpoint eth_getTransactionCount(addr, "latest")
// counts the sender's pre-confirmed transactions (but not those waiting in the pool); on the
// standard endpoint and at a block number it is the sealed nonce (decisions.md "Nonces on the
// pre-confirmed endpoint").
func TestNonceAtLatest(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	addr := n.addr(0)
	n.send(t, 0, echoAddr, nil)
	n.send(t, 0, echoAddr, nil)
	n.preconfirm(t)
	n.send(t, 0, echoAddr, nil) // in the pool, not pre-confirmed
	cases := []struct {
		name  string
		api   *API
		block string
		want  uint64
	}{
		{"pre-confirmed latest", n.pre, "latest", 2},
		{"pre-confirmed pending", n.pre, "pending", 3},
		{"pre-confirmed block 0", n.pre, "0x0", 0},
		{"standard latest", n.std, "latest", 0},
		{"standard pending", n.std, "pending", 3},
	}
	for _, c := range cases {
		var got hexutil.Uint64
		n.mustCall(t, c.api, &got, "eth_getTransactionCount", addr, c.block)
		if uint64(got) != c.want {
			t.Errorf("%s: nonce %d, want %d", c.name, got, c.want)
		}
	}
	n.seal(t)
	for _, api := range []*API{n.std, n.pre} {
		var got hexutil.Uint64
		n.mustCall(t, api, &got, "eth_getTransactionCount", addr, "latest")
		if got != 2 {
			t.Errorf("after sealing: latest nonce %d, want 2", got)
		}
	}
}

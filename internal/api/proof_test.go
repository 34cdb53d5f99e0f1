package api

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/api/chaindata"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestProofEndpoints checks which states eth_getProof proves: sealed ones on both endpoints,
// never the block in progress (its state is in no trie), with clear refusals for it, for a
// block that does not exist and for bad keys.
func TestProofEndpoints(t *testing.T) {
	n := newSurfaceNode(t, 1, Config{})
	n.send(t, 0, storeAddr, common.LeftPadBytes([]byte{7}, 32))
	n.preconfirm(t)
	keys := []string{"0x0"}
	var sealed struct {
		StorageProof []struct{ Value string }
	}
	n.mustCall(t, n.pre, &sealed, "eth_getProof", storeAddr, keys, "latest")
	if sealed.StorageProof[0].Value != "0x0" {
		t.Fatalf("latest: slot 0 = %s, want the sealed 0x0", sealed.StorageProof[0].Value)
	}
	n.wantError(t, n.pre, rpc.CodeServer, []string{"block in progress", "latest"}, "eth_getProof", storeAddr, keys, "pending")
	// On the standard endpoint pending is the sealed head, which can be proven.
	n.mustCall(t, n.std, nil, "eth_getProof", storeAddr, keys, "pending")
	n.seal(t)
	n.mustCall(t, n.std, &sealed, "eth_getProof", storeAddr, keys, "latest")
	if sealed.StorageProof[0].Value != "0x7" {
		t.Fatalf("after sealing: slot 0 = %s, want 0x7", sealed.StorageProof[0].Value)
	}
	tooMany := make([]string, chaindata.MaxProofKeys+1)
	for i := range tooMany {
		tooMany[i] = "0x1"
	}
	for _, tc := range []struct {
		name  string
		code  int
		words []string
		args  []any
	}{
		{"unknown block", rpc.CodeServer, []string{"header not found"}, []any{storeAddr, keys, "0x64"}},
		{"unknown hash", rpc.CodeServer, []string{"not found"}, []any{storeAddr, keys, common.Hash{1}}},
		{"too many keys", rpc.CodeInvalidParams, []string{"too many storage keys", "1024", "1025"}, []any{storeAddr, tooMany, "latest"}},
		{"bad key", rpc.CodeInvalidParams, []string{"invalid argument 1 (storageKeys)", "key 1", "invalid hex"}, []any{storeAddr, []string{"0x1", "0xzz"}, "latest"}},
		{"long key", rpc.CodeInvalidParams, []string{"too long"}, []any{storeAddr, []string{"0x" + strings.Repeat("1", 65)}, "latest"}},
		{"keys not a list", rpc.CodeInvalidParams, []string{"invalid argument 1"}, []any{storeAddr, "0x1", "latest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n.wantError(t, n.std, tc.code, tc.words, "eth_getProof", tc.args...)
		})
	}
}

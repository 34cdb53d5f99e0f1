package chain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// TestImportRefusesForkNotRun imports blocks of a chain whose configuration schedules a fork
// flashrpc does not run (lagoonTime 20): a block before it imports, a run that reaches it is
// refused before anything executes, the error naming the fork, its activation and the block.
func TestImportRefusesForkNotRun(t *testing.T) {
	key, _ := crypto.GenerateKey()
	open := func() *chain.Chain {
		g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
		lagoon := uint64(20)
		g.Config.LagoonTime = &lagoon
		c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: g})
		if err != nil {
			t.Fatal(err)
		}
		closeAtEnd(t, c)
		return c
	}
	src := open()
	b1 := buildBlock(t, src, key, 0) // time 12
	b2 := buildBlock(t, src, key, 0) // time 24: lagoon is active
	dst := open()
	err := dst.Import(context.Background(), []*types.Block{b1, b2}, nil)
	var nr *networks.NotRunError
	if !errors.As(err, &nr) || nr.Fork.Name != "lagoon" || nr.Number != 2 || nr.Time != 24 {
		t.Fatalf("import across lagoon: %v, want lagoon's refusal at block 2 (time 24)", err)
	}
	if h := dst.Head().Number.Uint64(); h != 0 {
		t.Fatalf("head %d after the refusal, want 0: nothing imported", h)
	}
	if err := dst.Import(context.Background(), []*types.Block{b1}, nil); err != nil {
		t.Fatalf("import before lagoon: %v", err)
	}
	if dst.Head().Hash() != b1.Hash() {
		t.Fatalf("head %d, want block 1", dst.Head().Number)
	}
}

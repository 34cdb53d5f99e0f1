package chain_test

import (
	"fmt"
	"testing"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// BenchmarkCheatedBlock seals a block with a cheat and a transaction after plain blocks of one
// transaction each, under each scheme; only the cheated block is timed. Under path its state,
// and the plain blocks' before it, are written to disk before it is the head (persist.go):
// plain=1 is a test suite's cheat per test, plain=128 a cheat after the memory layers are
// full.
func BenchmarkCheatedBlock(b *testing.B) {
	for _, scheme := range []string{chain.SchemeHash, chain.SchemePath} {
		for _, plain := range []int{0, 1, 128} {
			b.Run(fmt.Sprintf("scheme=%s/plain=%d", scheme, plain), func(b *testing.B) {
				c, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: schemeGenesis(), StateScheme: scheme})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					b.StopTimer()
					sealBlocks(b, c, plain)
					b.StartTimer()
					if block := sealCheat(b, c); block.NumberU64() != c.Head().Number.Uint64() {
						b.Fatalf("sealed block %d, head %d", block.NumberU64(), c.Head().Number)
					}
				}
			})
		}
	}
}

// BenchmarkCheatAndRevert is a Hardhat-style test under each scheme: from a snapshot of the
// head, a block with a cheat and a transaction, blocks of one transaction (tx), and a revert
// to the snapshot (Rewind, evm_revert's). Under path the cheated block's state is written to
// disk and the revert goes back below it through the state history.
func BenchmarkCheatAndRevert(b *testing.B) {
	for _, scheme := range []string{chain.SchemeHash, chain.SchemePath} {
		for _, tx := range []int{0, 3} {
			b.Run(fmt.Sprintf("scheme=%s/tx=%d", scheme, tx), func(b *testing.B) {
				c, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: schemeGenesis(), StateScheme: scheme})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				snapshot := sealBlocks(b, c, 1)[0]
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					sealCheat(b, c)
					sealBlocks(b, c, tx)
					if err := c.Rewind(snapshot.NumberU64()); err != nil {
						b.Fatal(err)
					}
					if c.Head().Hash() != snapshot.Hash() {
						b.Fatalf("head %d after the revert, want %d", c.Head().Number, snapshot.NumberU64())
					}
				}
			})
		}
	}
}

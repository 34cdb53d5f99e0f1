package chain_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// TestWriteExecuted seals blocks through WriteExecuted (preconf's seal, buildBlock) and checks
// that each is what go-ethereum's own insert would have made of it: op-geth's state processor
// and validator accept it on its parent's state (same state root, receipts root, gas, bloom),
// the stored receipts equal the processor's, the transactions are indexed, the state is
// readable and survives a restart.
func TestWriteExecuted(t *testing.T) {
	t.Parallel()
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	dir := t.TempDir()
	g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
	g.Alloc[echoAddr] = echoAccount
	c, err := chain.Open(chain.Config{DataDir: dir, Genesis: g})
	if err != nil {
		t.Fatal(err)
	}
	var heads []uint64
	c.OnHead(func(ev chain.HeadEvent) { heads = append(heads, ev.Block.NumberU64()) })
	var blocks []*types.Block
	for i := range 3 {
		blocks = append(blocks, buildBlock(t, c, key, uint64(2*i), "a", "b"))
	}
	bc := c.Context().(*core.BlockChain)
	for _, b := range blocks {
		if c.CanonicalHash(b.NumberU64()) != b.Hash() {
			t.Fatalf("block %d is not canonical", b.NumberU64())
		}
		parent, err := c.StateAt(c.HeaderByHash(b.ParentHash()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := core.NewStateProcessor(bc).Process(context.Background(), b, parent, oprollup.VMConfig(c.Config(), vm.Config{}))
		if err != nil {
			t.Fatalf("block %d: op-geth's processor: %v", b.NumberU64(), err)
		}
		if err := bc.Validator().ValidateState(b, parent, res, false); err != nil {
			t.Fatalf("block %d: %v", b.NumberU64(), err)
		}
		stored := c.Receipts(b.Hash())
		if len(stored) != len(res.Receipts) {
			t.Fatalf("block %d: %d receipts stored, %d executed", b.NumberU64(), len(stored), len(res.Receipts))
		}
		for i, r := range stored {
			if r.TxHash != b.Transactions()[i].Hash() || r.GasUsed != res.Receipts[i].GasUsed || r.Status != res.Receipts[i].Status || len(r.Logs) != len(res.Receipts[i].Logs) {
				t.Fatalf("block %d receipt %d: stored %+v, executed %+v", b.NumberU64(), i, r, res.Receipts[i])
			}
		}
		for _, tx := range b.Transactions() {
			if _, loc, ok := c.Transaction(tx.Hash()); !ok || loc.BlockHash != b.Hash() {
				t.Fatalf("transaction %s not indexed in block %d", tx.Hash(), b.NumberU64())
			}
		}
	}
	if len(heads) != 3 || heads[2] != 3 {
		t.Fatalf("OnHead told %v", heads)
	}
	head := c.Head()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err = chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Head().Hash() != head.Hash() {
		t.Fatalf("after a restart the head is %d, want %d", c.Head().Number, head.Number)
	}
	st, err := c.StateAt(head)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(crypto.PubkeyToAddress(key.PublicKey)); n != 6 {
		t.Fatalf("sender nonce %d after a restart, want 6", n)
	}
}

// TestWriteExecutedRefuses: a block whose header's state root is not the state's, or that
// does not build on the head, is refused and the chain stays as it was.
func TestWriteExecutedRefuses(t *testing.T) {
	t.Parallel()
	key, _ := crypto.HexToECDSA("59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
	c := reorgChain(t, []*ecdsa.PrivateKey{key})
	head := c.Head()
	st, err := c.StateAt(head)
	if err != nil {
		t.Fatal(err)
	}
	st.AddBalance(common.Address{0x77}, uint256.NewInt(1), 0)
	header := &types.Header{ParentHash: head.Hash(), Number: big.NewInt(1), Time: head.Time + 1, GasLimit: head.GasLimit, BaseFee: head.BaseFee, Difficulty: new(big.Int), Root: common.Hash{0xba, 0xd}}
	bad := types.NewBlockWithHeader(header)
	if err := c.WriteExecuted(bad, nil, st); err == nil {
		t.Fatal("a block with a wrong state root was written")
	}
	other := types.NewBlockWithHeader(&types.Header{ParentHash: common.Hash{1}, Number: big.NewInt(1), Difficulty: new(big.Int)})
	if err := c.WriteExecuted(other, nil, st); !errors.Is(err, chain.ErrNotOnHead) {
		t.Fatalf("a block off the head: %v", err)
	}
	if c.Head().Hash() != head.Hash() || c.BlockByNumber(1) != nil {
		t.Fatal("the chain moved")
	}
}

// TestCommitExecutedContext commits a block without writing it and checks that, until Write,
// its state is readable at its root and the chain's context knows its header (the next
// block's BLOCKHASH walks through it) while the head and the Heads are still its parent.
func TestCommitExecutedContext(t *testing.T) {
	t.Parallel()
	c, genesis, block, e := commitNonceBlock(t)
	if c.Head().Hash() != genesis.Hash() || c.Heads().Latest != genesis {
		t.Fatal("CommitExecuted moved the head")
	}
	if c.Context().GetHeader(block.Hash(), 1) == nil {
		t.Fatal("the chain's context does not know the committed block's header")
	}
	committed, err := c.StateAt(block.Header())
	if err != nil || committed.GetNonce(nonceBlockAddr) != 7 {
		t.Fatalf("the committed state is not readable: %v", err)
	}
	if err := e.Write(); err != nil {
		t.Fatal(err)
	}
	if c.Head().Hash() != block.Hash() || c.Context().GetHeader(block.Hash(), 1) == nil {
		t.Fatal("after Write the block is not the head")
	}
	if _, ok := c.Context().(*core.BlockChain); !ok {
		t.Fatal("with nothing committed the context is not the BlockChain itself")
	}
}

// TestExecutedStore: Store puts a committed block, its receipts and (hash scheme) its state on
// disk and changes nothing else: the head, the Heads and the chain's context are as after
// CommitExecuted. Write then makes it the head.
func TestExecutedStore(t *testing.T) {
	t.Parallel()
	c, genesis, block, e := commitNonceBlock(t)
	db := c.Database()
	if len(rawdb.ReadLegacyTrieNode(db, block.Root())) != 0 || rawdb.HasBody(db, block.Hash(), 1) {
		t.Fatal("the block or its state is on disk before Store")
	}
	for range 2 { // once, and a second call that does nothing
		if err := e.Store(); err != nil {
			t.Fatal(err)
		}
	}
	if len(rawdb.ReadLegacyTrieNode(db, block.Root())) == 0 {
		t.Fatal("the state's root node is not on disk after Store")
	}
	if got := rawdb.ReadBlock(db, block.Hash(), 1); got == nil || got.Hash() != block.Hash() {
		t.Fatal("the block is not stored")
	}
	if c.Head().Hash() != genesis.Hash() || c.Heads().Latest != genesis || rawdb.ReadCanonicalHash(db, 1) != (common.Hash{}) {
		t.Fatal("Store moved the head")
	}
	if c.Context().GetHeader(block.Hash(), 1) == nil {
		t.Fatal("after Store the chain's context no longer knows the committed block")
	}
	if err := e.Write(); err != nil {
		t.Fatal(err)
	}
	if c.Head().Hash() != block.Hash() || c.Heads().Latest.Hash() != block.Hash() {
		t.Fatal("after Write the block is not the head")
	}
}

// nonceBlockAddr is the account commitNonceBlock's block changes: dev account 0's
// (schemeKey).
var nonceBlockAddr = crypto.PubkeyToAddress(schemeKey.PublicKey)

// commitNonceBlock opens a dev chain (hash scheme) and commits, without writing, block 1,
// which sets nonceBlockAddr's nonce to 7, a change only its state has.
func commitNonceBlock(t *testing.T) (c *chain.Chain, genesis *types.Header, block *types.Block, e *chain.Executed) {
	t.Helper()
	c, err := chain.Open(chain.Config{DataDir: t.TempDir(), Genesis: chain.DevGenesis(chain.DefaultChainID, []common.Address{nonceBlockAddr})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	genesis = c.Head()
	st, err := c.StateAt(genesis)
	if err != nil {
		t.Fatal(err)
	}
	header := &types.Header{ParentHash: genesis.Hash(), Number: big.NewInt(1), Time: genesis.Time + 1, GasLimit: genesis.GasLimit,
		Difficulty: new(big.Int), BaseFee: genesis.BaseFee}
	st.SetNonce(nonceBlockAddr, 7, 0)
	block, err = c.Engine().FinalizeAndAssemble(context.Background(), c.Context(), header, st, &types.Body{Withdrawals: types.Withdrawals{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, err = c.CommitExecuted(block, nil, st); err != nil {
		t.Fatal(err)
	}
	return c, genesis, block, e
}

// BenchmarkExecutedWrite: the chain write of a sealed block (Executed.Write, on the writer
// goroutine at the block boundary: storing the block and its receipts, the archive's trie
// flush, setting the head, the fsync and the announcement) for a block of txs one-log calls.
// Chain a builds each block with preconf; chain b, a twin, executes it with op-geth's
// processor and commits it, untimed, then writes it, timed.
func BenchmarkExecutedWrite(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("txs=%d", n), func(b *testing.B) {
			key, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
			if err != nil {
				b.Fatal(err)
			}
			g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
			g.GasLimit = 1_000_000_000
			g.Alloc[echoAddr] = echoAccount
			a, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: g})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			c, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: g})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			bc := c.Context().(*core.BlockChain)
			data := make([]string, n)
			for i := range data {
				data[i] = string(echoTopic[:])
			}
			b.ReportAllocs()
			nonce := uint64(0)
			for b.Loop() {
				b.StopTimer()
				block := buildBlock(b, a, key, nonce, data...)
				nonce += uint64(n)
				parent, err := c.StateAt(c.Head())
				if err != nil {
					b.Fatal(err)
				}
				res, err := core.NewStateProcessor(bc).Process(context.Background(), block, parent, oprollup.VMConfig(c.Config(), vm.Config{}))
				if err != nil {
					b.Fatal(err)
				}
				e, err := c.CommitExecuted(block, res.Receipts, parent)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := e.Write(); err != nil {
					b.Fatal(err)
				}
				if c.Head().Hash() != block.Hash() {
					b.Fatalf("block %d written, head %d", block.NumberU64(), c.Head().Number)
				}
			}
		})
	}
}

package chain_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// TestWriteSetsHeadWithoutReadBack: a sealed block is made the head of go-ethereum's
// BlockChain without SetCanonical's read-back of its receipts and without being executed
// again: no ChainEvent is sent (both would send one), the ChainHeadEvent is, and every head
// marker names the block, under both state schemes, also after a restart (which reads them
// from the database). A block whose header go-ethereum's engine refuses (made by hand here,
// as a dev chain's cheat may make one) is still made the head, through SetCanonical.
func TestWriteSetsHeadWithoutReadBack(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{chain.SchemeHash, chain.SchemePath} {
		t.Run("scheme="+scheme, func(t *testing.T) {
			t.Parallel()
			key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
			from := crypto.PubkeyToAddress(key.PublicKey)
			g := chain.DevGenesis(chain.DefaultChainID, []common.Address{from})
			topic := common.Hash{0xec}
			g.Alloc[echoAddr] = types.Account{Code: append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, topic[:]...), 0x36, 0x5f, 0xa1, 0x00)}
			dir := t.TempDir()
			c, err := chain.Open(chain.Config{DataDir: dir, Genesis: g, StateScheme: scheme})
			if err != nil {
				t.Fatal(err)
			}
			bc := c.Context().(*core.BlockChain)
			events := make(chan core.ChainEvent, 8)
			heads := make(chan core.ChainHeadEvent, 8)
			defer bc.SubscribeChainEvent(events).Unsubscribe()
			defer bc.SubscribeChainHeadEvent(heads).Unsubscribe()

			var block *types.Block
			for i := range 2 {
				block = buildBlock(t, c, key, uint64(2*i), "a", "b")
				if n := len(events); n != 0 {
					t.Fatalf("block %d: %d ChainEvents: its receipts were read back or it was executed again", block.NumberU64(), n)
				}
				select { // the feed's Send returns once the event is in the channel
				case ev := <-heads:
					if len(heads) != 0 || ev.Header.Hash() != block.Hash() {
						t.Fatalf("block %d: ChainHeadEvent of %d, %d more", block.NumberU64(), ev.Header.Number, len(heads))
					}
				default:
					t.Fatalf("block %d: no ChainHeadEvent", block.NumberU64())
				}
				checkHead(t, c, bc, block)
			}
			c, bc = reopen(t, c, dir)
			checkHead(t, c, bc, block)
			events = make(chan core.ChainEvent, 8)
			defer bc.SubscribeChainEvent(events).Unsubscribe()

			// A header the engine refuses: no parent beacon root, no withdrawals hash.
			head := c.Head()
			st, err := c.StateAt(head)
			if err != nil {
				t.Fatal(err)
			}
			header := &types.Header{ParentHash: head.Hash(), Number: new(big.Int).Add(head.Number, common.Big1), Time: head.Time + 1,
				GasLimit: head.GasLimit, Difficulty: new(big.Int), BaseFee: head.BaseFee}
			st.SetNonce(from, 9, 0)
			handMade, err := c.Engine().FinalizeAndAssemble(context.Background(), c.Context(), header, st, &types.Body{Withdrawals: types.Withdrawals{}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Engine().VerifyHeader(bc, handMade.Header()); err == nil {
				t.Fatal("the engine accepts the hand-made header: it tests nothing")
			}
			if err := c.WriteCheated(handMade, nil, st); err != nil {
				t.Fatal(err)
			}
			if n := len(events); n != 1 {
				t.Fatalf("the hand-made block: %d ChainEvents, want SetCanonical's one", n)
			}
			checkHead(t, c, bc, handMade)

			c, bc = reopen(t, c, dir)
			defer c.Close()
			checkHead(t, c, bc, handMade)
			if c.BlockByNumber(block.NumberU64()).Hash() != block.Hash() {
				t.Fatalf("after a restart block %d is not canonical", block.NumberU64())
			}
		})
	}
}

// checkHead fails t unless block is c's head, every head marker of bc names it and its
// transactions are indexed.
func checkHead(t *testing.T, c *chain.Chain, bc *core.BlockChain, block *types.Block) {
	t.Helper()
	hash := block.Hash()
	if c.Head().Hash() != hash || c.Heads().Latest.Hash() != hash || c.CanonicalHash(block.NumberU64()) != hash {
		t.Fatalf("block %d is not the chain's head (%d)", block.NumberU64(), c.Head().Number)
	}
	if bc.CurrentBlock().Hash() != hash || bc.CurrentHeader().Hash() != hash || bc.CurrentSnapBlock().Hash() != hash {
		t.Fatalf("block %d: BlockChain's head %d, header %d, snap block %d", block.NumberU64(), bc.CurrentBlock().Number, bc.CurrentHeader().Number, bc.CurrentSnapBlock().Number)
	}
	for _, tx := range block.Transactions() {
		if _, loc, ok := c.Transaction(tx.Hash()); !ok || loc.BlockHash != hash {
			t.Fatalf("transaction %s not indexed in block %d", tx.Hash(), block.NumberU64())
		}
	}
}

// reopen closes c and opens the chain in dir again.
func reopen(t *testing.T, c *chain.Chain, dir string) (*chain.Chain, *core.BlockChain) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(chain.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return c, c.Context().(*core.BlockChain)
}

package fork

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/trie"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// A remote-state replica (flashrpc follow --state remote, Config.Replica) is a fork that
// writes no state and builds no block: it serves a chain too large to replay. Created at the
// upstream's block N without a first forked block, it inserts the upstream's later blocks as
// they come (replicaInsert) without executing them, and reads the state after each block from
// the upstream at that block: every replica block has the empty local trie, so its reader is
// keyed by block hash and falls back to a remote.State of its own block (StateOf). What is
// checked of an inserted block: its header (the engine), its body against the header's
// transactions root, and its receipts, fetched from the upstream, against the header's
// receipts root, bloom and gas used. Its state root is the upstream's: the replica cannot
// compute it without the upstream's trie. The upstream's root node of each block's state is
// stored under its hash, so that go-ethereum's BlockChain counts the state as present (it
// makes the block canonical and rewinds to it); nothing below the root node is ever read.

// replicaStates is how many recent blocks' upstream states a replica keeps (the head, its
// parent under a block in progress, a few more for reads at recent numbers).
const replicaStates = 8

// replicaTimeout bounds the upstream requests of one replica insert.
const replicaTimeout = 10 * time.Second

// Replica reports whether the fork is a remote-state replica's (Config.Replica).
func (f *Upstream) Replica() bool { return f.info.Replica }

// StateOf returns the upstream's state after the block with header h: a replica's own
// remote.State of that block (read by its hash, EIP-1898; kept for the replicaStates most recent blocks),
// on any other fork the upstream's state at the fork block.
func (f *Upstream) StateOf(h *types.Header) *remote.State {
	if !f.info.Replica || h.Number.Uint64() == f.info.Number {
		return f.up
	}
	s, _ := f.states.Get(h.Hash(), func() (*remote.State, error) {
		return remote.NewState(remote.StateConfig{Client: f.client, Block: h.Number.Uint64(), BlockHash: h.Hash()}), nil
	})
	return s
}

// replicaInsert checks block, the upstream's, against its parent (the head) and its receipts,
// writes it with them and makes it the head. It does not execute it.
func (f *Upstream) replicaInsert(block *types.Block) error {
	head := f.bc.CurrentBlock()
	if block.ParentHash() != head.Hash() {
		return fmt.Errorf("replica: block %d builds on %s, not on the head %d (%s)", block.NumberU64(), block.ParentHash().TerminalString(), head.Number.Uint64(), head.Hash().TerminalString())
	}
	if err := f.engine.VerifyHeader(f.Context(f.bc), block.Header()); err != nil {
		return fmt.Errorf("header: %w", err)
	}
	if err := f.bc.Validator().ValidateBody(block); err != nil {
		return fmt.Errorf("body: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), replicaTimeout)
	defer cancel()
	receipts, err := f.client.BlockReceipts(ctx, block.Hash())
	if err != nil {
		return err
	}
	if err := checkReceipts(block, receipts); err != nil {
		return err
	}
	node, err := f.client.RootNode(ctx, block.NumberU64(), block.Root())
	if err != nil {
		return fmt.Errorf("state root node: %w", err)
	}
	batch := f.db.NewBatch()
	rawdb.WriteLegacyTrieNode(batch, block.Root(), node)
	rawdb.WriteBlock(batch, block)
	rawdb.WriteReceipts(batch, block.Hash(), block.NumberU64(), receipts)
	if err := batch.Write(); err != nil {
		return fmt.Errorf("write block %d: %w", block.NumberU64(), err)
	}
	if _, err := f.bc.SetCanonical(block); err != nil {
		return fmt.Errorf("set canonical: %w", err)
	}
	return nil
}

// checkReceipts refuses receipts that are not block's: their count, root, bloom and
// cumulative gas must be the header's.
func checkReceipts(block *types.Block, receipts types.Receipts) error {
	h := block.Header()
	if len(receipts) != len(block.Transactions()) {
		return fmt.Errorf("receipts: %d for %d transactions", len(receipts), len(block.Transactions()))
	}
	if got := types.DeriveSha(receipts, trie.NewStackTrie(nil)); got != h.ReceiptHash {
		return fmt.Errorf("receipts: root %s, the header says %s", got, h.ReceiptHash)
	}
	if got := types.MergeBloom(receipts); got != h.Bloom {
		return fmt.Errorf("receipts: bloom differs from the header's")
	}
	var gas uint64
	if n := len(receipts); n > 0 {
		gas = receipts[n-1].CumulativeGasUsed
	}
	if gas != h.GasUsed {
		return fmt.Errorf("receipts: gas used %d, the header says %d", gas, h.GasUsed)
	}
	return nil
}

// replicaKind returns the rules kind of an unknown chain whose block N does not tell (block 0,
// which has no L1-attributes deposit): OP Stack when the upstream has the L1Block predeploy's
// code at N, else Ethereum's. A replica may start at a chain's genesis; a dev fork never
// starts there on an OP Stack chain (its first block continues N's L1 attributes).
func replicaKind(ctx context.Context, c *remote.Client, upID, number uint64) (networks.Kind, error) {
	if _, known := networks.Lookup(upID); known {
		return "", nil
	}
	raw, err := c.Call(ctx, "eth_getCode", opL1Block, hexutil.Uint64(number))
	if err != nil {
		return "", fmt.Errorf("fork: code of the L1Block predeploy at block %d: %w", number, err)
	}
	var code hexutil.Bytes
	if err := json.Unmarshal(raw, &code); err != nil {
		return "", fmt.Errorf("fork: code of the L1Block predeploy at block %d: %w", number, err)
	}
	if len(code) > 0 {
		return networks.OPStack, nil
	}
	return "", nil
}

// opL1Block is the OP Stack's L1Block predeploy, present from every OP Stack chain's genesis.
var opL1Block = common.HexToAddress("0x4200000000000000000000000000000000000015")

// checkReplicaBlock refuses a replica's fork block whose shape contradicts the rules: a block
// that opens with a deposit on Ethereum rules.
func checkReplicaBlock(config *params.ChainConfig, network networks.Network, b *types.Block) error {
	if !config.IsOptimism() && isOPBlock(b) {
		return fmt.Errorf("block %d opens with a deposit transaction, but %s runs Ethereum rules", b.NumberU64(), network.Name)
	}
	return nil
}

// Package chain owns the sealed chain: the go-ethereum core.BlockChain over a Pebble database, its
// genesis, and every read of sealed blocks, receipts, transactions and state.
//
// It is the only package that touches go-ethereum's storage APIs (core.BlockChain, core/rawdb,
// ethdb, triedb), so a go-ethereum upgrade changes this package and few others. It opens the
// Pebble database itself (kvstore): go-ethereum's options and on-disk format, but compactions
// on all the CPUs but one, so that a block's flush does not take both cores of a small machine
// at the block boundary; go-ethereum's opener still reads its datadirs. The
// go-ethereum module is op-geth v1.101702.3 (go-ethereum 1.17.2 with the OP Stack rules), through
// a replace in go.mod; the dev genesis keeps the system contracts go-ethereum v1.17.10 gave it
// (system_contracts.go), so its hash did not change with the move.
//
// Durability and state schemes (scheme.go, Config.StateScheme). By default the trie database
// runs in hashdb archive mode, which commits every block's state to disk as the block is
// inserted. go-ethereum's default modes keep recent state in memory and rewind the chain to the
// last flushed state after a crash, deleting the blocks above it; archive mode makes a sealed
// block survive kill -9 (reference/go-ethereum.md §4.4), and keeps every state, so the database
// grows with every block. The path scheme (go-ethereum's pathdb) keeps one state on disk, the
// last 128 blocks' changes in memory and a bounded state history (Config.StateHistory) through
// which older states are read (history.go) and the chain rewound; after kill -9 its disk state
// is older than the head, so Open reads the blocks above it before go-ethereum rewinds and
// deletes them, and executes them again (recover.go); a dev chain's cheated block, which
// cannot be executed again, has its state written to disk before it is the head (WriteCheated,
// persist.go). A datadir keeps the scheme it was created with. Pebble writes without fsync
// and buffers its write-ahead log briefly in memory, so Insert
// ends with one synced log write: a block is durable when Insert returns (WriteExecuted too).
//
// Two ways in for a new head: Insert has go-ethereum execute and validate the block (imports,
// side chains, replicas); WriteExecuted (write.go) writes a block its caller already executed,
// with the post-state and receipts it built, without executing it again — the sequencer's seal
// (preconf), which checks its blocks against op-geth's processor in its tests instead. It comes
// in two steps too: CommitExecuted commits the state (readable at the block's root from then
// on, for the next block to build on) and Executed.Write, which may run on another goroutine,
// does the rest; the next write of the chain waits for it.
//
// A chain may continue an upstream chain from its block N (fork mode): Config.OpenUpstream
// opens an Upstream (upstream.go), implemented by internal/fork, which holds the state and
// history at or below N and through which every state read, insert, write and rewind of such a
// chain goes. This package does no network I/O; internal/fork does, and opens such a chain
// (fork.Open).
//
// Merkle proofs (Proof, eth_getProof) are read from the sealed blocks' state tries themselves,
// never rebuilt from other state: a block whose tries are missing is ErrStateUnavailable.
//
// Derived data flashrpc owns lives in the same database under its own key prefix: the log index
// (LogIndexStore), whose layout belongs to internal/logs. BulkWriter appends pre-built blocks
// without executing them, for the chain generator (internal/chaingen).
//
// The dev chain's cheats (internal/devapi) need three more things (write.go, rewind.go,
// impersonated.go, dump.go): WriteCheated makes a block the sequencer executed with state
// changes outside its transactions the head without executing it again, Rewind takes the head
// back (evm_revert, anvil_reset), and with Config.Impersonation reads give impersonated
// transactions their sender; Config.Preimages keeps trie-key preimages so that DumpState lists
// accounts by address.
//
// Concurrency: a *Chain is safe for concurrent use. Insert and WriteExecuted (WriteCheated) are
// called by one writer at a time (the sequencer, or an import); reads may run concurrently with
// it; WriteCheated's merge of the path scheme's memory layers makes them wait for it
// (persist.go). The head, safe and finalized blocks are published together as an immutable
// Heads value (heads.go), after the blocks it names are durable: a reader that needs them
// consistent loads Heads once. OnHeads listeners
// (preconf, which pairs the Heads with the block in progress) run first, then OnReorg
// listeners, told of canonical blocks that a rewind or a side chain dropped (reorg.go), then
// OnHead listeners; all run synchronously on the writing goroutine and must not block.
// Close expects the writers and the state readers stopped; it waits (up to 10 s) for the
// database iterators still open (the log index's searches, eth_getLogs in flight) rather than
// close Pebble under them, stops go-ethereum's snapshot generator even when the head has no
// snapshot layer, and returns Pebble's report of anything left open (closeguard.go).
//
// The rules op-geth lacks (rules.go): blocks execute with internal/oprollup's precompile
// overrides, as every other EVM of flashrpc does, and an OP Stack chain validates block bodies
// without Osaka's EIP-7934 size limit; a chain created with a Denim time (Config.Denim, Base's
// 200 ms blocks; stored with the chain and read back on open, Denim(), denimtime.go) accepts a
// header with its parent's timestamp from then on
// (oprollup.HeaderRules), and gives a Denim block's time in milliseconds (TimeMs, timems.go)
// for the RPC's timestampMs and blockTimestampMs. Import refuses a block at which a fork flashrpc does not
// run is active (networks.RuleCheck), before executing anything.
//
// Imports: go-ethereum, internal/chain/kvstore (the Pebble database), internal/networks (the
// dev chain's configuration, the forks flashrpc runs), internal/recent,
// internal/impersonation, and internal/oprollup (the rules op-geth lacks). Neither internal/fork nor internal/remote: fork imports chain.
package chain

// Package preconf owns the block in progress: the pre-confirmed part of the next block, built one
// pre-confirmation (flashblock) at a time on top of the sealed head, and the View that pairs it
// with the sealed chain for readers.
//
// # Writers
//
// Three producers write the block in progress through one API: the dev sequencer
// (internal/sequencer), which builds blocks from its pool; a replica (internal/follow), which
// re-executes the flashblocks of a remote feed and publishes only those that match what the
// remote sequencer published; and a replica on the upstream's state (flashrpc follow --state
// remote), which does the same on state it cannot compute a root for. A writer opens a block
// with its fixed attributes (Open: index 0), then adds transactions in batches: Begin, Add for
// each transaction, Commit. Open and Commit take a PublishOptions, which holds all the
// producers differ in: a Check the partial block must pass before anyone sees it (verify.go),
// the Roots it takes as given instead of computing them (given.go), and a PublishAfter to wait
// on between the assembly and the publication (the dev sequencer builds ahead and publishes on
// fixed deadlines). The zero PublishOptions is the dev sequencer's: computed, unchecked,
// published at once. A replica sets Check: a refused partial block, or one that fails to
// assemble, discards the whole block in progress, so `pending` falls back to the sealed head
// until the next Open. A replica on the upstream's state also sets Roots: the partial block
// takes the published state (and withdrawals) root and computes the rest, which the check's
// comparison of block hashes still verifies. A chain without pre-confirmations (Base since
// Denim) opens its blocks with Hidden: its writer builds them here as any other, but nothing
// of a block reaches a reader or a listener before it is sealed (hidden.go).
//
// Every Commit publishes an immutable Snapshot: the partial block as if it were sealed now
// (cumulative gas used, state root, receipts root, bloom, requests hash, hence a block hash that
// changes with every pre-confirmation), its receipts and logs, and the state after the last
// pre-confirmed transaction. Seal assembles the final block from everything committed; its hash
// equals the last snapshot's. The chain writes it with the state and receipts it was built with
// (chain.WriteExecuted): a sealed block is executed once, not again at the seal. The state roots
// are incremental: the block's own state takes each pre-confirmation's changes into its tries, so
// an assembly writes and hashes only what is new. An OP Stack block (Isthmus on) is assembled on
// that state itself, which its post-execution steps leave as it is; other chains' blocks on a
// copy that those steps may change. The dev sequencer seals with SealAsync (below); a replica
// seals with Seal the block it pre-confirmed to its end, replaces it with the upstream's block
// when they differ (ReplaceWith) and drops it when its feed breaks (Discard).
//
// # The View
//
// Readers do not combine the chain's head with the snapshot themselves: between the two reads
// a block could seal, and an answer could miss a transaction in both or count a log in both.
// The Preconf publishes a View instead: the chain's Heads (sealed head, safe, finalized) and the
// newest snapshot of the block built on exactly that head, in one atomically swapped pointer.
// It is republished at every pre-confirmation and, through chain.Chain.OnHeads, at every change
// of the sealed chain, before the chain tells its OnHead and OnReorg listeners and after the
// sealed block is durable and readable: the View that names a sealed block is the one that
// drops its pre-confirmation. Views are published in order, so a request that starts after
// another's answer sees the same View or a newer one: what an answer showed stays visible,
// the sealed and the pre-confirmed part never overlap, and the head never goes backwards
// (view.go states the rules and the exceptions).
//
// # Sealing while pre-confirming
//
// Seal writes the sealed block into the chain before it returns: the state commit, the block
// and receipts, the trie flush, the head, the fsync and the chain's listeners took 60 to 500
// ms a block under load (docs/benchmarks.md), and the next block's first pre-confirmation
// waited for all of it. SealAsync (sealasync.go), the dev sequencer's timed seal, keeps only
// the state commit (chain.Chain.CommitExecuted) on the writer's path: from then on the
// sealed block's post-state is readable at its root, in the trie database's memory, so the
// next block opens on it at once (Head returns the sealed block, and the EVM's chain context
// knows its header for BLOCKHASH) while one writer goroutine does the rest
// (chain.Executed.Write). The state commit stays on the path because the next block's own
// commit must find the sealed block's state layer in place: a StateDB copied from the
// uncommitted one would commit its changes onto the grandparent's. A scheduled writer takes
// even that off the boundary: its block's last pre-confirmation carries PublishOptions.Seal,
// which commits the state between the assembly and PublishAfter (while the writer waits for
// the deadline) and seals the block with its publication, so the next block opens as soon as
// the pre-confirmation is published. No reader sees the committed state before then; a
// cheated block and a fork's are sealed right after the publication, as SealAsync seals them.
// Meanwhile, where the process lowers its background jobs (chain.StoresInBackground), a job on
// a lowered thread with a P of its own stores the block and flushes its state
// (chain.Executed.StoreInBackground), so the write after the publication only sets the head.
//
// Writes keep their order and there is at most one in flight: the next SealAsync, Seal,
// ReplaceWith, Discard and the Dev's Rebuild, Rewind and SealWith wait for it first (a writer a
// whole block behind slows sealing down instead of growing a queue), and WaitWritten waits for
// it on request (the dev controls, evm_mine). While it runs, the View carries the block as
// Sealing, between Latest (its parent) and Pending (the next block, built on it), and the View
// that names it Latest drops it, as for a block in progress (view.go). When the write fails,
// the block and the block built on it leave the View and the next operation discards the block
// in progress and returns the error: their transactions were pre-confirmed only. The Preconf
// keeps them, deposits aside, for its writer to take back (TakeDropped, dropped.go): the dev
// sequencer returns them to its pool, and they are sealed later. A block whose state changed since its last pre-confirmation (a cheat) and a fork's
// block are written before SealAsync returns.
//
// OP Stack blocks (opstack.go): the attributes carry the transactions the block opens with (the
// L1-attributes deposit and user deposits), applied in pre-confirmation 0 and kept by every
// seal; a Jovian block's data-availability footprint is budgeted like its gas; and each
// snapshot's receipts get the L1 fee fields op-geth derives for sealed receipts, so a
// pre-confirmed receipt equals its sealed one.
//
// Retraction: a block may be sealed with other transactions than were pre-confirmed (a
// replica's upstream block that differs, ReplaceWith; dev_seal with a chosen list,
// Dev.SealWith). The block is then built again on the parent's state, the pre-confirmed state
// is discarded (a View without the block in progress is published first), and the difference
// is published to OnRetract listeners: the pre-confirmed logs the sealed block does not carry
// (compared by transaction, position and content, not only by transaction hash), the sealed
// logs that were not pre-confirmed, and the dropped transactions. ReplaceWith also returns
// where the sealed block first departs from the pre-confirmed transactions and receipts
// (Mismatch), which a replica counts and logs.
//
// # The dev chain's controls
//
// The dev chain's cheats are methods of one type, Dev (dev.go), obtained with Preconf.Dev and
// used by the dev sequencer alone: Cheat changes the state of the block in progress outside
// its transactions (anvil_setBalance, _setCode, _setNonce, _setStorageAt), Rebuild builds it
// again with new attributes (timestamp, base fee, fee recipient, prevRandao, gas limit),
// Rewind abandons it and takes the chain back (evm_revert, anvil_reset), and SealWith seals it
// with chosen transactions (dev_seal); Rebuild and Rewind retract its pre-confirmed logs, as a
// reorg does. A cheated block is sealed as executed and marked so (chain.Chain.WriteCheated):
// its transactions alone do not produce it, so the chain cannot execute it again after kill -9.
// The cheats no sealed block carries yet also travel in every View (View.Cheats), so that reads
// of the sealed head's state apply them and `latest` shows a cheat at once; Rewind can restore
// a saved list of them (evm_revert), and Open applies them to the block it opens on that head.
//
// Concurrency: readers take the View (View) or the snapshot alone (Current) with one atomic
// load and never block the writer; a request that holds a View sees one pre-confirmation index
// and one sealed head from start to end. A publication does what does not need the writer on
// goroutines of its own while the writer computes the state root (the transactions and
// receipts tries with their encodings, the receipts' L1 fee fields) and waits for them before it
// returns. Writers are serialised by an internal mutex;
// a second mutex orders the View's publications from the writer, from the chain and from the
// goroutine that writes a sealed block. Listeners registered with OnSnapshot and OnRetract run on the
// writer's goroutine after each publication (the View already shows it) and must not block.
// Only one producer writes to a Preconf: the dev sequencer or a replica's follower, never
// both.
//
// Imports: chain, oprollup, impersonation and go-ethereum. It does no network I/O of its own:
// a fork's upstream state reaches it through the state database the chain hands it. It is
// imported by its writers (sequencer, follow), its readers (api, devapi, health, metrics) and
// the code that assembles a node.
package preconf

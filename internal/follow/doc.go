// Package follow runs a replica of another sequencer (flashrpc follow): it keeps the local
// chain in step with an upstream node's sealed blocks and the block in progress in step with
// the sequencer's flashblocks feed. It is a second producer of pre-confirmations for the
// preconf path, beside the dev sequencer: the API never knows where they came from. Without
// a feed it builds no block in progress and hides the Views (preconf.Preconf.Hide): the
// replica shows its chain as a chain without pre-confirmations does, `pending` the next
// block as forecast on both endpoints.
//
// # Sealed blocks
//
// New heads come by subscription (eth_subscribe newHeads on the upstream's WebSocket,
// heads.go) where the upstream serves it, else by polling eth_blockNumber every
// Config.PollInterval (also while a dropped subscription is redialled); whole blocks are
// fetched by number in batches (sync.go), in their consensus encoding (debug_getRawBlock)
// where the upstream serves it, else as JSON (decode.go), and inserted into the chain, which executes each on
// its parent's state and refuses it unless it gives the header's state root, receipts root,
// bloom and gas used. A block whose parent is not the local head is a reorg: the replica finds
// the newest block it shares with the upstream, rewinds to it (the chain tells its
// subscribers that the dropped blocks' logs are removed) and goes on from there. Catch-up
// is a pipeline (catchup.go): while one batch is inserted, the next few are fetched, decoded
// and their senders recovered on every core, and the batches that are ready by then are
// inserted together. Catch-up from genesis logs its progress (blocks/s, Mgas/s, ETA) every
// few seconds.
//
// # Pre-confirmations
//
// Flashblocks (FlashblocksPayloadV1, JSON text or brotli binary frames) are decoded as they
// arrive, their senders recovered on a pool of GOMAXPROCS workers before their turn
// (recover.go: the feed carries no senders, and recovering them costs more than executing a
// transfer), then re-executed on the block in progress and published only when the partial
// block has the hash, state root, receipts root and gas used the sequencer published
// (preconf.PublishOptions.Check on Open and Batch.Commit, flash.go). A flashblock without roots (OP's subblocks publish a zero state
// root and block hash; flashblocks.Diff.HasRoots, read per flashblock) is published when its
// receipts root and gas used match, and its block is verified when sealed: the upstream's
// block must begin with the pre-confirmed transactions, in order, with the same receipts
// (status, cumulative gas used, logs). A difference is retracted as a reorg is (preconf's
// ReplaceWith: removed logs to subscribers), counted (flashrpc_follow_preconf_mismatch_total)
// and logged with the block and the first differing transaction. A flashblock carrying a
// post-execution transaction (Lagoon's type 0x7d) is refused, counted and logged: flashrpc
// does not run Lagoon's rules. The sequence must be exact; a gap, a duplicate, an index out of
// order, a lost message or a flashblock that does not verify drops the block in progress
// (`pending` is then the sealed head) until the next index 0. Index 0 of block N+1 usually
// arrives before the upstream's RPC shows N: when its parent is the replica's own last verified
// pre-confirmation of N (the hash the replica computed, which for a feed without roots no
// flashblock published), that block is sealed at once (its hash is N's) and compared with the
// upstream's N later, a difference being a reorg; any other missing parent is synced from the
// upstream at once, for up to Config.ParentWait, unless the upstream does not know the parent
// although it is already at that height (a feed of another chain: refused at once). When the upstream's block N differs from
// the replica's pre-confirmations of N, preconf's ReplaceWith inserts it and retracts the
// difference. A dropped feed is redialled with backoff
// (feed.go) while sealed blocks keep coming.
//
// # Remote state
//
// On a remote-state replica's chain (fork.Upstream.Replica, flashrpc follow --state remote,
// remote.go) the same loop runs with three differences: inserting a block stores the
// upstream's block with its checked receipts instead of executing it; flashblocks are executed
// on the upstream's state at their parent, their accounts prefetched in one batch, and take the
// sequencer's state root (preconf.PublishOptions.Roots), the check still demanding the
// published block hash; and the replica never seals a block itself: index 0 of N+1 waits for the
// upstream's N.
//
// # Writes and health
//
// SendRawTransaction forwards signed transactions to the sequencer (forward.go; the API's
// Forwarder). UpstreamHead and FeedConnected feed the node's /health. Each flashblock that
// verified is handed to Config.Verified with the JSON text the feed sent, which the node
// publishes again as it came.
//
// The upstream is read through the fork mode's JSON-RPC client (internal/remote), without its
// retries: the sync loop asks again at its own pace (upstream.go).
//
// Concurrency: one writer goroutine (run) changes the chain and the block in progress; a heads
// watcher and a feed reader hand it work over channels. The feed reader's sender-recovery
// workers and a catch-up's fetches only decode and recover senders, caching each in its
// transaction; they end with the reader and the sync that started them. The exported methods
// are safe for concurrent use.
//
// No silent divergence: a sealed block at which a fork flashrpc does not run is active
// (the chain configuration's networks.RuleCheck, derived once) is refused before it executes, and
// sync stops below it (sync.go).
//
// Imports: chain, preconf, flashblocks, metrics, remote, networks and go-ethereum.
package follow

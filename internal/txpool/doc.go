// Package txpool holds transactions submitted with eth_sendRawTransaction until the sequencer
// includes them. It validates each transaction on arrival against the state it would run on
// (the pre-confirmed state of the block in progress, or the sealed head), with go-ethereum's
// error values and texts, and hands the sequencer the executable ones (Pending); the sequencer
// orders them (highest effective tip first, nonce order per sender).
//
// # Executable and queued
//
// As in go-ethereum's legacy pool (core/txpool/legacypool), a sender's transactions are
// executable ("pending") while their nonces continue the sender's nonce in the state of the
// block in progress without a gap, and queued when a nonce leaves a gap. A transaction that
// fills the gap is executable and the queued ones that follow it are promoted. The sequencer
// removes what it pre-confirmed (RemoveUsed, which moves each sender's nonce in the pool past
// it at once, so that a send validated against the view from before the build still finds the
// rest of the run executable) and what can never be included (Remove), then calls Reset with
// the new state, which drops transactions whose nonce was used or that the sender can no
// longer pay for, queues again executable ones behind such a drop, promotes, and expires
// queued transactions whose account's heartbeat is older than Config.Lifetime. Content and
// Stats show both sets (txpool_content and txpool_status build on them).
//
// # Limits and eviction
//
// Every limit counts slots: ceil(size / 32 KiB) per transaction, at most 4 (128 KiB is the
// largest transaction), so the pool's memory is bounded by (GlobalSlots + GlobalQueue) × 32
// KiB of transactions, about 192 MiB with the defaults, of which 32 MiB queued. A new
// transaction that does not fit:
//
//   - executable: the account holding the most executable slots loses its newest transaction
//     while it holds more than Config.AccountSlots and more than the sender will; otherwise,
//     if the sender is within its own guarantee, the account whose newest executable
//     transaction pays the least loses it when the new one pays more; otherwise the new one is
//     refused (ErrPoolFull or "transaction underpriced"). So one sender flooding executable
//     transactions never keeps another sender's first AccountSlots slots out.
//   - queued: the sender's own queued transactions at higher nonces give way; if its lower
//     nonces already fill Config.AccountQueue the transaction is refused
//     (ErrAccountQueueFull, "send nonce N first"). Then expired queued transactions go, then
//     those of the accounts with the oldest heartbeat. So a sender flooding future nonces
//     holds at most AccountQueue slots and never keeps another sender's transaction out.
//
// Promotion makes room only from accounts over their guarantee; a transaction that cannot be
// promoted stays queued until there is room. A refused transaction changes nothing.
//
// Differences from go-ethereum: the pool works synchronously (no background reorganisation:
// Add, Remove, RemoveUsed and Reset apply every rule before they return), so a transaction
// over a limit is refused with an error instead of being accepted and dropped later; the
// per-account limits count slots, not transactions (the same for transactions up to 32 KiB);
// and a transaction whose fee cap is below the base fee of the block in progress is refused
// at once.
//
// # OP Stack chains
//
// As op-geth's pool: deposits (0x7e, which only L1 makes) and post-execution transactions
// (0x7d) are refused, and blob transactions too on an OP Stack chain (opstack.go). A sender
// must afford the transaction's rollup cost (the L1 data fee and the operator fee, from the
// L1Block predeploy's storage in the View's state: View.RollupCost, which StateView sets on an
// OP Stack chain) besides gas and value, on Add and again at every Reset.
//
// Concurrency: a *Pool is safe for concurrent use; one mutex guards its maps. Reset reads the
// state without holding it.
//
// Imports: go-ethereum only.
package txpool

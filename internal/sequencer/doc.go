// Package sequencer is the dev chain's block builder. It opens a block on the sealed head
// (pre-confirmation index 0), adds the pool's executable transactions as the next
// pre-confirmation every interval (highest effective tip first, nonce order per sender, within the
// block gas limit), and seals the block every block time. An interval or block time of zero means
// "only on request": Preconfirm and Seal (the dev_preconfirm and dev_seal methods) drive it, so
// tests are deterministic. SealSelected (dev_seal with a transaction list) seals a chosen
// selection of the pre-confirmed transactions instead, so that tests can exercise retraction.
//
// The pool: the sequencer takes its executable transactions (txpool.Pool.Pending), removes
// what it pre-confirmed and what can never be included (a used nonce, intrinsic gas, a sender
// with code, more gas than a block has, ...), leaves what may fit later (a nonce gap, a full
// block, a fee cap below the base fee, too little balance for now) and then hands the pool the
// new state (txpool.Pool.Reset), after each pre-confirmation and after opening each block.
//
// On an OP Stack chain (Config.L1) every block opens, in pre-confirmation 0, with the
// L1-attributes deposit of the dev L1 origin and the user deposits Deposit queued
// (dev_deposit), and transactions whose data-availability footprint no longer fits wait for a
// later block, as op-geth's miner does (opstack.go).
//
// On a chain that runs Denim, Base's 200 ms blocks (Config.Denim, denim.go), every block from
// the activation on carries the BaseTime deposit as its transaction 1, before the user
// deposits; its time follows the parent's by exactly 200 ms (whole-second header timestamps
// shared by five blocks, the part in BaseTime) instead of the clock; the first Denim block
// scales the gas limit and EIP-1559 denominator by 10, and later blocks keep them. The clock
// controls are refused while a Denim block is in progress (ErrDenimTime).
//
// A chain without pre-confirmations (Config.NoPreconfirmations, nopreconf.go; Base since
// Denim) builds each block at its seal: the timer's one build per block time takes the pool's
// executable transactions on the cadence's deadlines and seals at once, with the block time as
// its interval, and the block in progress is opened hidden (preconf.PublishOptions.Hidden), so
// nothing of it reaches readers, the feed or the subscriptions before it is sealed and written.
//
// # The cadence
//
// When the block time is a whole number of intervals (the default 2 s / 200 ms) or zero, the timer
// publishes on fixed deadlines, as production flashblock builders do (schedule.go): flashblock k is
// published at start + k × interval. Its build starts lead before that deadline, and a build done
// early waits for it (preconf.PublishOptions.PublishAfter), so the interval between two
// publications does not vary with build times. A late build is published as soon as it is done; a
// deadline passed by more than an interval is skipped, as a time.Ticker drops ticks (the block then
// lasts longer: a block is BlockTime / interval flashblocks built), except on a Denim chain, whose
// time grows by 200 ms a block: there the missed deadlines' blocks are sealed back to back
// (schedule.catchUp). The lead follows the builds: 1.5 × the longest of the last 20 plus 2 ms, at
// least 1 ms and at most half an interval: a few milliseconds when the chain is quiet, the slowest
// recent build under load. Blocks' last flashblocks, whose builds also commit the block's state,
// have a lead of their own, from the last 20 of them. A transaction arriving in the second half of a build's lead goes into
// the next flashblock: it waits interval/2 + lead/2 on average to be pre-confirmed. The last
// flashblock of a block of several seals it (preconf.PublishOptions.Seal): its build adds for a
// quarter of the lead (sealAddUntil), then assembles and commits the block's state before the
// deadline, so that the next block opens, and its index 0 is published, as soon as the last
// flashblock is; the next block's first flashblock then has a whole interval of staging like
// any other, where a commit after the publication took 35–70 ms of it under load. A block of one build (Denim's
// 200 ms blocks) is sealed right after its publication, as before: it has no first flashblock to
// spare, and a quarter lead to add transactions cut what its blocks took at 5,000 a second. On-request pre-confirmations (Preconfirm, dev_preconfirm, the dev
// controls) are published as soon as they are built. While the timer waits for a deadline it holds
// the sequencer's lock: an on-request call meanwhile waits up to the lead. Config.ObserveBuild
// measures the build, not the wait. When the block time is not a whole number of intervals, two
// tickers drive pre-confirmations and seals, and each pre-confirmation is published when built.
//
// Staging (stage.go, build.go): while the cadence's timer waits for a build's start it
// executes the pool's transactions into the next flashblock every 20 ms, unpublished, the
// transactions still in the pool; each round stops at the build's start. The build then adds
// what arrived since for the first half of its lead and assembles in the second; what did not
// fit goes into the next flashblock, as production builders close a flashblock at its
// deadline (a build that starts late still gets half a lead, so the pool cannot starve). The
// order by effective tip holds within a round: a transaction that arrives later with a higher tip
// goes after those already staged. A replacement (same nonce, higher fee) of a staged
// transaction is accepted by the pool, which checks against the published state, and dropped at
// the publication when the original takes the nonce, as a replacement that arrives after a
// builder took the original is on any chain.
// Without staging a thousand transactions a flashblock took longer than the lead may be, and
// builds ran late by their own length. A staged build holds the Preconf's writer lock, so
// everything else under the sequencer's mutex (the dev controls, the deposits, an on-request
// seal) publishes what is staged first, as a pre-confirmation of its own; an on-request
// pre-confirmation (dev_preconfirm, evm_mine, automine) takes it into its own. The controls that
// drop pre-confirmed transactions (dev_seal with a list, evm_revert) give what was only staged
// back to the pool.
//
// The timer's seals do not wait for the chain write (preconf.PublishOptions.Seal, as
// preconf.SealAsync): the next block opens
// on the sealed block's committed state and its pre-confirmations keep their interval while
// the chain writes the sealed block. On-request seals (dev_seal, evm_mine) and the dev
// controls wait for it, so what they return is on the standard endpoint. When that write
// fails (a full disk), the sealed block and the block built on it are dropped and the next
// block opens on the chain's head; their transactions, deposits aside, go back to the pool
// (dropped.go, txpool.Pool.Requeue), checked again against that block, and are sealed later.
//
// Concurrency: one mutex serialises the timer loop and the on-request calls; readers of the block
// in progress go through preconf and never wait for it. Between staging rounds the Preconf's
// writer lock is held while the sequencer's mutex is free: a caller outside the sequencer must
// not take the Preconf's writer lock (WaitWritten, Dev) but go through the Sequencer
// (Sequencer.WaitWritten, Sequencer.Cheats), which publishes what is staged first.
//
// The dev chain's controls (devcontrol.go, for internal/devapi) run under the same mutex: Mine
// seals blocks now, SetNextTimestamp, IncreaseTime and SetNextBaseFee rebuild the block in
// progress with new attributes, Cheat changes its state, and Rewind drops it and takes the
// chain back. What changes the block in progress goes through preconf's dev controls
// (preconf.Dev: Cheat, Rebuild, Rewind, SealWith); the sequencer adds the clock, the pool and
// the OP Stack deposit of the new time. The block timestamps follow the wall clock plus an
// offset those controls move. The mining controls (mining.go) change the timer at runtime:
// SetBlockTime (interval mining) and SetAutomine, which seals each transaction the pool takes
// in a block of its own from the pool's Add hook (txpool.Pool.SetOnAdd), through a
// pre-confirmation, before the send answers. Either restarts the timer loop: the loop runs with
// a stop and a done channel of its own, stopped and waited for under loopMu, which is never
// taken while mu is held.
//
// The feed: the node publishes each pre-confirmation on the flashblocks feed from a
// preconf OnSnapshot listener, in Base's format or OP's subblocks format (zero roots and
// hashes, receipts and balances in metadata); FeedPayload (feed.go) makes the message of
// either.
//
// Imports: preconf, txpool, chain, oprollup, flashblocks and go-ethereum.
package sequencer

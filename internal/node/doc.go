// Package node builds, starts, re-forks and stops a flashrpc node, one type per mode: Dev
// (its own sequencer on a new, stored or forked chain), Serve (a stored chain without a
// sequencer) and Follow (a replica of another sequencer). Each starts from a plain
// configuration value (DevConfig, Server, FollowConfig); command-line flags are
// cmd/flashrpc's. It is the only place that wires the packages together.
//
// A dev chain named after a network (DevConfig.Network; network.go checks and resolves it, and
// the chain type, before anything starts) runs its rules as of now, with the network's cadence
// and feed format unless given; one that runs Denim (Base's networks: devchain.go, network.go's
// denimCadence) has Base's cadence since then, a block every 200 ms without
// pre-confirmations, and the forks of the network it runs without are logged and listed
// (Dev.Omitted). A chain's genesis file (genesisfile.go) carries its
// Denim time as base/base's genesis does, config.base.denim; follow --genesis and import read
// it with the genesis.
//
// Two offline modes prepare a data directory without serving it: Import (an RLP chain file,
// every block executed) and Generate (a large generated chain for benchmarks, then its log
// index).
//
// # Imports
//
// node imports what a node is made of: chain, fork, preconf, sequencer, follow, txpool, logs,
// exec, api, devapi, rpc, flashblocks, health, metrics, liveview, devaccounts, networks,
// oprollup, remote; and chaingen for Generate. Nothing imports node but cmd/flashrpc.
//
// # Lifecycle
//
//   - StartDev, StartServe and StartFollow open the chain, start what runs on it (sequencer,
//     follower, log index, feed, metrics listener) and open both endpoints' sockets, which
//     listen but do not serve yet: a taken port fails the start, not a later step.
//   - Endpoints().Serve serves them; Endpoints().Shutdown stops them gracefully (requests in
//     flight get until its context ends; WebSocket connections are closed with 1001).
//   - Close, after Shutdown, stops and closes everything else, in the reverse order of the
//     start, and returns every error joined.
//
// One cleanup idiom serves both: each part pushes its undo on a stack (closers) as it starts;
// a failed start unwinds the stack and returns the start's error joined with the cleanup's,
// leaving nothing running; Close unwinds the same stack.
//
// # Re-fork
//
// Dev.Refork (anvil_reset with forking options) replaces the chain and everything built on it
// while the endpoints, the feed and the metrics keep serving. It is atomic: every step that
// can fail (opening the new fork, moving it into the data directory, building and starting
// what runs on it) runs before the node lets go of its chain, or is undone, so that a failure
// leaves the node serving the chain it served, with its sequencer running.
//
// # Concurrency
//
// A node's methods are safe for concurrent use. Dev serialises Refork and Close with a mutex;
// the endpoints reach the current chain's API through one atomic load per call.
package node

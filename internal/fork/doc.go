// Package fork owns everything about continuing an upstream chain (fork mode, flashrpc dev
// --fork-url, and the remote-state replica, flashrpc follow --state remote): opening a fork
// (Open: creating it from the upstream, or resuming the one a datadir holds), the
// upstream-backed state database and its records, the history at or below the fork block N,
// and the replica variant. Its Upstream implements chain.Upstream, the seam through which the
// sealed chain (internal/chain, which does no network I/O) reads state and writes blocks above N.
//
// The design (docs/fork.md) in short:
//
//   - core.BlockChain stays the block store. Its genesis is the upstream's block 0 header (a
//     stand-in for the four Ethereum networks go-ethereum would otherwise give their built-in
//     configuration), block N is stored whole with the upstream's root node, and the local
//     blocks N+1… follow. Nothing between 0 and N is stored: the API asks the upstream
//     (remote.History) for blocks, transactions, receipts and logs up to N.
//   - Local state lives in op-geth's trie database (hashdb, archive) as a local trie whose base
//     at N is the empty trie: local state roots are not the upstream's. Every StateDB reads
//     through a forkReader (state.go): the local trie first, then, for what the local
//     chain never wrote, the upstream's state at N (remote.State, cached in this database).
//     Records of the first local block that wrote each slot or deleted each account
//     (records.go) tell a value the local chain set to zero from one it never touched.
//   - core.BlockChain cannot be given that reader, so it never executes a fork block:
//     Insert executes and validates it with op-geth's own processor and validator on the fork
//     state, writes it, and hands it over with BlockChain.SetCanonical (insert.go).
//
// No silent divergence: creating a fork (dev or replica) refuses a fork block at which the
// upstream's network runs a fork flashrpc does not (networks.Network.CheckRules: Lagoon,
// Base's Beryl and Cobalt, …), and resuming one refuses stored rules that would
// (networks.CheckRules). A dev fork's later local blocks run the fork block's rules, as
// networks.ForkRules makes them; a replica's blocks are checked by internal/follow. An
// upstream whose chain id is no network's, or a local chain that took a live network's chain
// id (networks.IsLocalChain: Base's, told apart by the genesis hash), runs the rules
// Config.Network names as of now instead.
//
// Denim (denim.go): a fork of a Denim block runs Denim and its first block continues the
// block's millisecond time with the BaseTime deposit; a fork run with rules that have Denim
// where its fork block did not crosses it at its first block. The Denim time is stored with
// the chain (chain.StoreDenim) and every block the fork executes installs BaseTime's
// implementation first when its state lacks it (chain.EnsureBaseTime).
//
// The keys flashrpc writes for a fork are documented in docs/format/fork.md.
//
// A remote-state replica (Config.Replica, replica.go) is a fork that writes no state and builds
// no block: it inserts the upstream's blocks above N without executing them, their receipts
// checked against the header, and reads each block's state from the upstream at that block.
//
// Open does its network I/O (creating the fork, checking the upstream on a resume) under the
// caller's context. Later upstream reads (a state read the EVM makes, a replica's insert) run
// under their own bounds (remote.Config's timeout and retries, replicaTimeout), since
// go-ethereum's state.Reader takes no context; an API request that must not wait on them
// fetches what it reads first (PrefetchState, StateAtDiscover and FetchDiscovered).
//
// Concurrency: an *Upstream is safe for concurrent use. The chain calls Insert, Write and
// Rewound one at a time; state readers are shared by the StateDBs of recent roots and
// serialise their local trie reads, while upstream reads run concurrently.
//
// The routing of JSON-RPC methods (route.go): API implements core.Upstream (internal/api/core), through which
// internal/api registers each method by what it declares it reads, and asks the upstream for
// what it cannot read locally (logs below N, state an execution will read). Its JSON-RPC
// errors are built in one place (errors.go).
//
// Imports: internal/chain (whose Upstream this package implements), internal/api/core (whose
// Upstream it implements), internal/remote (the upstream's client, state and history),
// internal/networks and internal/oprollup (the rules a fork runs), internal/logs, ethjson, rpc,
// recent, and go-ethereum. Neither chain nor api imports fork; internal/follow does (a
// remote-state replica's chain is a fork).
package fork

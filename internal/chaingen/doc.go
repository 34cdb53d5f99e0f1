// Package chaingen generates large, realistic chains fast, for the log index's benchmarks and
// tests: blocks of signed ERC-20-like transactions whose logs follow a skewed spread of token
// contracts, senders and receivers (Transfer and Approval events, swaps through pools, and a
// rare event), appended through chain.BulkWriter so they land under go-ethereum's keys exactly
// as the node reads them.
//
// The blocks are not executed: each transaction's receipt and logs are made up with it, and
// every block keeps the genesis state root (logs do not depend on state). Headers, transaction
// and receipt roots, blooms, base fees, timestamps and signatures are real, so the node serves
// the chain like any other (`flashrpc serve`). The same seed gives the same chain, whatever
// the number of workers.
//
// The population (token, pool and account addresses, event topics) does not depend on the seed,
// so benchmarks can name its members (Token, Account, Pool, the topic variables) without
// reading the chain.
//
// Concurrency: Generate signs on several goroutines and appends on the caller's. Imports:
// go-ethereum and internal/chain.
package chaingen

// Package benchmix is the realistic transaction mix of the sequencer capacity benchmark
// (docs/benchmarks.md): ETH transfers, ERC-20 transfers and Uniswap V2-style swaps
// from many senders, in a fixed proportion, on real contracts executed by the EVM.
//
// The contracts (contracts/BenchMix.sol: an ERC-20 Token with an open mint and a
// constant-product Pool) are compiled by compile.mjs with the solc that clients/ pins, and
// contracts/BenchMix.json is embedded. Setup returns the transactions that deploy two tokens and
// their pool, seed the pool and give every sender tokens and approvals; Mix.Tx then signs the
// n-th transaction of the mix for a sender. The sequencer's benchmarks (internal/sequencer) and
// the load generator against a running node (scripts/bench/sequencer) both use it.
//
// Concurrency: a Mix is immutable after New and safe for concurrent use.
//
// Imports: go-ethereum only.
package benchmix

// Package networks knows the chains flashrpc can fork (and later follow) by chain id, and which
// rules each runs: go-ethereum's built-in Ethereum networks (params), the OP Stack chains of
// op-geth's embedded superchain registry, and Base mainnet and Base Sepolia, which the registry
// lacks and which this package carries as data (base.go). An unknown chain runs the current
// Ethereum rules, or the OP Stack's when asked to (--chain-type).
//
// ForkRules turns a network's schedule into the configuration of a fork that continues one of
// its blocks: forks scheduled after that block stay off, so the fork keeps the block's rules.
//
// Concurrency: the package holds immutable data; every function is safe for concurrent use
// and returns configurations the caller owns.
//
// Imports: go-ethereum (params, superchain) only.
package networks

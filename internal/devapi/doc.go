// Package devapi serves the dev chain's own methods, the ones Foundry and Hardhat suites
// written against anvil or the Hardhat node call (decisions.md "Dev-node methods"): the dev
// accounts (eth_accounts, eth_sendTransaction and the signing methods), impersonation
// (anvil_/hardhat_ impersonateAccount, stopImpersonatingAccount, autoImpersonateAccount),
// the txpool_ inspection methods and the mining controls (evm_mine, anvil_mine,
// hardhat_mine). They exist on both endpoints of the dev chain only: `flashrpc serve` of an
// imported chain has no keys and no sequencer, and answers -32601.
//
// API.Register adds the methods to one endpoint's method table (api.Config.Extend); one API
// serves both endpoints, so impersonation set on one holds on the other. eth_sendTransaction
// estimates gas with the table's own eth_estimateGas at `pending`, so it sees what that
// endpoint's `pending` sees.
//
// # Impersonation
//
// An impersonated transaction has no valid signature. It carries a placeholder signature
// (r = the sender's address, s = 1, so two senders never share a hash) and its sender is
// fixed in the transaction object's sender cache by a signer that answers the impersonated
// address (impersonate.go). go-ethereum's types.Sender consults that cache first, so the pool,
// the sequencer and the chain's insertion, which all hold the same object, take the
// impersonated address as the sender. A transaction read back from the database after sealing
// has lost the cache: its "from" is then what the placeholder signature recovers (see
// docs/rpc.md).
//
// Concurrency: API is safe for concurrent use; mu guards the impersonation set.
//
// Imports: chain, preconf, sequencer, txpool, devaccounts, ethjson, rpc and go-ethereum.
package devapi

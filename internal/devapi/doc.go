// Package devapi serves the dev chain's own methods, the ones Foundry and Hardhat suites
// written against anvil or the Hardhat node call (decisions.md "Dev-node methods"): the dev
// accounts (eth_accounts, eth_sendTransaction and the signing methods), impersonation
// (anvil_/hardhat_ impersonateAccount, stopImpersonatingAccount, autoImpersonateAccount),
// the state cheats (setBalance, setCode, setNonce, setStorageAt, dropTransaction,
// setNextBlockBaseFeePerGas, dumpState / loadState), mining and time (evm_mine, anvil_mine,
// evm_increaseTime, evm_setNextBlockTimestamp, evm_setAutomine and the getAutomine methods,
// anvil_setIntervalMining in seconds as anvil, evm_setIntervalMining the same or, on a node
// that presents itself as Hardhat, in milliseconds as Hardhat: automine.go), snapshots (evm_snapshot, evm_revert,
// anvil_reset), the txpool_ inspection methods, and flashrpc's own dev_ methods, which drive
// the sequencer on request so that tests and scripts control time instead of sleeping:
// dev_preconfirm builds the next pre-confirmation, dev_seal seals the block in progress (with
// what it pre-confirmed, or with the pre-confirmed transactions it lists: dev.go) and, on an
// OP Stack chain, dev_deposit stands in for an L1 deposit (deposit.go). Every change goes
// through the sequencer, which owns the block in progress: `pending` sees it at once,
// `latest` after the next seal. They exist on both endpoints of the dev chain only: `flashrpc
// serve` of an imported chain has no keys and no sequencer, and answers -32601.
//
// API.Register adds the methods to one endpoint's method table (api.Config.Extend), each with
// what it reads (core.Table.Add: the sealed head or nothing, so none is routed to a fork's
// upstream); one API serves both endpoints, so impersonation set on one holds on the other. eth_sendTransaction
// estimates gas with the table's own eth_estimateGas at `pending`, so it sees what that
// endpoint's `pending` sees.
//
// # Impersonation
//
// An impersonated transaction has no valid signature: internal/impersonation gives it a
// placeholder and fixes its sender in the transaction object, which the pool, the sequencer
// and the chain's insertion share; the dev chain's reads (chain.Config.Impersonation) give a
// transaction read back from the database its sender again.
//
// Concurrency: API is safe for concurrent use; mu guards the impersonation set.
//
// Imports: internal/api/core (the method table and its declarations), chain, preconf,
// sequencer, txpool, oprollup, devaccounts, impersonation, ethjson, rpc and go-ethereum.
package devapi

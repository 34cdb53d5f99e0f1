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
// through the sequencer, which owns the block in progress. They exist on both endpoints of the dev chain only: `flashrpc
// serve` of an imported chain has no keys and no sequencer, and answers -32601.
//
// # State cheats at `latest`
//
// A state cheat (setBalance, setCode, setNonce, setStorageAt) is visible at once to every
// state read at `latest` and `pending` on both endpoints, as on anvil and Hardhat, and the next
// sealed block carries it (cheats.go). The choice: the cheat changes the block in progress
// (`pending`), and the View every request reads from carries the cheats no sealed block
// carries yet (preconf.View.Cheats), which reads of the sealed head's state apply on top of
// it. The View that makes the block carrying them `latest` is the one that drops them, so no
// read sees a cheat disappear and come back. Sealing a block per cheat would be simpler, but
// suites that set state and then count blocks or compare timestamps would see blocks anvil and
// Hardhat never make; mutating the head's state in place, as anvil does, would make the sealed
// chain disagree with its own blocks. The cost stays on the dev chain: elsewhere View.Cheats
// is nil and reads of `latest` go as before. A read of the head by number or hash, eth_getProof
// (read from the sealed tries) and eth_simulateV1 see the head as sealed.
//
// evm_snapshot saves the sealed head, those unsealed cheats and the clock; evm_revert takes the
// chain back to the head, and the restored cheats are visible at once again (snapshot.go).
// Transactions pre-confirmed but not sealed are not part of a snapshot: evm_revert drops them.
//
// # Time
//
// evm_increaseTime moves the clock's offset and rebuilds the block in progress at the sum of
// the increases made since it opened after its parent, so back-to-back increases add up and a
// pause between them does not matter; evm_setNextBlockTimestamp fixes the block's timestamp,
// and, as on anvil, an increase made after it does not move that block: once it is sealed the
// clock goes on from its timestamp (sequencer's devcontrol.go).
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

// Package devaccounts derives the dev chain's prefunded accounts from a
// BIP-39 mnemonic along the BIP-44 Ethereum path m/44'/60'/0'/0/i, the same
// way anvil and hardhat do, so that the well-known [TestMnemonic] yields the
// well-known addresses and keys and existing test suites and wallets work
// unchanged.
//
// The package owns the BIP-32 private child derivation (HMAC-SHA512, hardened
// and non-hardened steps, addition modulo the secp256k1 order). The seed comes
// from github.com/tyler-smith/go-bip39 with an empty passphrase; curve
// arithmetic and addresses come from go-ethereum's crypto package. It imports
// nothing from flashrpc.
//
// The keys are for development chains only: derivation uses math/big, which
// is not constant time.
//
// The package has no state; its functions are safe for concurrent use.
package devaccounts

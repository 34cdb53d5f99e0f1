// Package impersonation makes and recognises the dev chain's impersonated transactions:
// transactions eth_sendTransaction sends from an address whose key the node does not hold
// (anvil_impersonateAccount, internal/devapi).
//
// Such a transaction carries a placeholder signature instead of a valid one: v = 0, r = the
// sender's address as a number, s = 1 (r differs per sender, so the same fields sent by two
// senders make two transactions). Its sender is fixed in the transaction object's sender
// cache, which go-ethereum's types.Sender consults before it recovers a signature, by a signer
// that answers the impersonated address and is equal to every signer of the chain. The pool,
// the sequencer and the chain's insertion share the object, so they all take that sender.
// A transaction read back from the database is a new object: the dev chain's reads
// (chain.Config.Impersonation) give it its sender again from the placeholder (Recover).
//
// Only the dev chain may recognise placeholders: anyone can make a valid transaction whose
// signature has this shape (from the address the signature recovers to), and a node that
// trusted the shape would show a forged sender. The dev chain accepts that: it is a test
// chain and lets any sender be impersonated anyway.
//
// Concurrency: the functions are safe for concurrent use (the sender cache is atomic).
//
// Imports: go-ethereum only.
package impersonation

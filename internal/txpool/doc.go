// Package txpool holds transactions submitted with eth_sendRawTransaction until the sequencer
// includes them. It validates each transaction on arrival against the state it would run on
// (the pre-confirmed state of the block in progress, or the sealed head), with go-ethereum's
// error values and texts, and hands the sequencer the executable ones in inclusion order:
// highest effective tip first, nonce order per sender.
//
// Concurrency: a *Pool is safe for concurrent use; one mutex guards its maps.
//
// Imports: go-ethereum only.
package txpool

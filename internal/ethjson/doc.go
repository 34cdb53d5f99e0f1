// Package ethjson holds the JSON shapes of Ethereum objects as go-ethereum's RPC writes them:
// block headers and blocks (header.go, block.go), transactions (tx.go), receipts (receipt.go)
// and logs (log.go), built from the hex value appenders of hex.go. The API encodes its answers
// with it; fork mode and follow mode will decode upstream answers in the same shapes.
//
// Every encoder is a plain function that appends one complete JSON value to dst and returns
// the extended slice, byte for byte what go-ethereum's marshallers print (keys in the same
// order, the same omitted fields), without reflection. A sealed Denim block (Base's 200 ms
// blocks) adds Base's millisecond fields, when the caller gives its time in milliseconds:
// timestampMs on headers and blocks (AppendHeaderMs, BlockOptions.TimeMs), blockTimestampMs
// on transactions (TxLocation.TimeMs) and logs (AppendLogMs, AppendReceiptMs), each right
// after the key it refines. The tests compare them with a faithful
// copy of go-ethereum's marshallers and with a running go-ethereum node.
//
// Concurrency: the encoders keep no state and are safe for concurrent use; they read the
// go-ethereum objects they encode and never modify them (apart from the sender cache that
// types.Sender fills, which is atomic).
//
// Imports: go-ethereum only.
package ethjson

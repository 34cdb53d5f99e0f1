// Package param decodes the parameters of the JSON-RPC methods of internal/api, typed and
// without reflection, and builds the generic invalid-argument errors (-32602) its decoders
// return. Messages follow go-ethereum's ("invalid argument 1: …", "missing value for required
// argument 0", "too many arguments, want at most 2") so clients that match on them keep
// working. Quantities, indexes, block numbers and storage slots are decoded strictly
// (go-ethereum's hexutil rules: a 0x prefix, at least one digit, no leading zeros, at most 64
// bits; encoding/json's hexutil.Uint64 takes "" for 0) and their errors name the parameter:
// "invalid argument 1 (index): empty hex string".
//
// The decoders are pure functions, safe for concurrent use. Imports: internal/rpc and
// go-ethereum's common, hexutil and rpc.
package param

// Package logs matches logs against eth_getLogs filters: the filter criteria as clients send them
// (address string or list, topics by position with null and OR-lists, a block range or a block
// hash), and the matching rules go-ethereum applies, for single logs and for block blooms.
//
// It holds no state and is safe for concurrent use. Imports: go-ethereum only.
package logs

package ethjson

// This file encodes logs the way go-ethereum's generated types.Log MarshalJSON does: keys in
// struct field order, blockTimestamp included, removed always present.

import "github.com/ethereum/go-ethereum/core/types"

// AppendLog appends l as types.Log marshals it: address, topics, data, blockNumber,
// transactionHash, transactionIndex, blockHash, blockTimestamp, logIndex, removed. A nil topics
// slice is written as null and an empty one as [], as geth does. A nil l is null.
func AppendLog(dst []byte, l *types.Log) []byte { return AppendLogMs(dst, l, nil) }

// AppendLogMs is AppendLog with its sealed block's time in milliseconds as
// "blockTimestampMs" (after blockTimestamp) when ms is not nil: a log of a Denim block.
func AppendLogMs(dst []byte, l *types.Log, ms *uint64) []byte {
	if l == nil {
		return append(dst, Null...)
	}
	dst = append(dst, `{"address":`...)
	dst = AppendAddress(dst, l.Address)
	dst = append(dst, `,"topics":`...)
	dst = appendHashes(dst, l.Topics)
	dst = append(dst, `,"data":`...)
	dst = AppendHexBytes(dst, l.Data)
	dst = append(dst, `,"blockNumber":`...)
	dst = AppendQuantity(dst, l.BlockNumber)
	dst = append(dst, `,"transactionHash":`...)
	dst = AppendHash(dst, l.TxHash)
	dst = append(dst, `,"transactionIndex":`...)
	dst = AppendQuantity(dst, uint64(l.TxIndex))
	dst = append(dst, `,"blockHash":`...)
	dst = AppendHash(dst, l.BlockHash)
	dst = append(dst, `,"blockTimestamp":`...)
	dst = AppendQuantity(dst, l.BlockTimestamp)
	if ms != nil {
		dst = append(dst, `,"blockTimestampMs":`...)
		dst = AppendQuantity(dst, *ms)
	}
	dst = append(dst, `,"logIndex":`...)
	dst = AppendQuantity(dst, uint64(l.Index))
	dst = append(dst, `,"removed":`...)
	dst = AppendBool(dst, l.Removed)
	return append(dst, '}')
}

// MaxLogJSON is at least the length of AppendLogMs's encoding of l: its fixed part (447 bytes
// with the widest quantities) rounded up, 69 bytes per topic and two per byte of data. It
// presizes buffers; nothing depends on it for correctness.
func MaxLogJSON(l *types.Log) int {
	return 512 + 69*len(l.Topics) + 2*len(l.Data)
}

// AppendLogs appends logs as a JSON array; it is [] when logs is empty or nil, never null.
func AppendLogs(dst []byte, logs []*types.Log) []byte { return AppendLogsMs(dst, logs, nil) }

// AppendLogsMs is AppendLogs with each log's block time in milliseconds (AppendLogMs): the
// logs of one sealed Denim block.
func AppendLogsMs(dst []byte, logs []*types.Log, ms *uint64) []byte {
	dst = append(dst, '[')
	for i, l := range logs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendLogMs(dst, l, ms)
	}
	return append(dst, ']')
}

package logs

// This file is the log record of docs/format/logindex.md ("Log records"): everything
// eth_getLogs returns about the logs of one indexed block, so that a query reads one record per
// candidate block instead of its receipts, body and header. It encodes and decodes and does
// nothing else.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// logKey is the key of the log record of block number.
func logKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{logsPrefix}, number)
}

// logKeysEnd bounds the keys of log records from above (exclusive) in a DeleteRange; no
// record has it, since no block has the number math.MaxUint64.
var logKeysEnd = logKey(math.MaxUint64)

// hasLogs reports whether a block with these logs, one slice per transaction, gets a log
// record.
func hasLogs(logs [][]*types.Log) bool {
	for _, txLogs := range logs {
		if len(txLogs) > 0 {
			return true
		}
	}
	return false
}

// appendLogRecord appends the log record of the block with this hash and time, whose logs, one
// slice per transaction in block order, are logs (at least one), and whose transaction hashes
// are txHashes. Only Address, Topics and Data of the logs are read. It fails, appending
// nothing, when a transaction with logs has no hash.
func appendLogRecord(dst []byte, hash common.Hash, time uint64, logs [][]*types.Log, txHashes []common.Hash) ([]byte, error) {
	start := len(dst)
	dst = append(dst, hash[:]...)
	dst = binary.AppendUvarint(dst, time)
	for i, txLogs := range logs {
		if len(txLogs) == 0 {
			continue // transactions without logs are left out; the next entry says its index
		}
		if i >= len(txHashes) {
			return dst[:start], fmt.Errorf("logs of transaction %d, the body holds %d", i, len(txHashes))
		}
		dst = binary.AppendUvarint(dst, uint64(i))
		dst = append(dst, txHashes[i][:]...)
		dst = binary.AppendUvarint(dst, uint64(len(txLogs)))
		for _, l := range txLogs {
			dst = append(dst, l.Address[:]...)
			dst = binary.AppendUvarint(dst, uint64(len(l.Topics)))
			for _, t := range l.Topics {
				dst = append(dst, t[:]...)
			}
			dst = binary.AppendUvarint(dst, uint64(len(l.Data)))
			dst = append(dst, l.Data...)
		}
	}
	return binary.BigEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable)), nil
}

// decodeLogRecord calls fn with each log of b, the log record of block number, in block order,
// with every field eth_getLogs returns set: address, topics, data, block number, transaction
// hash and index, block hash, timestamp and log index (which counts every log of the block).
// fn gets one *types.Log, reused for the next log: it must not keep the pointer or its Topics.
// Data aliases b. The checksum is verified before fn is first called, so a damaged record
// gives ErrCorrupt without any call; a record whose checksum is right but whose content is not
// (a bug, not damage) can fail after some.
func decodeLogRecord(b []byte, number uint64, fn func(*types.Log)) error {
	if len(b) < common.HashLength+1+crcLen {
		return fmt.Errorf("%w: log record of %d bytes", ErrCorrupt, len(b))
	}
	body := b[:len(b)-crcLen]
	if binary.BigEndian.Uint32(b[len(body):]) != crc32.Checksum(body, crcTable) {
		return fmt.Errorf("%w: log record checksum", ErrCorrupt)
	}
	l := &types.Log{BlockNumber: number, BlockHash: common.Hash(body), Topics: make([]common.Hash, 0, MaxTopics)}
	body = body[common.HashLength:]
	var n int
	if l.BlockTimestamp, n = binary.Uvarint(body); n <= 0 || n == len(body) {
		return fmt.Errorf("%w: log record time", ErrCorrupt) // or no transaction
	}
	body = body[n:]
	var nextTx uint64 // the lowest index the next transaction entry may have
	for len(body) > 0 {
		tx, n := binary.Uvarint(body)
		if n <= 0 || tx < nextTx || len(body)-n < common.HashLength {
			return fmt.Errorf("%w: log record transaction after %d", ErrCorrupt, nextTx)
		}
		body = body[n:]
		l.TxIndex, l.TxHash, nextTx = uint(tx), common.Hash(body), tx+1
		body = body[common.HashLength:]
		count, n := binary.Uvarint(body)
		if n <= 0 || count == 0 {
			return fmt.Errorf("%w: log record transaction %d log count", ErrCorrupt, tx)
		}
		body = body[n:]
		for range count {
			var err error
			if body, err = decodeRecordLog(body, l); err != nil {
				return fmt.Errorf("%w: log record transaction %d log %d: %v", ErrCorrupt, tx, l.Index, err)
			}
			fn(l)
			l.Index++
		}
	}
	return nil
}

// decodeRecordLog decodes the log at the head of body into l's address, topics and data (which
// aliases body) and returns the rest of body.
func decodeRecordLog(body []byte, l *types.Log) ([]byte, error) {
	if len(body) < common.AddressLength {
		return nil, errors.New("truncated address")
	}
	l.Address = common.Address(body)
	body = body[common.AddressLength:]
	topics, n := binary.Uvarint(body)
	if n <= 0 || topics > uint64(len(body)-n)/common.HashLength {
		return nil, errors.New("topic count")
	}
	body = body[n:]
	l.Topics = l.Topics[:0]
	for range topics {
		l.Topics = append(l.Topics, common.Hash(body))
		body = body[common.HashLength:]
	}
	size, n := binary.Uvarint(body)
	if n <= 0 || size > uint64(len(body)-n) {
		return nil, errors.New("data length")
	}
	body = body[n:]
	l.Data = body[:size:size]
	return body[size:], nil
}

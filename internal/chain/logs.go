package chain

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/rlp"
)

// logIndexPrefix starts every key of the log index (internal/logs, docs/format/logindex.md) in
// the chain database. No go-ethereum key starts with it.
const logIndexPrefix = "flashrpc-logindex-"

// LogIndexStore returns the key-value space of the log index: the chain database seen through a
// table whose keys all start with a prefix of flashrpc's own, so the index shares the chain's
// Pebble instance, cache and write-ahead log but none of its keys. Writes are as durable as the
// chain's unsynced writes: the index is derived data, rebuilt from the chain when it is behind
// or damaged. The layout inside the table belongs to internal/logs. Closing the returned store
// does nothing; the chain's Close closes the database.
func (c *Chain) LogIndexStore() ethdb.KeyValueStore { return rawdb.NewTable(c.db, logIndexPrefix) }

// RawLogs returns the logs of the block with this hash and number, one slice per transaction, in
// their storage form: only Address, Topics and Data are set. Nil when the receipts are unknown
// or undecodable. It walks the stored receipts' encoding for their logs (storedLogs) instead of
// decoding the receipts, as rawdb.ReadLogs does, which also computes every receipt's bloom:
// it is the log index's read of every new block, at the block boundary. The slices belong to
// the caller; the logs' Data alias one buffer read for the call.
func (c *Chain) RawLogs(hash common.Hash, number uint64) [][]*types.Log {
	data := rawdb.ReadReceiptsRLP(c.db, hash, number)
	if len(data) == 0 {
		return nil
	}
	logs, err := storedLogs(data)
	if err != nil {
		c.log.Error("undecodable receipts", "block", number, "hash", hash, "err", err)
		return nil
	}
	return logs
}

// storedLogs returns the logs of a block's stored receipts (matchStoredLogs' format), one
// slice per receipt, with Address, Topics (never nil) and Data (aliasing receipts) set. The
// logs, and their topics, share a few allocations.
func storedLogs(receipts []byte) ([][]*types.Log, error) {
	list, _, err := rlp.SplitList(receipts)
	if err != nil {
		return nil, err
	}
	n, err := rlp.CountValues(list)
	if err != nil {
		return nil, err
	}
	var (
		out     = make([][]*types.Log, 0, n)
		all     []types.Log
		ptrs    []*types.Log
		topics  []common.Hash
		scratch = types.Log{Topics: make([]common.Hash, 0, 4)}
	)
	for txIndex := 0; len(list) > 0; txIndex++ {
		var receipt []byte
		if receipt, list, err = rlp.SplitList(list); err != nil {
			return nil, fmt.Errorf("receipt %d: %w", txIndex, err)
		}
		logs, err := storedReceiptLogs(receipt)
		if err != nil {
			return nil, fmt.Errorf("receipt %d: %w", txIndex, err)
		}
		first := len(ptrs)
		for len(logs) > 0 {
			var data []byte
			if logs, data, err = nextStoredLog(logs, &scratch); err != nil {
				return nil, fmt.Errorf("receipt %d log: %w", txIndex, err)
			}
			if len(all) == cap(all) {
				all = make([]types.Log, 0, max(64, cap(all)))
			}
			if topics == nil || len(topics)+len(scratch.Topics) > cap(topics) {
				topics = make([]common.Hash, 0, max(256, 2*len(scratch.Topics)))
			}
			start := len(topics)
			topics = append(topics, scratch.Topics...)
			all = append(all, types.Log{Address: scratch.Address, Topics: topics[start:len(topics):len(topics)], Data: data})
			ptrs = append(ptrs, &all[len(all)-1])
		}
		out = append(out, ptrs[first:len(ptrs):len(ptrs)])
	}
	return out, nil
}

// FilterLogs returns the logs of the block with this header that keep accepts: FilterBlockLogs
// with the header's hash, number and time.
func (c *Chain) FilterLogs(header *types.Header, keep func(*types.Log) bool) []*types.Log {
	return c.FilterBlockLogs(header.Hash(), header.Number.Uint64(), header.Time, keep)
}

// FilterBlockLogs returns the logs of the block with this hash and number that keep accepts, in
// block order, with every field eth_getLogs returns filled: block hash, number and timestamp
// (time, which the caller knows), transaction hash and index, log index. The block need not be
// canonical.
//
// keep is called once per log, in order, on a scratch *types.Log that is reused for the next
// one: every field but Data, the transaction hash and the timestamp is set, and keep must not
// keep the pointer. Only the kept logs are allocated. The stored receipts are walked in their
// RLP form rather than decoded, and only when a log is kept is the block body read, for
// transaction hashes taken from its encoding without decoding transactions: a block without a
// match costs one read. This is the per-block cost of eth_getLogs for blocks the log index does
// not cover (it reads its own copy of the logs for the others). The result is new and belongs
// to the caller; nil when nothing is kept or the block's receipts are unknown.
func (c *Chain) FilterBlockLogs(hash common.Hash, number, time uint64, keep func(*types.Log) bool) []*types.Log {
	data := rawdb.ReadReceiptsRLP(c.db, hash, number)
	if len(data) == 0 {
		return nil
	}
	out, err := matchStoredLogs(data, hash, number, keep)
	if err != nil {
		c.log.Error("undecodable receipts", "block", number, "hash", hash, "err", err)
		return nil
	}
	if len(out) == 0 {
		return nil
	}
	if err := fillTxHashes(out, rawdb.ReadBodyRLP(c.db, hash, number)); err != nil {
		c.log.Error("undecodable block body", "block", number, "hash", hash, "err", err)
		return nil
	}
	for _, l := range out {
		l.BlockTimestamp = time
	}
	return out
}

// matchStoredLogs walks a block's stored receipts (go-ethereum's ReceiptForStorage list:
// [status, cumulative gas, [log…]] with log = [address, [topic…], data]) and returns copies of
// the logs keep accepts, their position fields set.
func matchStoredLogs(receipts []byte, hash common.Hash, number uint64, keep func(*types.Log) bool) ([]*types.Log, error) {
	list, _, err := rlp.SplitList(receipts)
	if err != nil {
		return nil, err
	}
	var (
		out     []*types.Log
		scratch = types.Log{BlockNumber: number, BlockHash: hash, Topics: make([]common.Hash, 0, 4)}
	)
	for txIndex := 0; len(list) > 0; txIndex++ {
		var receipt []byte
		if receipt, list, err = rlp.SplitList(list); err != nil {
			return nil, fmt.Errorf("receipt %d: %w", txIndex, err)
		}
		logs, err := storedReceiptLogs(receipt)
		if err != nil {
			return nil, fmt.Errorf("receipt %d: %w", txIndex, err)
		}
		for len(logs) > 0 {
			var data []byte
			if logs, data, err = nextStoredLog(logs, &scratch); err != nil {
				return nil, fmt.Errorf("receipt %d log: %w", txIndex, err)
			}
			scratch.TxIndex = uint(txIndex)
			if keep(&scratch) {
				l := scratch
				// Never nil, as go-ethereum's decoder leaves them: JSON encodes nil topics as null.
				l.Topics = append(make([]common.Hash, 0, len(scratch.Topics)), scratch.Topics...)
				l.Data = append([]byte{}, data...)
				out = append(out, &l)
			}
			scratch.Index++
		}
	}
	return out, nil
}

// storedReceiptLogs returns the content of a stored receipt's log list.
func storedReceiptLogs(receipt []byte) ([]byte, error) {
	for range 2 { // status, cumulative gas
		_, _, rest, err := rlp.Split(receipt)
		if err != nil {
			return nil, err
		}
		receipt = rest
	}
	logs, _, err := rlp.SplitList(receipt)
	return logs, err
}

// nextStoredLog decodes the log at the head of list into l's address and topics and returns
// the rest of the list and the log's data (aliasing list).
func nextStoredLog(list []byte, l *types.Log) (rest, data []byte, err error) {
	var fields []byte
	if fields, rest, err = rlp.SplitList(list); err != nil {
		return nil, nil, err
	}
	addr, fields, err := rlp.SplitString(fields)
	if err != nil || len(addr) != common.AddressLength {
		return nil, nil, errors.Join(errors.New("bad address"), err)
	}
	l.Address = common.Address(addr)
	topics, fields, err := rlp.SplitList(fields)
	if err != nil {
		return nil, nil, err
	}
	l.Topics = l.Topics[:0]
	for len(topics) > 0 {
		var t []byte
		if t, topics, err = rlp.SplitString(topics); err != nil || len(t) != common.HashLength {
			return nil, nil, errors.Join(errors.New("bad topic"), err)
		}
		l.Topics = append(l.Topics, common.Hash(t))
	}
	if data, _, err = rlp.SplitString(fields); err != nil {
		return nil, nil, err
	}
	return rest, data, nil
}

// TxHashes returns the hashes of the transactions of the block with this hash and number, in
// block order, taken from the body's encoding without decoding transactions (see nextTx).
// Nil when the body is unknown or undecodable; empty for a block without transactions. The log
// index stores them beside the logs, so a query needs no body read. The slice belongs to the
// caller.
func (c *Chain) TxHashes(hash common.Hash, number uint64) []common.Hash {
	body := rawdb.ReadBodyRLP(c.db, hash, number)
	if len(body) == 0 {
		return nil
	}
	txs, err := bodyTransactions(body)
	if err != nil {
		c.log.Error("undecodable block body", "block", number, "hash", hash, "err", err)
		return nil
	}
	out := []common.Hash{}
	for len(txs) > 0 {
		var tx []byte
		if tx, txs, err = nextTx(txs); err != nil {
			c.log.Error("undecodable block body", "block", number, "hash", hash, "err", err)
			return nil
		}
		out = append(out, crypto.Keccak256Hash(tx))
	}
	return out
}

// fillTxHashes sets each log's TxHash from the block body's encoding. Logs must be in block
// order.
func fillTxHashes(logs []*types.Log, body []byte) error {
	txs, err := bodyTransactions(body)
	if err != nil {
		return err
	}
	var (
		index = -1
		hash  common.Hash
	)
	for _, l := range logs {
		for index < int(l.TxIndex) {
			if len(txs) == 0 {
				return fmt.Errorf("log of transaction %d, body holds %d", l.TxIndex, index+1)
			}
			var tx []byte
			if tx, txs, err = nextTx(txs); err != nil {
				return err
			}
			if index++; index == int(l.TxIndex) {
				hash = crypto.Keccak256Hash(tx)
			}
		}
		l.TxHash = hash
	}
	return nil
}

// bodyTransactions returns the content of a stored body's transaction list.
func bodyTransactions(body []byte) ([]byte, error) {
	fields, _, err := rlp.SplitList(body)
	if err != nil {
		return nil, err
	}
	txs, _, err := rlp.SplitList(fields)
	return txs, err
}

// nextTx splits the transaction at the head of txs, the content of a body's transaction list,
// and returns the bytes its hash is the Keccak-256 of, and the rest of the list: a typed
// transaction's envelope (the body holds it as a byte string), a legacy one's RLP list.
func nextTx(txs []byte) (hashed, rest []byte, err error) {
	kind, content, rest, err := rlp.Split(txs)
	if err != nil {
		return nil, nil, err
	}
	if kind == rlp.List {
		return txs[:len(txs)-len(rest)], rest, nil
	}
	return content, rest, nil
}

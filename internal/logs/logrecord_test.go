package logs

import (
	"encoding/binary"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// randomRecordBlock draws a block for the log record tests: transactions with and without
// logs, logs of 0…5 topics (more than the EVM emits: the record keeps any number) and data of
// 0…299 bytes.
func randomRecordBlock(rng *rand.Rand) *fakeBlock {
	h := &types.Header{Number: big.NewInt(rng.Int64N(1 << 40)), Time: rng.Uint64()}
	b := &fakeBlock{header: h, hash: common.Hash{byte(rng.Uint32()), byte(rng.Uint32())}}
	for range 1 + rng.IntN(200) {
		var txLogs []*types.Log
		for range rng.IntN(3) * rng.IntN(4) {
			l := &types.Log{Address: common.Address{byte(rng.Uint32())}, Data: make([]byte, rng.IntN(300))}
			for range rng.IntN(6) {
				l.Topics = append(l.Topics, common.Hash{byte(rng.Uint32()), 1})
			}
			for i := range l.Data {
				l.Data[i] = byte(rng.Uint32())
			}
			txLogs = append(txLogs, l)
		}
		b.logs = append(b.logs, txLogs)
		b.txHashes = append(b.txHashes, common.Hash{byte(rng.Uint32()), 2})
	}
	return b
}

// decodeAll decodes a log record into copies of its logs.
func decodeAll(rec []byte, number uint64) ([]types.Log, error) {
	var out []types.Log
	err := decodeLogRecord(rec, number, func(l *types.Log) {
		c := *l
		c.Topics = slices.Clone(l.Topics)
		out = append(out, c)
	})
	return out, err
}

func TestLogRecordRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < 500; i++ {
		b := randomRecordBlock(rng)
		if !hasLogs(b.logs) {
			continue
		}
		rec, err := appendLogRecord([]byte("prefix"), b.hash, b.header.Time, b.logs, b.txHashes)
		if err != nil {
			t.Fatal(err)
		}
		if string(rec[:6]) != "prefix" {
			t.Fatalf("appendLogRecord overwrote dst: %q", rec[:6])
		}
		got, err := decodeAll(rec[6:], b.header.Number.Uint64())
		if want := blockLogs(b); err != nil || !sameLogs(got, want) {
			t.Fatalf("block %d: got %+v, %v\nwant %+v", i, got, err, want)
		}
	}
}

// TestLogRecordTopicsNeverNil checks that a log without topics decodes with an empty, not nil,
// topic list, as the scan returns it: JSON prints nil as null.
func TestLogRecordTopicsNeverNil(t *testing.T) {
	t.Parallel()
	rec, err := appendLogRecord(nil, common.Hash{1}, 5, [][]*types.Log{{{Address: common.Address{2}}}}, []common.Hash{{3}})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	err = decodeLogRecord(rec, 9, func(l *types.Log) {
		calls++
		if l.Topics == nil || len(l.Topics) != 0 || len(l.Data) != 0 {
			t.Errorf("topics %#v, data %#v", l.Topics, l.Data)
		}
	})
	if err != nil || calls != 1 {
		t.Fatalf("%d calls, %v", calls, err)
	}
}

func TestLogRecordNeedsTxHashes(t *testing.T) {
	t.Parallel()
	logs := [][]*types.Log{{{Address: common.Address{1}}}, nil, {{Address: common.Address{2}}}}
	if rec, err := appendLogRecord([]byte{9}, common.Hash{}, 0, logs, []common.Hash{{1}, {2}}); err == nil || !slices.Equal(rec, []byte{9}) {
		t.Fatalf("transaction 2 has logs and no hash: got %x, %v; want an error and dst unchanged", rec, err)
	}
	if _, err := appendLogRecord(nil, common.Hash{}, 0, logs, []common.Hash{{1}, {2}, {3}}); err != nil {
		t.Fatal(err)
	}
}

func TestLogRecordRefusesDamage(t *testing.T) {
	t.Parallel()
	logs := [][]*types.Log{nil, {{Address: common.Address{1}, Topics: []common.Hash{{2}}, Data: []byte{3, 4}}}}
	good, err := appendLogRecord(nil, common.Hash{5}, 1_000, logs, []common.Hash{{6}, {7}})
	if err != nil {
		t.Fatal(err)
	}
	// Records whose checksum is right but whose content is not, built from their parts.
	resum := func(parts ...[]byte) []byte {
		body := slices.Concat(parts...)
		return binary.BigEndian.AppendUint32(body, checksum(body))
	}
	head := slices.Concat(make([]byte, 32), binary.AppendUvarint(nil, 1_000)) // hash, time
	tx := func(index, logs uint64) []byte {
		return slices.Concat(binary.AppendUvarint(nil, index), make([]byte, 32), binary.AppendUvarint(nil, logs))
	}
	log := func(topics, size uint64, rest int) []byte { // address, topic count, topics, data length, rest bytes
		return slices.Concat(make([]byte, 20), binary.AppendUvarint(nil, topics), make([]byte, 32*min(topics, 2)),
			binary.AppendUvarint(nil, size), make([]byte, rest))
	}
	if _, err := decodeAll(resum(head, tx(1, 1), log(2, 3, 3)), 1); err != nil {
		t.Fatalf("the parts do not make a good record: %v", err)
	}
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)-1]},
		{"too short", good[:20]},
		{"flipped hash", flip(good, 3)},
		{"flipped data", flip(good, len(good)-5)},
		{"flipped checksum", flip(good, len(good)-1)},
		{"no transaction", resum(head)},
		{"truncated transaction", resum(head, tx(1, 1)[:20])},
		{"transaction without logs", resum(head, tx(1, 0), log(0, 0, 0))},
		{"transaction index repeated", resum(head, tx(1, 1), log(0, 0, 0), tx(1, 1), log(0, 0, 0))},
		{"transaction index decreasing", resum(head, tx(2, 1), log(0, 0, 0), tx(1, 1), log(0, 0, 0))},
		{"fewer logs than counted", resum(head, tx(1, 2), log(0, 0, 0))},
		{"truncated address", resum(head, tx(1, 1), make([]byte, 19))},
		{"topic count past the end", resum(head, tx(1, 1), log(3, 0, 0))},
		{"data length past the end", resum(head, tx(1, 1), log(0, 4, 3))},
		{"trailing bytes", resum(head, tx(1, 1), log(0, 0, 1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := decodeAll(c.b, 1); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
		})
	}
	// Damage anywhere is caught by the checksum, before any log is handed out.
	for i := range good {
		calls := 0
		if err := decodeLogRecord(flip(good, i), 1, func(*types.Log) { calls++ }); !errors.Is(err, ErrCorrupt) || calls != 0 {
			t.Fatalf("byte %d flipped: %v after %d logs, want ErrCorrupt before any", i, err, calls)
		}
	}
}

// BenchmarkDecodeLogRecord measures reading the logs of a block from its record, as a query
// does for every candidate block: a block of 5 transactions with 1 or 3 logs each (a Transfer,
// or a swap's two Transfers and Swap: 3 topics, 32 or 128 bytes of data), as the generated
// benchmark chain has.
func BenchmarkDecodeLogRecord(b *testing.B) {
	var logs [][]*types.Log
	var txHashes []common.Hash
	for i := range 5 {
		transfer := &types.Log{Address: common.Address{byte(i)}, Topics: []common.Hash{{1}, {2}, {3}}, Data: make([]byte, 32)}
		txLogs := []*types.Log{transfer}
		if i%2 == 0 {
			swap := &types.Log{Address: common.Address{9}, Topics: []common.Hash{{4}, {5}, {6}}, Data: make([]byte, 128)}
			txLogs = append(txLogs, transfer, swap)
		}
		logs = append(logs, txLogs)
		txHashes = append(txHashes, common.Hash{byte(i)})
	}
	rec, err := appendLogRecord(nil, common.Hash{1}, 1, logs, txHashes)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(rec)))
	var found int
	for b.Loop() {
		found = 0
		if err := decodeLogRecord(rec, 7, func(l *types.Log) {
			if l.Address == (common.Address{9}) {
				found++
			}
		}); err != nil {
			b.Fatal(err)
		}
	}
	if found != 3 {
		b.Fatalf("found %d swaps, want 3", found)
	}
}

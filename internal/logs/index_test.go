package logs

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
)

// fakeChain is an in-memory chain for the index's tests: blocks of random logs over a small
// population, so that filters match often, with one address in nearly every block so that its
// posting list spans several chunks. Some transactions and blocks have no logs. It can be
// rewound and forked. Safe for concurrent use.
type fakeChain struct {
	mu     sync.Mutex
	blocks []*fakeBlock // the canonical chain, by number
	fork   uint64       // varies the blocks of each fork
}

type fakeBlock struct {
	header   *types.Header
	hash     common.Hash
	logs     [][]*types.Log // one slice per transaction
	txHashes []common.Hash
}

var (
	testAddrs  = []common.Address{{0xa0}, {0xa1}, {0xa2}, {0xa3}, {0xa4}, {0xa5}}
	testTopics = []common.Hash{{0x10}, {0x11}, {0x12}, {0x13}, {0x14}, {0x15}, {0x16}}
	absentAddr = common.Address{0xff}
	absentHash = common.Hash{0xff}
)

func newFakeChain() *fakeChain {
	c := &fakeChain{}
	h := &types.Header{Number: new(big.Int)}
	c.blocks = []*fakeBlock{{header: h, hash: h.Hash()}}
	return c
}

func (c *fakeChain) extend(rng *rand.Rand, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for range n {
		parent := c.blocks[len(c.blocks)-1]
		h := &types.Header{Number: big.NewInt(int64(len(c.blocks))), ParentHash: parent.hash, Extra: big.NewInt(int64(c.fork)).Bytes(),
			Time: parent.header.Time + uint64(rng.IntN(3))}
		b := &fakeBlock{header: h, hash: h.Hash()}
		for range rng.IntN(4) {
			var txLogs []*types.Log
			for range rng.IntN(4) {
				l := &types.Log{Address: testAddrs[0], Data: make([]byte, rng.IntN(3)*rng.IntN(100))}
				for i := range l.Data {
					l.Data[i] = byte(rng.Uint32())
				}
				if rng.IntN(2) == 0 {
					l.Address = testAddrs[rng.IntN(len(testAddrs))]
				}
				for range rng.IntN(5) {
					l.Topics = append(l.Topics, testTopics[rng.IntN(len(testTopics))])
				}
				txLogs = append(txLogs, l)
			}
			b.logs = append(b.logs, txLogs)
			b.txHashes = append(b.txHashes, common.Hash{0x7c, byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())})
		}
		c.blocks = append(c.blocks, b)
	}
}

// reorg replaces the blocks above to with n new ones.
func (c *fakeChain) reorg(rng *rand.Rand, to uint64, n int) {
	c.mu.Lock()
	c.blocks = c.blocks[:to+1]
	c.fork++
	c.mu.Unlock()
	c.extend(rng, n)
}

func (c *fakeChain) Head() *types.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.blocks[len(c.blocks)-1].header
}

func (c *fakeChain) block(n uint64) *fakeBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= uint64(len(c.blocks)) {
		return nil
	}
	return c.blocks[n]
}

func (c *fakeChain) HeaderByNumber(n uint64) *types.Header {
	if b := c.block(n); b != nil {
		return b.header
	}
	return nil
}

func (c *fakeChain) CanonicalHash(n uint64) common.Hash {
	if b := c.block(n); b != nil {
		return b.hash
	}
	return common.Hash{}
}

func (c *fakeChain) RawLogs(hash common.Hash, n uint64) [][]*types.Log {
	if b := c.block(n); b != nil && b.hash == hash {
		return b.logs
	}
	return nil
}

func (c *fakeChain) TxHashes(hash common.Hash, n uint64) []common.Hash {
	if b := c.block(n); b != nil && b.hash == hash {
		return b.txHashes
	}
	return nil
}

// blockLogs returns what eth_getLogs returns of block b's logs: every field set, log indexes
// counting all logs of the block.
func blockLogs(b *fakeBlock) []types.Log {
	var out []types.Log
	for i, txLogs := range b.logs {
		for _, l := range txLogs {
			out = append(out, types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data,
				BlockNumber: b.header.Number.Uint64(), TxHash: b.txHashes[i], TxIndex: uint(i),
				BlockHash: b.hash, BlockTimestamp: b.header.Time, Index: uint(len(out))})
		}
	}
	return out
}

// searchLogs returns the logs BlockLogs gives of block n, copied.
func searchLogs(t *testing.T, s *Search, n uint64) []types.Log {
	t.Helper()
	var out []types.Log
	if err := s.BlockLogs(n, func(l *types.Log) {
		c := *l
		c.Topics = slices.Clone(l.Topics)
		out = append(out, c)
	}); err != nil {
		t.Fatalf("block %d: %v", n, err)
	}
	return out
}

// sameLogs compares logs field by field; nil and empty topics and data are the same here (the
// API's tests compare JSON, which tells them apart).
func sameLogs(a, b []types.Log) bool {
	return slices.EqualFunc(a, b, func(x, y types.Log) bool {
		return x.Address == y.Address && slices.Equal(x.Topics, y.Topics) && bytes.Equal(x.Data, y.Data) &&
			x.BlockNumber == y.BlockNumber && x.TxHash == y.TxHash && x.TxIndex == y.TxIndex &&
			x.BlockHash == y.BlockHash && x.BlockTimestamp == y.BlockTimestamp && x.Index == y.Index && !x.Removed && !y.Removed
	})
}

// mayMatch is what the index promises about a block: every constrained place (the address
// list, each topic position) is satisfied by some log of the block, not necessarily the same;
// when the filter names addresses and topic 0, one log has both.
func mayMatch(b *fakeBlock, crit *Criteria) bool {
	var all []*types.Log
	for _, txLogs := range b.logs {
		all = append(all, txLogs...)
	}
	if len(all) == 0 {
		return false
	}
	if len(crit.Addresses) > 0 && !slices.ContainsFunc(all, func(l *types.Log) bool { return slices.Contains(crit.Addresses, l.Address) }) {
		return false
	}
	if len(crit.Addresses) > 0 && len(crit.Topics) > 0 && len(crit.Topics[0]) > 0 && !slices.ContainsFunc(all, func(l *types.Log) bool {
		return slices.Contains(crit.Addresses, l.Address) && len(l.Topics) > 0 && slices.Contains(crit.Topics[0], l.Topics[0])
	}) {
		return false
	}
	for pos, alts := range crit.Topics {
		if len(alts) > 0 && !slices.ContainsFunc(all, func(l *types.Log) bool { return pos < len(l.Topics) && slices.Contains(alts, l.Topics[pos]) }) {
			return false
		}
	}
	return true
}

func randomCriteria(rng *rand.Rand) *Criteria {
	crit := new(Criteria)
	for range rng.IntN(3) {
		a := testAddrs[rng.IntN(len(testAddrs))]
		if rng.IntN(8) == 0 {
			a = absentAddr
		}
		crit.Addresses = append(crit.Addresses, a)
	}
	if n := rng.IntN(5); n > 0 {
		crit.Topics = make([][]common.Hash, n)
		for pos := range crit.Topics {
			for range rng.IntN(3) {
				t := testTopics[rng.IntN(len(testTopics))]
				if rng.IntN(8) == 0 {
					t = absentHash
				}
				crit.Topics[pos] = append(crit.Topics[pos], t)
			}
		}
	}
	return crit
}

// checkQueries runs random searches and checks them against the chain. Blocks the search names
// plus the blocks it leaves to scan must include every block that may match (no false
// negatives, at any moment). With exact, the index must also be complete and name exactly
// those blocks (no false positives: there was no reorganisation).
func checkQueries(t *testing.T, rng *rand.Rand, ix *Index, c *fakeChain, exact bool) {
	t.Helper()
	head := c.Head().Number.Uint64()
	for q := range 300 {
		crit := randomCriteria(rng)
		first := rng.Uint64N(head + 1)
		last := first + rng.Uint64N(head+1-first)
		if q%10 == 0 {
			first, last = 0, head
		}
		s := ix.Search(crit, first, last)
		got := collect(t, s.Blocks)
		for _, n := range got {
			// The logs the index holds of a block it names are the canonical block's, all of
			// them (none when a reorganisation left the block named without logs).
			if have, want := searchLogs(t, s, n), blockLogs(c.block(n)); !sameLogs(have, want) {
				t.Fatalf("query %d: block %d: index has logs\n%+v\nchain\n%+v", q, n, have, want)
			}
		}
		s.Close()
		var want []uint64
		for n := first; n <= last; n++ {
			if mayMatch(c.block(n), crit) {
				want = append(want, n)
			}
		}
		if exact {
			if s.ScanFrom != last+1 || !slices.Equal(got, want) {
				t.Fatalf("query %d %+v [%d, %d]: got %v scan from %d, want %v", q, crit, first, last, got, s.ScanFrom, want)
			}
			continue
		}
		for _, n := range want {
			if n < s.ScanFrom && !slices.Contains(got, n) {
				t.Fatalf("query %d %+v [%d, %d]: block %d missing (got %v, scan from %d)", q, crit, first, last, n, got, s.ScanFrom)
			}
		}
	}
}

// lockedBuffer collects log output from the index's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func openTestIndex(t *testing.T, store Store, c *fakeChain) (*Index, *lockedBuffer) {
	t.Helper()
	out := new(lockedBuffer)
	ix, err := OpenIndex(IndexConfig{Store: store, Chain: c, Logger: slog.New(slog.NewTextHandler(out, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, out
}

func syncIndex(t *testing.T, ix *Index) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestIndexMatchesChain(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	c := newFakeChain()
	c.extend(rng, 3000) // the busy address's list spans three chunks
	ix, _ := openTestIndex(t, memorydb.New(), c)
	checkQueries(t, rng, ix, c, false) // while it builds
	syncIndex(t, ix)
	checkQueries(t, rng, ix, c, true)

	// New blocks, one at a time as the node seals them.
	for range 50 {
		c.extend(rng, 1)
		ix.Notify()
	}
	syncIndex(t, ix)
	checkQueries(t, rng, ix, c, true)
}

func TestIndexFollowsReorganisations(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	c := newFakeChain()
	c.extend(rng, 3000)
	store := memorydb.New()
	ix, out := openTestIndex(t, store, c)
	syncIndex(t, ix)
	for _, r := range []struct {
		to    uint64
		added int
	}{
		{2990, 5},   // a short reorganisation, above the last checkpoint
		{2047, 900}, // just below a checkpoint: posting lists lose chunks
		{500, 100},  // rewound far, shorter than before
		{600, 3000}, // and back to a longer chain
	} {
		c.reorg(rng, r.to, r.added)
		checkQueries(t, rng, ix, c, false) // before the index notices
		ix.Notify()
		syncIndex(t, ix)
		checkQueries(t, rng, ix, c, false)
		checkRecords(t, store, c)
	}
	if !strings.Contains(out.String(), "rolled back") {
		t.Fatalf("no rollback logged:\n%s", out)
	}
}

func TestIndexPersists(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	c := newFakeChain()
	c.extend(rng, 1500)
	store := memorydb.New()
	ix, _ := openTestIndex(t, store, c)
	syncIndex(t, ix)
	ix.Close()

	ix, out := openTestIndex(t, store, c)
	if last, ok := ix.Indexed(); !ok || last != 1500 {
		t.Fatalf("reopened index covers %d (%v), want 1500", last, ok)
	}
	c.extend(rng, 100)
	syncIndex(t, ix)
	checkQueries(t, rng, ix, c, true)
	if strings.Contains(out.String(), "deleting") {
		t.Fatalf("a sound index was rebuilt:\n%s", out)
	}
}

// TestIndexRecovers damages the store in the ways a crash, a bug or a format change would,
// and checks that the index is rebuilt or repaired and answers exactly again.
func TestIndexRecovers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		damage  func(t *testing.T, store Store, c *fakeChain)
		rebuild bool // the whole index is deleted and built again
	}{
		{"meta of another version", func(t *testing.T, store Store, c *fakeChain) {
			b := encodeMeta(meta{next: 10, head: c.CanonicalHash(9)})
			b[5]++ // version, big-endian low byte
			b = append(b[:metaLen-crcLen], 0, 0, 0, 0)
			putChecksum(b)
			mustPut(t, store, []byte(metaKey), b)
		}, true},
		{"meta damaged", func(t *testing.T, store Store, c *fakeChain) {
			mustPut(t, store, []byte(metaKey), []byte("garbage"))
		}, true},
		{"meta missing", func(t *testing.T, store Store, c *fakeChain) {
			if err := store.(*memorydb.Database).Delete([]byte(metaKey)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"crash before the meta record of the last update", func(t *testing.T, store Store, c *fakeChain) {
			// The postings of blocks 1300…2000 are written, the meta record still names 1299.
			mustPut(t, store, []byte(metaKey), encodeMeta(meta{next: 1300, head: c.CanonicalHash(1299)}))
		}, false},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(4, uint64(i)))
			c := newFakeChain()
			c.extend(rng, 2000)
			store := memorydb.New()
			ix, _ := openTestIndex(t, store, c)
			syncIndex(t, ix)
			ix.Close()
			tc.damage(t, store, c)

			ix, out := openTestIndex(t, store, c)
			syncIndex(t, ix)
			checkQueries(t, rng, ix, c, true)
			if rebuilt := strings.Contains(out.String(), "deleting it to build it again"); rebuilt != tc.rebuild {
				t.Fatalf("rebuilt %v, want %v:\n%s", rebuilt, tc.rebuild, out)
			}
		})
	}
}

// TestIndexRebuildsDamagedChunk flips a byte of a posting chunk: the query that meets it fails
// (its caller scans), and the index is rebuilt.
func TestIndexRebuildsDamagedChunk(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	c := newFakeChain()
	c.extend(rng, 2000)
	store := memorydb.New()
	ix, out := openTestIndex(t, store, c)
	syncIndex(t, ix)

	key := chunkKey(listKey(kindAny, nil), openChunk)
	val, err := store.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, store, key, flip(val, 1))
	s := ix.Search(&Criteria{}, 0, 2000)
	for s.Blocks.Next() {
	}
	if !isCorrupt(s.Blocks.Err()) {
		t.Fatalf("search over a damaged chunk: error %v, want ErrCorrupt", s.Blocks.Err())
	}
	s.Close()
	syncIndex(t, ix)
	checkQueries(t, rng, ix, c, true)
	if !strings.Contains(out.String(), "damaged") || !strings.Contains(out.String(), "deleting it to build it again") {
		t.Fatalf("damage not logged or not rebuilt:\n%s", out)
	}
}

// checkRecords checks the log records of a synced index: one for every block with logs, equal
// to the chain's, and none for any other block, above the head included (left by a rollback).
func checkRecords(t *testing.T, store Store, c *fakeChain) {
	t.Helper()
	head := c.Head().Number.Uint64()
	it := store.NewIterator([]byte{logsPrefix}, nil)
	defer it.Release()
	var n uint64
	for it.Next() {
		got := chunkLast(it.Key())
		for ; n < got; n++ {
			if hasLogs(c.block(n).logs) {
				t.Fatalf("block %d has logs and no record", n)
			}
		}
		if got > head || !hasLogs(c.block(got).logs) {
			t.Fatalf("record of block %d, which has no logs (head %d)", got, head)
		}
		logs, err := decodeAll(it.Value(), got)
		if want := blockLogs(c.block(got)); err != nil || !sameLogs(logs, want) {
			t.Fatalf("record of block %d: %+v, %v; want %+v", got, logs, err, want)
		}
		n = got + 1
	}
	for ; n <= head; n++ {
		if hasLogs(c.block(n).logs) {
			t.Fatalf("block %d has logs and no record", n)
		}
	}
}

// TestIndexDropsStrayRecords leaves, as a crash between an update's records and its meta
// record would, records above the indexed blocks, one of them for a block that has no logs
// (the chain was reorganised meanwhile) and so will not be overwritten: the next update must
// delete it.
func TestIndexDropsStrayRecords(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	c := newFakeChain()
	c.extend(rng, 1500)
	store := memorydb.New()
	ix, _ := openTestIndex(t, store, c)
	syncIndex(t, ix)
	ix.Close()
	mustPut(t, store, []byte(metaKey), encodeMeta(meta{next: 1000, head: c.CanonicalHash(999)}))
	var empty uint64
	for n := uint64(1000); n <= 1500 && empty == 0; n++ {
		if !hasLogs(c.block(n).logs) {
			empty = n
		}
	}
	if empty == 0 {
		t.Fatal("no block without logs among 1000…1500")
	}
	stray, err := appendLogRecord(nil, common.Hash{1}, 1, [][]*types.Log{{{Address: testAddrs[0]}}}, []common.Hash{{2}})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, store, logKey(empty), stray)
	mustPut(t, store, logKey(1600), stray) // above the head

	ix, _ = openTestIndex(t, store, c)
	syncIndex(t, ix)
	checkRecords(t, store, c)
	checkQueries(t, rng, ix, c, true)
}

// TestIndexRebuildsDamagedRecord flips a byte of a log record: the query that reads it gets
// ErrCorrupt (its caller scans), and the index is rebuilt.
func TestIndexRebuildsDamagedRecord(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	c := newFakeChain()
	c.extend(rng, 2000)
	store := memorydb.New()
	ix, out := openTestIndex(t, store, c)
	syncIndex(t, ix)

	s := ix.Search(&Criteria{}, 1500, 2000)
	if !s.Blocks.Next() {
		t.Fatal("no block with logs in 1500…2000")
	}
	n := s.Blocks.At()
	val, err := store.Get(logKey(n))
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, store, logKey(n), flip(val, len(val)/2))
	if err := s.BlockLogs(n, func(*types.Log) { t.Fatal("a log of a damaged record") }); !isCorrupt(err) {
		t.Fatalf("reading a damaged record: error %v, want ErrCorrupt", err)
	}
	s.Close()
	syncIndex(t, ix)
	checkQueries(t, rng, ix, c, true)
	checkRecords(t, store, c)
	if !strings.Contains(out.String(), "damaged") || !strings.Contains(out.String(), "deleting it to build it again") {
		t.Fatalf("damage not logged or not rebuilt:\n%s", out)
	}
}

func mustPut(t *testing.T, store Store, key, val []byte) {
	t.Helper()
	if err := store.(*memorydb.Database).Put(key, val); err != nil {
		t.Fatal(err)
	}
}

func putChecksum(b []byte) {
	sum := checksum(b[:len(b)-crcLen])
	b[len(b)-4], b[len(b)-3], b[len(b)-2], b[len(b)-1] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
}

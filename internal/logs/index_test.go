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
// posting list spans several chunks. It can be rewound and forked. Safe for concurrent use.
type fakeChain struct {
	mu     sync.Mutex
	blocks []*fakeBlock // the canonical chain, by number
	fork   uint64       // varies the blocks of each fork
}

type fakeBlock struct {
	header *types.Header
	hash   common.Hash
	logs   [][]*types.Log
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
				l := &types.Log{Address: testAddrs[0]}
				if rng.IntN(2) == 0 {
					l.Address = testAddrs[rng.IntN(len(testAddrs))]
				}
				for range rng.IntN(5) {
					l.Topics = append(l.Topics, testTopics[rng.IntN(len(testTopics))])
				}
				txLogs = append(txLogs, l)
			}
			b.logs = append(b.logs, txLogs)
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
			// What the index says of a block it names is the canonical block's.
			b := c.block(n)
			if hash, time, ok := s.Block(n); !ok || hash != b.hash || time != b.header.Time {
				t.Fatalf("query %d: block %d: index says %x at %d (%v), chain %x at %d", q, n, hash, time, ok, b.hash, b.header.Time)
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
	ix, out := openTestIndex(t, memorydb.New(), c)
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

package logs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethdb/pebble"
)

// benchBlocks is the length of the benchmarks' synthetic chain.
const benchBlocks = 1_000_000

var (
	benchOnce  sync.Once
	benchStore Store
	// Lists of the synthetic chain, by how often a block holds their value.
	benchHot    = common.Hash{0x01} // every block (an event signature like Transfer)
	benchMedium = common.Hash{0x02} // one block in 10
	benchRare   = common.Hash{0x03} // one block in 10,000
	benchAddr   = common.Address{0x04}
)

// benchPebble opens a Pebble database in a temporary directory, as the node's (same cache).
func benchPebble(b *testing.B, dir string) Store {
	db, err := pebble.New(dir, 64, 256, "", false)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// benchIndex writes the posting lists of a synthetic chain into a Pebble database (kept open
// for the process): per block one log with the hot topic, sometimes the medium and rare ones
// at position 1, and the address in one block in 50.
func benchIndex(b *testing.B) Store {
	benchOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 1))
		dir, err := os.MkdirTemp("", "flashrpc-logs-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchStore = benchPebble(b, dir)
		w := newWriter(benchStore)
		defer w.close()
		for n := range uint64(benchBlocks) {
			l := &types.Log{Address: common.Address{0xee}, Topics: []common.Hash{benchHot}}
			if rng.IntN(10) == 0 {
				l.Topics = append(l.Topics, benchMedium)
			} else if rng.IntN(10_000) == 0 {
				l.Topics = append(l.Topics, benchRare)
			}
			if rng.IntN(50) == 0 {
				l.Address = benchAddr
			}
			if err := w.add(n, common.Hash{}, n, [][]*types.Log{{l}}, []common.Hash{{}}); err != nil {
				b.Fatal(err)
			}
			if w.entries >= flushEntries {
				if _, err := w.flush(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if _, err := w.flush(); err != nil {
			b.Fatal(err)
		}
	})
	return benchStore
}

// BenchmarkSearch measures the index alone: iterating the candidate blocks of a filter over
// ranges of the synthetic chain (no receipts are read).
func BenchmarkSearch(b *testing.B) {
	store := benchIndex(b)
	queries := []struct {
		name string
		crit Criteria
	}{
		{"rare", Criteria{Topics: [][]common.Hash{nil, {benchRare}}}},
		{"address", Criteria{Addresses: []common.Address{benchAddr}}},
		{"hot-and-rare", Criteria{Topics: [][]common.Hash{{benchHot}, {benchRare}}}},
		{"address-and-medium", Criteria{Addresses: []common.Address{benchAddr}, Topics: [][]common.Hash{nil, {benchMedium}}}},
		{"hot", Criteria{Topics: [][]common.Hash{{benchHot}}}},
	}
	for _, q := range queries {
		for _, width := range []uint64{1_000, 10_000, 100_000, benchBlocks} {
			b.Run(fmt.Sprintf("query=%s/range=%d", q.name, width), func(b *testing.B) {
				b.ReportAllocs()
				first := uint64(benchBlocks) - width
				var count int
				for b.Loop() {
					r := newReader(store)
					p := Bound(r.match(&q.crit), first, benchBlocks-1)
					count = 0
					for p.Next() {
						count++
					}
					if p.Err() != nil {
						b.Fatal(p.Err())
					}
					r.Close()
				}
				b.ReportMetric(float64(count), "blocks/op")
			})
		}
	}
}

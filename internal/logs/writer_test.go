package logs

import (
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// BenchmarkAppendBlock measures indexing one sealed block of 10 logs (30 posting entries and
// its log record) on top of lists that already hold entries, as the node does after every
// block.
func BenchmarkAppendBlock(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	addrs := make([]common.Address, 100)
	topics := make([]common.Hash, 1000)
	for i := range addrs {
		addrs[i] = common.Address{byte(i), 1}
	}
	for i := range topics {
		topics[i] = common.Hash{byte(i), byte(i >> 8), 2}
	}
	block := func() [][]*types.Log {
		var logs []*types.Log
		for range 10 {
			logs = append(logs, &types.Log{Address: addrs[rng.IntN(len(addrs))], Topics: []common.Hash{topics[0], topics[rng.IntN(len(topics))]}})
		}
		return [][]*types.Log{logs}
	}
	store := benchPebble(b, b.TempDir())
	defer store.(interface{ Close() error }).Close()
	w := newWriter(store)
	defer w.close()
	n := uint64(0)
	txHashes := []common.Hash{{1}}
	for ; n < 50_000; n++ {
		if err := w.add(n, common.Hash{}, n, block(), txHashes); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.add(n, common.Hash{}, n, block(), txHashes); err != nil {
			b.Fatal(err)
		}
		if _, err := w.flush(); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

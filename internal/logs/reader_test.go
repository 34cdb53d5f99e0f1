package logs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/ethdb/memorydb"
)

// writeList appends entries to the list of (kind, value) in flushes of the given sizes, as
// the indexer would over several catch-ups.
func writeList(t *testing.T, store Store, value []byte, entries []uint64, flushEvery int) {
	t.Helper()
	w := newWriter(store)
	for i, n := range entries {
		w.addKey(n, kindAddress, value)
		w.next = n + 1
		if (i+1)%flushEvery == 0 || i == len(entries)-1 {
			if _, err := w.flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestChunkPostingsSeek checks Next and Seek over a list of many chunks against the list
// itself, with seeks that land on chunk boundaries, inside chunks, in gaps and past the end.
func TestChunkPostingsSeek(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(6, 6))
	store := memorydb.New()
	list := randomSet(rng, 12_000, 200_000)
	writeList(t, store, []byte("an-address-of-20byte"), list, 777)
	// Targets: chunk ends and starts, their neighbours, and random values.
	var targets []uint64
	for i := 0; i < len(list); i += chunkEntries {
		for _, j := range []int{i - 1, i, i + 1, i + chunkEntries - 1} {
			if j >= 0 && j < len(list) {
				targets = append(targets, list[j]-1, list[j], list[j]+1)
			}
		}
	}
	for range 200 {
		targets = append(targets, rng.Uint64N(210_000))
	}
	for round := range 300 {
		r := newReader(store)
		p := r.postings(kindAddress, []byte("an-address-of-20byte"))
		pos := -1
		for range 30 {
			if rng.IntN(4) == 0 {
				ok := p.Next()
				pos++
				if ok != (pos < len(list)) || (ok && p.At() != list[pos]) {
					t.Fatalf("round %d: Next to index %d: %v", round, pos, ok)
				}
				if !ok {
					break
				}
				continue
			}
			v := targets[rng.IntN(len(targets))]
			if rng.IntN(2) == 0 && pos >= 0 && pos < len(list) {
				v = list[pos] + uint64(rng.IntN(3*chunkEntries)) // a short hop forward
			}
			ok := p.Seek(v)
			pos = max(pos, 0)
			pos += searchFrom(list[pos:], 0, len(list)-pos, v)
			if ok != (pos < len(list)) || (ok && p.At() != list[pos]) {
				t.Fatalf("round %d: Seek(%d): %v, want index %d", round, v, ok, pos)
			}
			if !ok {
				break
			}
		}
		if p.Err() != nil {
			t.Fatal(p.Err())
		}
		r.Close()
	}
	r := newReader(store)
	defer r.Close()
	if got := collect(t, r.postings(kindAddress, []byte("an-address-of-20byte"))); !slices.Equal(got, list) {
		t.Fatalf("read back %d entries, wrote %d", len(got), len(list))
	}
}

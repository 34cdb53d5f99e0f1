package logs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// collect drains p.
func collect(t *testing.T, p Postings) []uint64 {
	t.Helper()
	var got []uint64
	for p.Next() {
		got = append(got, p.At())
	}
	if err := p.Err(); err != nil {
		t.Fatalf("iteration error: %v", err)
	}
	return got
}

// randomSet returns a sorted set of up to n values below limit.
func randomSet(rng *rand.Rand, n int, limit uint64) []uint64 {
	set := map[uint64]bool{}
	for range n {
		set[rng.Uint64N(limit)] = true
	}
	out := make([]uint64, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

func intersectSlices(sets ...[]uint64) []uint64 {
	var out []uint64
	for _, v := range sets[0] {
		all := true
		for _, s := range sets[1:] {
			if !slices.Contains(s, v) {
				all = false
				break
			}
		}
		if all {
			out = append(out, v)
		}
	}
	return out
}

func mergeSlices(sets ...[]uint64) []uint64 {
	var out []uint64
	for _, s := range sets {
		out = append(out, s...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func lists(sets [][]uint64) []Postings {
	ps := make([]Postings, len(sets))
	for i, s := range sets {
		ps[i] = NewListPostings(s)
	}
	return ps
}

func TestPostingsCombinators(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 1 + rng.IntN(4)
		sets := make([][]uint64, n)
		for i := range sets {
			sets[i] = randomSet(rng, rng.IntN(60), 100)
		}
		first, last := rng.Uint64N(100), rng.Uint64N(100)
		bound := func(s []uint64) (out []uint64) {
			for _, v := range s {
				if v >= first && v <= last {
					out = append(out, v)
				}
			}
			return out
		}
		cases := []struct {
			name string
			p    Postings
			want []uint64
		}{
			{"intersect", Intersect(lists(sets)...), intersectSlices(sets...)},
			{"merge", Merge(lists(sets)...), mergeSlices(sets...)},
			{"intersect-of-merges", Intersect(Merge(lists(sets)...), Merge(lists(sets[:1])...)), sets[0]},
			{"bound-merge", Bound(Merge(lists(sets)...), first, last), bound(mergeSlices(sets...))},
			{"bound-intersect", Bound(Intersect(lists(sets)...), first, last), bound(intersectSlices(sets...))},
		}
		for _, c := range cases {
			if got := collect(t, c.p); !slices.Equal(got, c.want) {
				t.Fatalf("seed %d %s: got %v, want %v (sets %v, bound [%d, %d])", seed, c.name, got, c.want, sets, first, last)
			}
		}
	}
}

// TestPostingsSeek checks Seek against the first value at or above the target, with Next and
// Seek interleaved, on every implementation.
func TestPostingsSeek(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 2))
		sets := [][]uint64{randomSet(rng, 80, 300), randomSet(rng, 80, 300), randomSet(rng, 80, 300)}
		impls := map[string]struct {
			p    Postings
			want []uint64
		}{
			"list":      {NewListPostings(sets[0]), sets[0]},
			"merge":     {Merge(lists(sets)...), mergeSlices(sets...)},
			"intersect": {Intersect(lists(sets[:2])...), intersectSlices(sets[:2]...)},
		}
		for name, impl := range impls {
			pos := -1 // index in want of the current value
			for range 40 {
				if rng.IntN(3) == 0 {
					ok := impl.p.Next()
					pos++
					if ok != (pos < len(impl.want)) || (ok && impl.p.At() != impl.want[pos]) {
						t.Fatalf("seed %d %s: Next at %d: ok %v", seed, name, pos, ok)
					}
					if !ok {
						break
					}
					continue
				}
				v := rng.Uint64N(320)
				ok := impl.p.Seek(v)
				want := max(pos, 0)
				for want < len(impl.want) && impl.want[want] < v {
					want++
				}
				pos = want
				if ok != (pos < len(impl.want)) || (ok && impl.p.At() != impl.want[pos]) {
					t.Fatalf("seed %d %s: Seek(%d) = %v, want index %d of %v", seed, name, v, ok, pos, impl.want)
				}
				if !ok {
					break
				}
			}
		}
	}
}

func TestPostingsEmptyAndErrors(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	some := func() Postings { return NewListPostings([]uint64{1, 2, 3}) }
	cases := []struct {
		name    string
		p       Postings
		want    []uint64
		wantErr error
	}{
		{"empty list is the sentinel", NewListPostings(nil), nil, nil},
		{"intersect with empty", Intersect(some(), EmptyPostings()), nil, nil},
		{"intersect of none", Intersect(), nil, nil},
		{"merge drops empty", Merge(EmptyPostings(), some()), []uint64{1, 2, 3}, nil},
		{"merge of none", Merge(), nil, nil},
		{"merge reports an error", Merge(some(), ErrPostings(boom)), nil, boom},
		{"intersect reports an error", Intersect(some(), ErrPostings(boom)), nil, boom},
		{"bound past the end", Bound(some(), 4, 10), nil, nil},
		{"bound inverted", Bound(some(), 3, 1), nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []uint64
			for c.p.Next() {
				got = append(got, c.p.At())
			}
			if !slices.Equal(got, c.want) || !errors.Is(c.p.Err(), c.wantErr) {
				t.Fatalf("got %v, %v; want %v, %v", got, c.p.Err(), c.want, c.wantErr)
			}
		})
	}
	if Intersect(some(), EmptyPostings()) != EmptyPostings() || Merge(EmptyPostings()) != EmptyPostings() {
		t.Fatal("combinators over nothing do not return the empty sentinel")
	}
}

func BenchmarkIntersect(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		rng := rand.New(rand.NewPCG(1, 1))
		dense := make([]uint64, n)
		for i := range dense {
			dense[i] = uint64(i)
		}
		sparse := randomSet(rng, n/100, uint64(n))
		b.Run(fmt.Sprintf("dense=%d/sparse=%d", n, len(sparse)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p := Intersect(NewListPostings(dense), NewListPostings(sparse))
				count := 0
				for p.Next() {
					count++
				}
				if count != len(sparse) {
					b.Fatalf("got %d, want %d", count, len(sparse))
				}
			}
		})
	}
}

func BenchmarkMerge(b *testing.B) {
	for _, lists := range []int{2, 10, 100} {
		rng := rand.New(rand.NewPCG(1, 2))
		sets := make([][]uint64, lists)
		for i := range sets {
			sets[i] = randomSet(rng, 10_000, 1_000_000)
		}
		want := len(mergeSlices(sets...))
		b.Run(fmt.Sprintf("lists=%d", lists), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ps := make([]Postings, len(sets))
				for i, s := range sets {
					ps[i] = NewListPostings(s)
				}
				p := Merge(ps...)
				count := 0
				for p.Next() {
					count++
				}
				if count != want {
					b.Fatalf("got %d, want %d", count, want)
				}
			}
		})
	}
}

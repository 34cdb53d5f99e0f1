package simulate

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
)

// TestFastLZLen: the FastLZ size is op-geth's for inputs of every length up to a few
// kilobytes, random, repetitive and mixed, computed one after another on the same pooled
// table (entries left by an input must not be seen by the next), and across a wrap of the
// table's generation counter.
func TestFastLZLen(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for n := range 600 {
		random := make([]byte, n)
		for i := range random {
			random[i] = byte(rng.UintN(256))
		}
		few := make([]byte, n) // a small alphabet: many short matches
		for i := range few {
			few[i] = byte(rng.UintN(3))
		}
		inputs = append(inputs, random, few, bytes.Repeat([]byte{byte(n)}, n), make([]byte, n))
	}
	for _, n := range []int{1000, 4096, 8191, 8192, 8193, 20_000, 70_000} {
		mixed := make([]byte, n) // runs of zeros between random stretches, as in calldata
		for i := range mixed {
			if (i/37)%3 == 0 {
				mixed[i] = byte(rng.UintN(256))
			}
		}
		inputs = append(inputs, mixed)
	}
	check := func(t *testing.T, ib []byte) {
		if got, want := fastLZLen(ib), types.FlzCompressLen(ib); got != want {
			t.Fatalf("%d bytes %x…: FastLZ size %d, op-geth's %d", len(ib), ib[:min(len(ib), 16)], got, want)
		}
	}
	for _, ib := range inputs {
		check(t, ib)
	}

	// The wrap: entries written by generation 1, 2^32 inputs ago, must not read as current
	// when the counter wraps back to 1.
	for _, ib := range inputs[len(inputs)-40:] {
		wrap := new(flzTable)
		wrap.compressLen(ib) // generation 1
		wrap.gen = ^uint32(0)
		if got, want := wrap.compressLen(ib), types.FlzCompressLen(ib); got != want {
			t.Fatalf("across the wrap, %d bytes: FastLZ size %d, op-geth's %d", len(ib), got, want)
		}
		if wrap.gen != 1 {
			t.Fatalf("generation %d after the wrap, want 1", wrap.gen)
		}
	}
}

// BenchmarkFastLZLen compares the FastLZ size of 50 bytes, about the encoding of a simulated
// call with a few bytes of calldata, with op-geth's FlzCompressLen.
func BenchmarkFastLZLen(b *testing.B) {
	enc := make([]byte, 50)
	for i := range enc {
		enc[i] = byte(i * i)
	}
	for _, bc := range []struct {
		name string
		f    func([]byte) uint32
	}{{"impl=pooled", fastLZLen}, {"impl=op-geth", types.FlzCompressLen}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var n uint32
			for b.Loop() {
				n += bc.f(enc)
			}
			if n == 0 {
				b.Fatal("no size")
			}
		})
	}
}

package flashblocks_test

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// BenchmarkPublishEncode measures what the feed does per pre-confirmation on the sequencer's
// goroutine: the payload from the partial block, then its JSON (and brotli) encoding.
func BenchmarkPublishEncode(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		block := testBlock(&testing.T{}, n, common.Hash{1}, 100)
		for _, compressed := range []bool{false, true} {
			b.Run(fmt.Sprintf("txs=%d/brotli=%v", n, compressed), func(b *testing.B) {
				b.ReportAllocs()
				size := 0
				for b.Loop() {
					p, err := flashblocks.FromBlock(block, 1, 0)
					if err != nil {
						b.Fatal(err)
					}
					msg, err := flashblocks.Encode(p)
					if err != nil {
						b.Fatal(err)
					}
					if compressed {
						msg = flashblocks.Compress(msg)
					}
					size = len(msg)
				}
				b.ReportMetric(float64(size), "bytes/msg")
			})
		}
	}
}

// BenchmarkDecode measures a consumer's decoding of one message of 10 transactions.
func BenchmarkDecode(b *testing.B) {
	p, err := flashblocks.FromBlock(testBlock(&testing.T{}, 10, common.Hash{1}, 100), 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	text, err := flashblocks.Encode(p)
	if err != nil {
		b.Fatal(err)
	}
	for name, msg := range map[string][]byte{"json": text, "brotli": flashblocks.Compress(text)} {
		b.Run("encoding="+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := flashblocks.Decode(msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

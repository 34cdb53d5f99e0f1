package flashblocks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// Fuzz targets of the feed decoders: one message of the flashblocks feed (Base's JSON text
// and brotli frames, OP's subblocks) and the post-execution transaction of a subblock diff.
// Their seeds are the testdata messages, their brotli frames and
// testdata/fuzz/<target>/…; `go test -fuzz` explores from there.

// addMessageSeeds adds every testdata message as text and as a brotli frame.
func addMessageSeeds(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no testdata messages: %v", err)
	}
	for _, name := range files {
		msg, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(msg)
		f.Add(flashblocks.Compress(msg))
	}
	for _, s := range []string{"", "{}", " {", "null", `{"index":0}`, `{"payload_id":"0x0000000000000001","index":1,"diff":{}}`, "\x1b\x00"} {
		f.Add([]byte(s))
	}
}

// FuzzDecode: Decode never panics, on JSON text and on brotli frames (the compressed seeds);
// what it accepts encodes, and the encoding decodes and encodes to the same bytes again. (Compressing in the target stalls the fuzzer: the brotli encoder under
// coverage instrumentation; TestDecodeReference checks text and frames agree.)
func FuzzDecode(f *testing.F) {
	addMessageSeeds(f)
	f.Fuzz(func(t *testing.T, msg []byte) {
		p, err := flashblocks.Decode(msg)
		if err != nil {
			return
		}
		enc, err := flashblocks.Encode(p)
		if err != nil {
			t.Fatalf("accepted message does not encode: %v", err)
		}
		again, err := flashblocks.Decode(enc)
		if err != nil {
			t.Fatalf("own encoding does not decode: %v\n%s", err, enc)
		}
		if enc2, err := flashblocks.Encode(again); err != nil || !bytes.Equal(enc2, enc) {
			t.Fatalf("encoding is not stable (%v):\n%s\n%s", err, enc, enc2)
		}
	})
}

// FuzzDecodePostExecTx: DecodePostExecTx never panics; what it accepts is the type byte and
// the canonical RLP of its version, block number and fields, and its hash is the encoding's.
func FuzzDecodePostExecTx(f *testing.F) {
	seed, err := rlp.EncodeToBytes([]any{uint64(1), uint64(144000001), []any{[]uint64{1, 4200}, []uint64{3, 1000}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte{types.PostExecTxType}, seed...))
	f.Add([]byte{types.PostExecTxType, 0xc0})
	f.Add([]byte{types.PostExecTxType, 0xc2, 0x01, 0x02})
	f.Add([]byte{0x02, 0xc0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, enc []byte) {
		pe, err := flashblocks.DecodePostExecTx(enc)
		if err != nil {
			return
		}
		if pe.Hash != crypto.Keccak256Hash(enc) {
			t.Fatalf("hash %s, want keccak of the encoding", pe.Hash)
		}
		items := []any{pe.Version, pe.BlockNumber}
		for _, field := range pe.Fields {
			items = append(items, field)
		}
		body, err := rlp.EncodeToBytes(items)
		if err != nil {
			t.Fatal(err)
		}
		if again := append([]byte{types.PostExecTxType}, body...); !bytes.Equal(again, enc) {
			t.Fatalf("accepted %x, which encodes back as %x", enc, again)
		}
	})
}

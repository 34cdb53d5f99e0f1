package logs

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestMetaRoundTrip(t *testing.T) {
	t.Parallel()
	want := meta{next: 123_456, head: common.HexToHash("0xabcdef")}
	got, err := decodeMeta(encodeMeta(want))
	if err != nil || got != want {
		t.Fatalf("got %+v, %v; want %+v", got, err, want)
	}
}

func TestMetaRefusesDamage(t *testing.T) {
	t.Parallel()
	good := encodeMeta(meta{next: 7, head: common.HexToHash("0x01")})
	withVersion := func(v uint16) []byte {
		b := slices.Clone(good[:metaLen-crcLen])
		binary.BigEndian.PutUint16(b[4:], v)
		return binary.BigEndian.AppendUint32(b, checksum(b))
	}
	cases := []struct {
		name    string
		b       []byte
		version bool // a versionError rather than ErrCorrupt
	}{
		{"truncated", good[:metaLen-1], false},
		{"too long", append(slices.Clone(good), 0), false},
		{"empty", nil, false},
		{"bad magic", flip(good, 0), false},
		{"bad checksum", flip(good, metaLen-1), false},
		{"flipped next", flip(good, 8), false},
		{"another version", withVersion(FormatVersion + 1), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeMeta(c.b)
			var verr *versionError
			if c.version != errors.As(err, &verr) || (!c.version && !errors.Is(err, ErrCorrupt)) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestChunkRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 500 {
		entries := randomSet(rng, 1+rng.IntN(chunkEntries), 1<<(1+rng.IntN(63)))
		if len(entries) == 0 {
			continue
		}
		got, err := decodeChunk(nil, appendChunk(nil, entries))
		if err != nil || !slices.Equal(got, entries) {
			t.Fatalf("got %v, %v; want %v", got, err, entries)
		}
	}
}

func TestChunkRefusesDamage(t *testing.T) {
	t.Parallel()
	good := appendChunk(nil, []uint64{5, 6, 1000, 70_000})
	// A chunk whose checksum is right but whose content is not.
	resum := func(body []byte) []byte { return binary.BigEndian.AppendUint32(slices.Clone(body), checksum(body)) }
	cases := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)-1]},
		{"truncated body", resum(good[:3])},
		{"flipped entry", flip(good, 2)},
		{"flipped checksum", flip(good, len(good)-1)},
		{"zero delta", resum([]byte{2, 5, 0})},
		{"count too large", resum([]byte{9, 5, 1})},
		{"zero count", resum([]byte{0, 5})},
		{"trailing bytes", resum([]byte{1, 5, 1})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := decodeChunk(nil, c.b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want ErrCorrupt", err)
			}
		})
	}
}

func flip(b []byte, i int) []byte {
	c := slices.Clone(b)
	c[i] ^= 0x40
	return c
}

func checksum(b []byte) uint32 { return crc32.Checksum(b, crcTable) }

package logs

// This file is the log index's disk layout, docs/format/logindex.md: keys, the meta record and
// posting chunks (log records are in logrecord.go). It encodes and decodes and does nothing
// else.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/ethereum/go-ethereum/common"
)

// Format constants (docs/format/logindex.md).
const (
	// formatMagic starts the meta record: "FRLI".
	formatMagic = 0x46524c49
	// FormatVersion is the version of the layout this code writes and reads. An index of any
	// other version is deleted and built again. Version 2 replaced version 1's block records
	// (hash and time of 64 blocks) by one log record per block.
	FormatVersion = 2

	// chunkEntries is the most block numbers one posting chunk holds.
	chunkEntries = 1024
	// checkpointEvery is the spacing, in blocks, of the checkpoints a rollback returns to.
	checkpointEvery = 1024

	metaLen   = 4 + 2 + 8 + common.HashLength + 4
	crcLen    = 4
	lastLen   = 8
	openChunk = math.MaxUint64 // the key suffix of a list's open chunk
)

// Key prefixes inside the index's store.
const (
	metaKey          = "m"
	checkpointPrefix = 'c'
	logsPrefix       = 'l'
	postingsPrefix   = 'p'
)

// Kinds of posting lists: what a listed block's logs have in common.
const (
	kindAny     byte = 0x00 // any log at all; no value
	kindAddress byte = 0x01 // the emitting address
	kindTopic   byte = 0x10 // kindTopic+i: the topic at position i (0…3)
	kindEvent   byte = 0x20 // the emitting address and topic 0 together (address ‖ topic)
)

// ErrCorrupt reports index data that does not decode: a bad checksum, a truncated or
// malformed record. The index is rebuilt when it sees it.
var ErrCorrupt = errors.New("log index corrupt")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// meta is the decoded meta record.
type meta struct {
	next uint64      // blocks 0…next-1 are indexed
	head common.Hash // hash of block next-1 as indexed; zero when next is 0
}

func encodeMeta(m meta) []byte {
	b := make([]byte, 0, metaLen)
	b = binary.BigEndian.AppendUint32(b, formatMagic)
	b = binary.BigEndian.AppendUint16(b, FormatVersion)
	b = binary.BigEndian.AppendUint64(b, m.next)
	b = append(b, m.head[:]...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

// decodeMeta refuses a record of another magic, version or length, or with a bad checksum.
func decodeMeta(b []byte) (meta, error) {
	if len(b) != metaLen {
		return meta{}, fmt.Errorf("%w: meta record of %d bytes, want %d", ErrCorrupt, len(b), metaLen)
	}
	if got := binary.BigEndian.Uint32(b); got != formatMagic {
		return meta{}, fmt.Errorf("%w: meta record magic %#x, want %#x", ErrCorrupt, got, formatMagic)
	}
	if sum := binary.BigEndian.Uint32(b[metaLen-crcLen:]); sum != crc32.Checksum(b[:metaLen-crcLen], crcTable) {
		return meta{}, fmt.Errorf("%w: meta record checksum", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint16(b[4:]); v != FormatVersion {
		return meta{}, &versionError{version: v}
	}
	m := meta{next: binary.BigEndian.Uint64(b[6:])}
	copy(m.head[:], b[14:])
	return m, nil
}

// versionError reports an index written in a layout this code does not read.
type versionError struct{ version uint16 }

func (e *versionError) Error() string {
	return fmt.Sprintf("log index format version %d, this build reads version %d", e.version, FormatVersion)
}

func checkpointKey(number uint64) []byte {
	return binary.BigEndian.AppendUint64([]byte{checkpointPrefix}, number)
}

// listKey is the key prefix of one posting list: 'p' kind value.
func listKey(kind byte, value []byte) []byte {
	k := make([]byte, 0, 2+len(value)+lastLen)
	k = append(k, postingsPrefix, kind)
	return append(k, value...)
}

// chunkKey is the key of the chunk of list whose last entry is last (openChunk for the open
// chunk). It appends to a copy of list.
func chunkKey(list []byte, last uint64) []byte {
	k := make([]byte, len(list), len(list)+lastLen)
	copy(k, list)
	return binary.BigEndian.AppendUint64(k, last)
}

// chunkLast returns the last-entry suffix of a chunk key.
func chunkLast(key []byte) uint64 { return binary.BigEndian.Uint64(key[len(key)-lastLen:]) }

// appendChunk encodes entries, strictly increasing and at least one, as a posting chunk.
func appendChunk(dst []byte, entries []uint64) []byte {
	start := len(dst)
	dst = binary.AppendUvarint(dst, uint64(len(entries)))
	dst = binary.AppendUvarint(dst, entries[0])
	for i := 1; i < len(entries); i++ {
		dst = binary.AppendUvarint(dst, entries[i]-entries[i-1])
	}
	return binary.BigEndian.AppendUint32(dst, crc32.Checksum(dst[start:], crcTable))
}

// decodeChunk decodes a posting chunk into dst[:0] and returns it. It checks the checksum, the
// count and that entries strictly increase.
func decodeChunk(dst []uint64, b []byte) ([]uint64, error) {
	if len(b) < 2+crcLen {
		return dst[:0], fmt.Errorf("%w: posting chunk of %d bytes", ErrCorrupt, len(b))
	}
	body := b[:len(b)-crcLen]
	if binary.BigEndian.Uint32(b[len(body):]) != crc32.Checksum(body, crcTable) {
		return dst[:0], fmt.Errorf("%w: posting chunk checksum", ErrCorrupt)
	}
	count, n := binary.Uvarint(body)
	if n <= 0 || count == 0 || count > uint64(len(body)) {
		return dst[:0], fmt.Errorf("%w: posting chunk count", ErrCorrupt)
	}
	body = body[n:]
	dst = dst[:0]
	var prev uint64
	for i := uint64(0); i < count; i++ {
		v, n := binary.Uvarint(body)
		if n <= 0 || (i > 0 && (v == 0 || prev+v < prev)) {
			return dst[:0], fmt.Errorf("%w: posting chunk entry %d", ErrCorrupt, i)
		}
		body = body[n:]
		if i > 0 {
			v += prev
		}
		dst = append(dst, v)
		prev = v
	}
	if len(body) != 0 {
		return dst[:0], fmt.Errorf("%w: posting chunk has %d bytes after its entries", ErrCorrupt, len(body))
	}
	return dst, nil
}

func isCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

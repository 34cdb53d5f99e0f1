package main

import (
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// flashblockSummary is what the load generator reads from a flashblock: which block and index
// it is, how many transactions other than deposits it added and the block's cumulative gas.
type flashblockSummary struct {
	block, index uint64
	txs          int
	gas          uint64
}

// summarizeFlashblock reads a feed message's summary. A message of 1,000 transactions is a
// third of a megabyte of JSON, of which the summary needs a few numbers and each transaction's
// type byte: the scan reads those and steps over the rest without checking it (the fields it
// does not read, and each transaction's hex after its type byte). Whatever the scan does not
// expect (a brotli frame, an escape, a base or metadata that breaks the format's rules) is
// decoded whole by flashblocks.Decode, which says what is wrong.
func summarizeFlashblock(msg []byte) (flashblockSummary, error) {
	if s, err := scanFlashblock(msg); err == nil {
		return s, nil
	}
	return summarizeDecoded(msg)
}

// summarizeDecoded is summarizeFlashblock by way of the full decoding.
func summarizeDecoded(msg []byte) (flashblockSummary, error) {
	p, err := flashblocks.Decode(msg)
	if err != nil {
		return flashblockSummary{}, err
	}
	s := flashblockSummary{block: p.Metadata.BlockNumber, index: p.Index, gas: uint64(p.Diff.GasUsed)}
	for _, enc := range p.Diff.Transactions {
		if len(enc) > 0 && enc[0] != types.DepositTxType {
			s.txs++
		}
	}
	return s, nil
}

var errScan = errors.New("flashblock: not as the scan expects")

// scanFlashblock reads a JSON text message's index, base's presence, diff.gas_used,
// diff.transactions' types and metadata.block_number. As encoding/json, a member given twice
// counts as its last. Its errors say only that the message is not as it expects.
func scanFlashblock(msg []byte) (flashblockSummary, error) {
	var s flashblockSummary
	if !utf8.Valid(msg) {
		return s, errScan // flashblocks.Decode takes it for brotli
	}
	var hasBase, hasBlock bool
	sc := scanner{b: msg}
	err := sc.object(func(key []byte) error {
		switch string(key) {
		case "index":
			return sc.number(&s.index)
		case "base":
			hasBase = !sc.null()
			return sc.skip()
		case "diff":
			return sc.object(func(key []byte) error {
				switch string(key) {
				case "gas_used":
					v, err := sc.str()
					if err != nil {
						return err
					}
					return (*hexutil.Uint64)(&s.gas).UnmarshalText(v)
				case "transactions":
					n, err := sc.txTypes()
					s.txs = n
					return err
				}
				return sc.skip()
			})
		case "metadata":
			if sc.null() {
				return errScan
			}
			hasBlock = false
			return sc.object(func(key []byte) error {
				if string(key) == "block_number" {
					hasBlock = true
					return sc.number(&s.block)
				}
				return sc.skip()
			})
		}
		return sc.skip()
	})
	if err != nil {
		return s, err
	}
	if sc.peek() != 0 || !hasBlock || hasBase != (s.index == 0) {
		return s, errScan
	}
	return s, nil
}

// scanner walks a JSON text: b[i:] is what is left.
type scanner struct {
	b []byte
	i int
}

func (sc *scanner) ws() {
	for sc.i < len(sc.b) && (sc.b[sc.i] == ' ' || sc.b[sc.i] == '\t' || sc.b[sc.i] == '\n' || sc.b[sc.i] == '\r') {
		sc.i++
	}
}

// peek returns the next byte after blanks, 0 at the end.
func (sc *scanner) peek() byte {
	sc.ws()
	if sc.i == len(sc.b) {
		return 0
	}
	return sc.b[sc.i]
}

func (sc *scanner) expect(c byte) error {
	if sc.peek() != c {
		return errScan
	}
	sc.i++
	return nil
}

// null consumes a null, if that is what comes next.
func (sc *scanner) null() bool {
	if sc.peek() == 'n' && len(sc.b)-sc.i >= 4 && string(sc.b[sc.i:sc.i+4]) == "null" {
		sc.i += 4
		return true
	}
	return false
}

// str returns the next string's contents; one with an escape is not scanned.
func (sc *scanner) str() ([]byte, error) {
	if err := sc.expect('"'); err != nil {
		return nil, err
	}
	start := sc.i
	for ; sc.i < len(sc.b); sc.i++ {
		switch c := sc.b[sc.i]; {
		case c == '"':
			sc.i++
			return sc.b[start : sc.i-1], nil
		case c == '\\' || c < 0x20:
			return nil, errScan
		}
	}
	return nil, errScan
}

// object reads an object, calling member with the scanner at each member's value, which
// member must consume.
func (sc *scanner) object(member func(key []byte) error) error {
	if err := sc.expect('{'); err != nil {
		return err
	}
	if sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		key, err := sc.str()
		if err != nil {
			return err
		}
		if err := sc.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return errScan
		}
	}
}

// number reads a JSON number into a uint64 with encoding/json's rules.
func (sc *scanner) number(into *uint64) error {
	sc.ws()
	start := sc.i
	if err := sc.skip(); err != nil {
		return err
	}
	if c := sc.b[start:sc.i]; len(c) == 0 || c[0] < '0' || c[0] > '9' && c[0] != '-' {
		return errScan // a string or null is not a number here, though json.Unmarshal accepts null
	}
	return json.Unmarshal(sc.b[start:sc.i], into)
}

// txTypes reads the transactions' array (or null) and counts those that are not deposits,
// from each one's first byte: "0x7e…" is a deposit, "0x" (empty) counts as nothing.
func (sc *scanner) txTypes() (int, error) {
	if sc.null() {
		return 0, nil
	}
	if err := sc.expect('['); err != nil {
		return 0, err
	}
	n := 0
	if sc.peek() == ']' {
		sc.i++
		return 0, nil
	}
	for {
		tx, err := sc.str()
		if err != nil {
			return 0, err
		}
		switch {
		case len(tx) < 2 || tx[0] != '0' || tx[1] != 'x' && tx[1] != 'X' || len(tx)%2 != 0:
			return 0, errScan
		case len(tx) == 2:
		case !isHex(tx[2]) || !isHex(tx[3]):
			return 0, errScan
		case (tx[2] != '7') || (tx[3] != 'e' && tx[3] != 'E'):
			n++
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case ']':
			sc.i++
			return n, nil
		default:
			return 0, errScan
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skip steps over one value: a string (to its closing quote, past escapes), an object or array
// (to its matching bracket) or a literal or number (to the next delimiter).
func (sc *scanner) skip() error {
	switch sc.peek() {
	case 0:
		return errScan
	case '"':
		for sc.i++; sc.i < len(sc.b); sc.i++ {
			switch sc.b[sc.i] {
			case '\\':
				sc.i++
			case '"':
				sc.i++
				return nil
			}
		}
		return errScan
	case '{', '[':
		depth := 0
		for ; sc.i < len(sc.b); sc.i++ {
			switch sc.b[sc.i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					sc.i++
					return nil
				}
			case '"':
				if err := sc.skip(); err != nil {
					return err
				}
				sc.i--
			}
		}
		return errScan
	}
	start := sc.i
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if sc.i == start {
				return errScan
			}
			return nil
		}
		sc.i++
	}
	return errScan
}

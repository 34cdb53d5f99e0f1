package simulate

import (
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"

	"github.com/flashrpc/flashrpc/internal/exec"
)

// decodeSimOptsFast decodes eth_simulateV1's first parameter without reflection, for the
// shape nearly every request has: keys spelled as documented, calls with from, to, gas,
// the fee fields, value, nonce, data and input, strings without escapes. encoding/json
// spent a tenth of a 100-call request on this. Override objects are handed to their own
// decoders. Anything else (other keys, other spellings, escapes, invalid values or JSON)
// reports ok == false, and the caller decodes the input the general way, which also names
// what is wrong. The values set are the ones encoding/json would set: the scalar fields
// are decoded by the UnmarshalText their UnmarshalJSON delegates to, null sets a pointer
// to nil and leaves a bool alone. A repeated key is refused (the general decoder takes
// the request).
func decodeSimOptsFast(input []byte) (opts Opts, ok bool) {
	d := &fastDecoder{b: input}
	ok = d.object(func(key []byte) bool {
		switch string(key) {
		case "blockStateCalls":
			return d.once(0) && list(d, &opts.BlockStateCalls, false, d.blockCalls)
		case "traceTransfers":
			return d.once(1) && d.bool(&opts.TraceTransfers)
		case "validation":
			return d.once(2) && d.bool(&opts.Validation)
		case "returnFullTransactions":
			return d.once(3) && d.bool(&opts.ReturnFullTransactions)
		}
		return false
	})
	d.space()
	return opts, ok && d.i == len(d.b)
}

// fastDecoder reads JSON from b, starting at i. Its methods report false on anything they
// do not handle.
type fastDecoder struct {
	b []byte
	i int
	// seen[k] has a bit set for each member read of the object open at depth k; depth is the
	// number of objects open. A set per object as a closure over a local was an allocation
	// per call.
	seen  [maxObjectDepth]uint64
	depth int
	// addresses are where the calls' from and to go, handed out in order from chunks that
	// double in size up to maxAddressChunk: two allocations a call were a tenth of a
	// 100-call request's.
	addresses []common.Address
	chunk     int
}

const (
	maxAddressChunk = 256
	maxObjectDepth  = 3
)

// once reports whether member n of the innermost open object is read for the first time,
// and marks it read.
func (d *fastDecoder) once(n int) bool {
	seen := &d.seen[d.depth-1]
	if *seen&(1<<n) != 0 {
		return false
	}
	*seen |= 1 << n
	return true
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (d *fastDecoder) peek() byte {
	d.space()
	if d.i == len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// literal consumes word (null, true, false) if it comes next.
func (d *fastDecoder) literal(word string) bool {
	d.space()
	if len(d.b)-d.i < len(word) || string(d.b[d.i:d.i+len(word)]) != word {
		return false
	}
	d.i += len(word)
	return true
}

// str reads a string without escapes and returns its content.
func (d *fastDecoder) str() ([]byte, bool) {
	if d.peek() != '"' {
		return nil, false
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			return d.b[start:j], true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// object reads an object, calling member for each key with the decoder at the value. A
// member calls d.once with its own number (below 64) to refuse a repeated key:
// encoding/json merges a repeated array of objects into the first, which is not worth
// copying. The objects this decoder reads nest maxObjectDepth deep at most (options, block,
// call); deeper ones it does not handle.
func (d *fastDecoder) object(member func(key []byte) bool) bool {
	if d.peek() != '{' || d.depth == maxObjectDepth {
		return false
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	d.seen[d.depth] = 0
	d.depth++
	defer func() { d.depth-- }()
	for {
		key, ok := d.str()
		if !ok || d.peek() != ':' {
			return false
		}
		d.i++
		if !member(key) {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, or null (isNull), calling elem for each element.
func (d *fastDecoder) array(elem func() bool) (isNull, ok bool) {
	if d.literal("null") {
		return true, true
	}
	if d.peek() != '[' {
		return false, false
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		return false, true
	}
	for {
		if !elem() {
			return false, false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return false, true
		default:
			return false, false
		}
	}
}

// count returns the number of objects directly in the array that comes next (0 if an
// array does not come next), up to limit, without moving past it: the capacity for list to
// decode them into. The limit keeps a body of millions of empty objects, which the call limits
// refuse only after decoding, from reserving their memory at once. It counts the objects, not the elements, so that a long array of something else
// (numbers, say, which fail to decode at the first) reserves nothing; null elements are
// appended beyond. It does not check the JSON: the transport's scanner validated it, and
// array checks it again.
func (d *fastDecoder) count(limit int) int {
	if d.peek() != '[' {
		return 0
	}
	b, depth, n := d.b[d.i:], 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case '{':
			if depth == 1 {
				if n++; n == limit {
					return n
				}
			}
			depth++
		case '[':
			depth++
		case ']', '}':
			if depth--; depth == 0 {
				return n
			}
		}
	}
	return n
}

func (d *fastDecoder) bool(v *bool) bool {
	switch {
	case d.literal("true"):
		*v = true
	case d.literal("false"):
		*v = false
	case d.literal("null"): // leaves the value alone, as encoding/json does
	default:
		return false
	}
	return true
}

// list reads an array into *v, or null (nil); a null element is T's zero value, as
// encoding/json has it. Elements are decoded in place. With sized the elements are counted
// first, for large elements: a call's arguments are a few hundred bytes, and growing the
// slice from empty allocated and copied them two to three times over, a tenth of what
// decoding a request allocated.
func list[T any](d *fastDecoder, v *[]T, sized bool, elem func(*T) bool) bool {
	n := 0
	if sized {
		n = d.count(DefaultMaxCallsPerBlock)
	}
	items := make([]T, 0, n)
	isNull, ok := d.array(func() bool {
		var zero T
		items = append(items, zero)
		return d.literal("null") || elem(&items[len(items)-1])
	})
	if isNull {
		items = nil
	}
	*v = items
	return ok
}

func (d *fastDecoder) blockCalls(b *BlockCalls) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "calls":
			return d.once(0) && list(d, &b.Calls, true, d.args)
		case "blockOverrides":
			return d.once(1) && d.raw(&b.BlockOverrides)
		case "stateOverrides":
			return d.once(2) && d.raw(&b.StateOverrides)
		}
		return false
	})
}

func (d *fastDecoder) args(a *exec.Args) bool {
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "from":
			return d.once(0) && d.address(&a.From)
		case "to":
			return d.once(1) && d.address(&a.To)
		case "gas":
			return d.once(2) && scalar(d, &a.Gas)
		case "gasPrice":
			return d.once(3) && scalar(d, &a.GasPrice)
		case "maxFeePerGas":
			return d.once(4) && scalar(d, &a.MaxFeePerGas)
		case "maxPriorityFeePerGas":
			return d.once(5) && scalar(d, &a.MaxPriorityFeePerGas)
		case "value":
			return d.once(6) && scalar(d, &a.Value)
		case "nonce":
			return d.once(7) && scalar(d, &a.Nonce)
		case "data":
			return d.once(8) && scalar(d, &a.Data)
		case "input":
			return d.once(9) && scalar(d, &a.Input)
		}
		return false
	})
}

// textValue is a pointer to a scalar whose UnmarshalJSON is its UnmarshalText on the
// content of a JSON string.
type textValue[T any] interface {
	*T
	UnmarshalText([]byte) error
}

// scalar reads a string into *v, or null (nil).
func scalar[T any, PT textValue[T]](d *fastDecoder, v **T) bool {
	if d.literal("null") {
		*v = nil
		return true
	}
	text, ok := d.str()
	if !ok {
		return false
	}
	x := new(T)
	if PT(x).UnmarshalText(text) != nil {
		return false
	}
	*v = x
	return true
}

// address reads an address into *v, or null (nil), as scalar does.
func (d *fastDecoder) address(v **common.Address) bool {
	if d.literal("null") {
		*v = nil
		return true
	}
	text, ok := d.str()
	if !ok {
		return false
	}
	if len(d.addresses) == 0 {
		d.chunk = min(max(2*d.chunk, 4), maxAddressChunk)
		d.addresses = make([]common.Address, d.chunk)
	}
	x := &d.addresses[0]
	if x.UnmarshalText(text) != nil {
		return false
	}
	d.addresses = d.addresses[1:]
	*v = x
	return true
}

// raw hands the next value to encoding/json, for the rarer members with their own decoders.
func (d *fastDecoder) raw(v any) bool {
	start := d.i
	if !d.skip() {
		return false
	}
	return json.Unmarshal(d.b[start:d.i], v) == nil
}

// skip moves past the next value: a string, an object, an array or a scalar. It only finds
// where the value ends; json.Unmarshal of what it passed over checks the value.
func (d *fastDecoder) skip() bool {
	depth := 0
	for {
		switch d.peek() {
		case 0:
			return false
		case '"':
			j := d.i + 1
			for j < len(d.b) && d.b[j] != '"' {
				if d.b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(d.b) {
				return false
			}
			d.i = j + 1
		case '{', '[':
			depth++
			d.i++
		case '}', ']':
			if depth == 0 {
				return false
			}
			depth--
			d.i++
		case ',', ':':
			if depth == 0 {
				return false
			}
			d.i++
		default:
			for d.i < len(d.b) && !isDelimiter(d.b[d.i]) {
				d.i++
			}
		}
		if depth == 0 {
			return true
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

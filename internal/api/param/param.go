package param

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// CheckCount refuses calls with more than max parameters.
func CheckCount(p rpc.Params, max int) error {
	if p.Len() > max {
		return rpc.InvalidParams("too many arguments, want at most %d", max)
	}
	return nil
}

// One decodes the one parameter of a method that takes one (the block, or a hash, of
// eth_getHeaderByNumber, eth_getTransactionReceipt, …) with decode, after CheckCount.
func One[T any](p rpc.Params, decode func(rpc.Params, int) (T, error)) (T, error) {
	if err := CheckCount(p, 1); err != nil {
		var zero T
		return zero, err
	}
	return decode(p, 0)
}

// Two decodes the parameters of a method that takes two (a block and an index, a block and
// fullTx, a hash and trace options, …) with first and second, after CheckCount: the first
// error is returned, as the parameters are read in order.
func Two[A, B any](p rpc.Params, first func(rpc.Params, int) (A, error), second func(rpc.Params, int) (B, error)) (a A, b B, err error) {
	if err = CheckCount(p, 2); err != nil {
		return a, b, err
	}
	if a, err = first(p, 0); err != nil {
		return a, b, err
	}
	b, err = second(p, 1)
	return a, b, err
}

// ArgError is the -32602 error of parameter i, invalid for the reason err.
func ArgError(i int, err error) error {
	return rpc.InvalidParams("invalid argument %d: %v", i, err)
}

// NamedArgError is ArgError for the parameter called name.
func NamedArgError(i int, name string, err error) error {
	return rpc.InvalidParams("invalid argument %d (%s): %v", i, name, err)
}

// Missing is the -32602 error of required parameter i, absent.
func Missing(i int) error {
	return rpc.InvalidParams("missing value for required argument %d", i)
}

// Present reports whether parameter i was given (an explicit null counts as absent, as in geth).
func Present(p rpc.Params, i int) bool {
	raw := p.At(i)
	return raw != nil && string(raw) != "null"
}

// DecodeArg decodes required parameter i into v with encoding/json.
func DecodeArg(p rpc.Params, i int, v any) error {
	if !Present(p, i) {
		return Missing(i)
	}
	if err := unmarshalParam(p.At(i), v); err != nil {
		return ArgError(i, jsonError(err))
	}
	return nil
}

// unmarshalParam is json.Unmarshal for a parameter. Parameters are valid JSON (the transport's
// scanner validated the whole body), so a type with its own UnmarshalJSON is handed the bytes
// directly: json.Unmarshal would validate them once more first, and such types (call
// arguments, simulation options) decode through json.Unmarshal again inside.
func unmarshalParam(raw json.RawMessage, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return json.Unmarshal(raw, v)
}

// DecodeOptional decodes parameter i into v when it is present.
func DecodeOptional(p rpc.Params, i int, v any) (bool, error) {
	if !Present(p, i) {
		return false, nil
	}
	if err := unmarshalParam(p.At(i), v); err != nil {
		return true, ArgError(i, jsonError(err))
	}
	return true, nil
}

// jsonError says what was wrong with a parameter in the JSON-RPC vocabulary, without Go's
// type names (ethjson.DecodeError).
func jsonError(err error) error { return ethjson.DecodeError(err) }

// DecodeAddress decodes required parameter i as an address.
func DecodeAddress(p rpc.Params, i int) (common.Address, error) {
	var a common.Address
	if quotedHex(p.At(i), a[:]) { // the common case, without encoding/json
		return a, nil
	}
	return a, DecodeArg(p, i, &a)
}

// DecodeHash decodes required parameter i as a 32-byte hash.
func DecodeHash(p rpc.Params, i int) (common.Hash, error) {
	var h common.Hash
	if quotedHex(p.At(i), h[:]) {
		return h, nil
	}
	return h, DecodeArg(p, i, &h)
}

// quotedHex decodes raw when it is exactly a quoted, 0x-prefixed hex string of len(dst) bytes;
// anything else reports false and is left to encoding/json, which also produces the errors.
func quotedHex(raw []byte, dst []byte) bool {
	n := 2*len(dst) + 4
	if len(raw) != n || raw[0] != '"' || raw[n-1] != '"' || raw[1] != '0' || (raw[2] != 'x' && raw[2] != 'X') {
		return false
	}
	_, err := hex.Decode(dst, raw[3:n-1])
	return err == nil
}

// DecodeBool decodes required parameter i as a boolean.
func DecodeBool(p rpc.Params, i int) (bool, error) {
	var b bool
	return b, DecodeArg(p, i, &b)
}

// DecodeQuantity decodes required parameter i, called name, as a hex quantity of at most 64
// bits (ParseQuantity).
func DecodeQuantity(p rpc.Params, i int, name string) (uint64, error) {
	if !Present(p, i) {
		return 0, Missing(i)
	}
	v, err := ParseQuantity(p.At(i))
	if err != nil {
		return 0, NamedArgError(i, name, err)
	}
	return v, nil
}

// DecodeHexOrDecimal decodes required parameter i, called name, as a decimal or hex integer
// of at most 64 bits (ParseHexOrDecimal).
func DecodeHexOrDecimal(p rpc.Params, i int, name string) (uint64, error) {
	if !Present(p, i) {
		return 0, Missing(i)
	}
	v, err := ParseHexOrDecimal(p.At(i))
	if err != nil {
		return 0, NamedArgError(i, name, err)
	}
	return v, nil
}

// DecodeSlot decodes eth_getStorageAt's storage slot, parameter i.
func DecodeSlot(p rpc.Params, i int) (common.Hash, error) {
	if !Present(p, i) {
		return common.Hash{}, Missing(i)
	}
	s, err := JSONString(p.At(i), `a hex storage slot such as "0x0"`)
	if err != nil {
		return common.Hash{}, NamedArgError(i, "slot", err)
	}
	slot, err := ParseStorageKey(s)
	if err != nil {
		return common.Hash{}, NamedArgError(i, "slot", fmt.Errorf("%w: %q", err, s))
	}
	return slot, nil
}

// ParseStorageKey parses a storage slot leniently, as go-ethereum does for compatibility: the
// 0x prefix is optional and odd lengths are left-padded. Unlike go-ethereum it refuses an
// empty slot ("" or "0x"), which go-ethereum reads as slot 0.
func ParseStorageKey(s string) (common.Hash, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s = s[2:]
	}
	if s == "" {
		return common.Hash{}, errors.New("empty storage key")
	}
	if len(s)&1 > 0 {
		s = "0" + s
	}
	if len(s) > 64 {
		return common.Hash{}, errors.New("storage key too long (want at most 32 bytes)")
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return common.Hash{}, errors.New("invalid hex in storage key")
	}
	return common.BytesToHash(b), nil
}

// DecodeIndex decodes the transaction index parameter of the *AndIndex methods.
func DecodeIndex(p rpc.Params, i int) (uint64, error) { return DecodeQuantity(p, i, "index") }

// errNegative is the error of a quantity with a minus sign.
var errNegative = errors.New("negative number")

// ParseQuantity decodes a JSON hex quantity strictly: a string of "0x" and 1 to 16 hex digits
// without leading zeros ("0x0" is zero). The errors are go-ethereum's hexutil texts ("empty
// hex string", "hex string without 0x prefix", "hex number with leading zero digits", "hex
// number > 64 bits", "invalid hex string"), plus "negative number" and, for a value that is not
// a string, what it is.
func ParseQuantity(raw json.RawMessage) (uint64, error) {
	s, err := JSONString(raw, `a hex string such as "0x1a"`)
	if err != nil {
		return 0, err
	}
	if strings.HasPrefix(s, "-") {
		return 0, errNegative
	}
	return hexutil.DecodeUint64(s)
}

// ParseHexOrDecimal decodes a JSON number or string holding a non-negative integer of at
// most 64 bits, in decimal or as a hex quantity (go-ethereum's math.HexOrDecimal64, which
// eth_feeHistory's block count is, without its leniency: no empty string, no leading zeros).
func ParseHexOrDecimal(raw json.RawMessage) (uint64, error) {
	s := string(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var err error
		if s, err = JSONString(raw, ""); err != nil {
			return 0, err
		}
		if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
			return hexutil.DecodeUint64(s)
		}
	}
	switch {
	case s == "":
		return 0, hexutil.ErrEmptyString
	case s[0] == '-':
		return 0, errNegative
	case s[0] < '0' || s[0] > '9':
		return 0, fmt.Errorf("want a decimal or hex integer such as 26 or \"0x1a\", got %s", describeJSON(raw))
	case len(s) > 1 && s[0] == '0':
		return 0, errors.New("decimal number with leading zero digits")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, errors.New("number > 64 bits")
	}
	if err != nil {
		return 0, fmt.Errorf("invalid decimal integer %q", s)
	}
	return v, nil
}

// JSONString returns the string raw holds; otherwise an error saying it wants want (or a
// string) and what raw is.
func JSONString(raw json.RawMessage, want string) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		if want == "" {
			want = "a string"
		}
		return "", fmt.Errorf("want %s, got %s", want, describeJSON(raw))
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("invalid JSON string: %w", err)
	}
	return s, nil
}

// describeJSON names a JSON value's kind for an error message: "number 7", "true", "an
// object".
func describeJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == '-' || (c >= '0' && c <= '9'):
		if len(raw) > 24 {
			return "a number"
		}
		return "number " + string(raw)
	case string(raw) == "true" || string(raw) == "false" || string(raw) == "null":
		return string(raw)
	}
	return "invalid JSON"
}

// DecodeBlockNumber decodes required parameter i, a block number or tag.
func DecodeBlockNumber(p rpc.Params, i int) (gethrpc.BlockNumber, error) {
	raw := p.At(i)
	switch string(raw) { // fast paths for the common tags
	case `"latest"`:
		return gethrpc.LatestBlockNumber, nil
	case `"pending"`:
		return gethrpc.PendingBlockNumber, nil
	}
	if !Present(p, i) {
		return 0, Missing(i)
	}
	var n gethrpc.BlockNumber
	if err := n.UnmarshalJSON(raw); err != nil {
		return 0, NamedArgError(i, "block", blockParamError(raw, err))
	}
	return n, nil
}

// blockTags lists the block tags for error messages.
const blockTags = "latest, pending, safe, finalized, earliest"

// blockParamError replaces go-ethereum's "hex string without 0x prefix" for a string that is
// neither a tag nor a hex number by a message that lists what is accepted.
func blockParamError(raw json.RawMessage, err error) error {
	var s string
	if len(raw) > 0 && raw[0] == '{' {
		// go-ethereum reports the string fallback's error; the field's is the useful one.
		var fields struct {
			BlockNumber *gethrpc.BlockNumber `json:"blockNumber"`
			BlockHash   *common.Hash         `json:"blockHash"`
		}
		if ferr := json.Unmarshal(raw, &fields); ferr != nil {
			return jsonError(ferr)
		}
		return err
	}
	if len(raw) > 0 && raw[0] != '"' {
		return fmt.Errorf("want a hex block number or one of %s, got %s", blockTags, describeJSON(raw))
	}
	if json.Unmarshal(raw, &s) != nil || strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return err
	}
	switch {
	case s == "":
		return fmt.Errorf("empty block parameter: want a hex block number or one of %s", blockTags)
	case s[0] == '-':
		return fmt.Errorf("negative block number %q", s)
	}
	return fmt.Errorf("unknown block tag %q: want a hex block number or one of %s", s, blockTags)
}

// DecodeBlockNumberOrHash decodes EIP-1898 block parameters: a tag, a number, a block hash, or
// {"blockNumber": …} / {"blockHash": …, "requireCanonical": …}. Absent means latest unless
// required.
func DecodeBlockNumberOrHash(p rpc.Params, i int, required bool) (gethrpc.BlockNumberOrHash, error) {
	raw := p.At(i)
	switch string(raw) {
	case `"latest"`:
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.LatestBlockNumber), nil
	case `"pending"`:
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber), nil
	}
	if !Present(p, i) {
		if required {
			return gethrpc.BlockNumberOrHash{}, Missing(i)
		}
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.LatestBlockNumber), nil
	}
	var b gethrpc.BlockNumberOrHash
	if err := b.UnmarshalJSON(raw); err != nil {
		return b, NamedArgError(i, "block", blockParamError(raw, err))
	}
	return b, nil
}

package api

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Parameter decoding. Messages follow go-ethereum's ("invalid argument 1: …", "missing value
// for required argument 0", "too many arguments, want at most 2") so clients that match on them
// keep working.

// checkCount refuses calls with more than max parameters.
func checkCount(p rpc.Params, max int) error {
	if p.Len() > max {
		return rpc.InvalidParams("too many arguments, want at most %d", max)
	}
	return nil
}

func argError(i int, err error) error {
	return rpc.InvalidParams("invalid argument %d: %v", i, err)
}

func missing(i int) error {
	return rpc.InvalidParams("missing value for required argument %d", i)
}

// present reports whether parameter i was given (an explicit null counts as absent, as in geth).
func present(p rpc.Params, i int) bool {
	raw := p.At(i)
	return raw != nil && string(raw) != "null"
}

// decodeArg decodes required parameter i into v with encoding/json.
func decodeArg(p rpc.Params, i int, v any) error {
	if !present(p, i) {
		return missing(i)
	}
	if err := unmarshalParam(p.At(i), v); err != nil {
		return argError(i, jsonError(err))
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

// decodeOptional decodes parameter i into v when it is present.
func decodeOptional(p rpc.Params, i int, v any) (bool, error) {
	if !present(p, i) {
		return false, nil
	}
	if err := unmarshalParam(p.At(i), v); err != nil {
		return true, argError(i, jsonError(err))
	}
	return true, nil
}

// jsonError shortens encoding/json's type errors to what a person needs.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Errorf("json: cannot unmarshal %s into Go struct field %s of type %s", te.Value, te.Field, te.Type)
		}
		return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s", te.Value, te.Type)
	}
	return err
}

func decodeAddress(p rpc.Params, i int) (common.Address, error) {
	var a common.Address
	if quotedHex(p.At(i), a[:]) { // the common case, without encoding/json
		return a, nil
	}
	return a, decodeArg(p, i, &a)
}

func decodeHash(p rpc.Params, i int) (common.Hash, error) {
	var h common.Hash
	if quotedHex(p.At(i), h[:]) {
		return h, nil
	}
	return h, decodeArg(p, i, &h)
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

func decodeBool(p rpc.Params, i int) (bool, error) {
	var b bool
	return b, decodeArg(p, i, &b)
}

func decodeUint(p rpc.Params, i int) (uint64, error) {
	var q hexutil.Uint64
	return uint64(q), decodeArg(p, i, &q)
}

// decodeBlockNumber decodes a block number or tag; absent means def.
func decodeBlockNumber(p rpc.Params, i int, def gethrpc.BlockNumber, required bool) (gethrpc.BlockNumber, error) {
	raw := p.At(i)
	switch string(raw) { // fast paths for the common tags
	case `"latest"`:
		return gethrpc.LatestBlockNumber, nil
	case `"pending"`:
		return gethrpc.PendingBlockNumber, nil
	}
	if !present(p, i) {
		if required {
			return 0, missing(i)
		}
		return def, nil
	}
	var n gethrpc.BlockNumber
	if err := n.UnmarshalJSON(raw); err != nil {
		return 0, argError(i, blockParamError(raw, err))
	}
	return n, nil
}

// blockParamError replaces go-ethereum's "hex string without 0x prefix" for a string that is
// neither a tag nor a hex number by a message that lists what is accepted.
func blockParamError(raw json.RawMessage, err error) error {
	var s string
	if json.Unmarshal(raw, &s) == nil && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return fmt.Errorf("unknown block tag %q: want a hex block number or one of latest, pending, safe, finalized, earliest", s)
	}
	return err
}

// decodeBlockNumberOrHash decodes EIP-1898 block parameters: a tag, a number, a block hash, or
// {"blockNumber": …} / {"blockHash": …, "requireCanonical": …}. Absent means latest unless
// required.
func decodeBlockNumberOrHash(p rpc.Params, i int, required bool) (gethrpc.BlockNumberOrHash, error) {
	raw := p.At(i)
	switch string(raw) {
	case `"latest"`:
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.LatestBlockNumber), nil
	case `"pending"`:
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber), nil
	}
	if !present(p, i) {
		if required {
			return gethrpc.BlockNumberOrHash{}, missing(i)
		}
		return gethrpc.BlockNumberOrHashWithNumber(gethrpc.LatestBlockNumber), nil
	}
	var b gethrpc.BlockNumberOrHash
	if err := b.UnmarshalJSON(raw); err != nil {
		return b, argError(i, blockParamError(raw, err))
	}
	return b, nil
}

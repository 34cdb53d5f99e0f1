package ethjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// DecodeError rewrites an error of decoding a JSON-RPC parameter in the JSON-RPC vocabulary
// (address, hash, quantity, bytes, block number or tag, object, array) instead of Go's type
// names: "want an address (0x-prefixed, 20 bytes of hex), got number 7" rather than "json:
// cannot unmarshal number into Go value of type common.Address". Other errors keep their text,
// with any Go type name in it replaced.
func DecodeError(err error) error {
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := TypeName(te.Type)
		got := describeValue(te.Value)
		if te.Field != "" {
			return fmt.Errorf("field %s: want %s, %s", te.Field, want, got)
		}
		return fmt.Errorf("want %s, %s", want, got)
	}
	return errors.New(goTypeNames.Replace(err.Error()))
}

// describeValue turns encoding/json's Value of a type error ("string", "number 7") or the text
// of go-ethereum's hexutil error it carries ("hex string without 0x prefix") into the end of
// a message.
func describeValue(v string) string {
	switch {
	case v == "object" || v == "array":
		return "got an " + v
	case v == "string" || v == "number":
		return "got a " + v
	case v == "non-string":
		return "got a value that is not a string"
	case v == "bool":
		return "got true or false"
	case strings.HasPrefix(v, "number "):
		return "got " + v
	}
	return "got " + goTypeNames.Replace(v)
}

// TypeName names the Go type t decodes in the JSON-RPC vocabulary.
func TypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.PkgPath() + "." + t.Name() {
	case "github.com/ethereum/go-ethereum/common.Address":
		return "an address (0x-prefixed, 20 bytes of hex)"
	case "github.com/ethereum/go-ethereum/common.Hash":
		return "a hash (0x-prefixed, 32 bytes of hex)"
	case "github.com/ethereum/go-ethereum/common/hexutil.Big",
		"github.com/ethereum/go-ethereum/common/hexutil.U256",
		"github.com/ethereum/go-ethereum/common/hexutil.Uint64",
		"github.com/ethereum/go-ethereum/common/hexutil.Uint",
		"github.com/ethereum/go-ethereum/common/math.HexOrDecimal64",
		"github.com/ethereum/go-ethereum/common/math.HexOrDecimal256":
		return `a quantity (a hex string such as "0x1a")`
	case "github.com/ethereum/go-ethereum/common/hexutil.Bytes":
		return `bytes (a 0x-prefixed hex string such as "0x01ab")`
	case "github.com/ethereum/go-ethereum/rpc.BlockNumber":
		return "a block number or tag (latest, pending, safe, finalized, earliest)"
	case "github.com/ethereum/go-ethereum/rpc.BlockNumberOrHash":
		return "a block number, tag or hash"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes (a 0x-prefixed hex string)"
		}
		return "an array"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	}
	return "a value"
}

// goTypeNames replaces the Go type names go-ethereum's decoders put in their error texts
// ("hex string has length 38, want 40 for common.Address").
var goTypeNames = strings.NewReplacer(
	"Go value of type ", "", "Go struct field ", "field ",
	"*common.Address", "address", "common.Address", "address",
	"*common.Hash", "hash", "common.Hash", "hash",
	"*hexutil.Big", "quantity", "hexutil.Big", "quantity", "*hexutil.U256", "quantity", "hexutil.U256", "quantity",
	"*hexutil.Uint64", "quantity", "hexutil.Uint64", "quantity", "*hexutil.Uint", "quantity", "hexutil.Uint", "quantity",
	"*hexutil.Bytes", "bytes", "hexutil.Bytes", "bytes",
	"rpc.BlockNumberOrHash", "block number, tag or hash", "rpc.BlockNumber", "block number",
	"*big.Int", "quantity", "big.Int", "quantity", "[]uint8", "bytes",
)

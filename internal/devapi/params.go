package devapi

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// Parameter decoding. Every error is -32602 and names the parameter (errors.go).

// wantParams refuses more than max parameters and fewer than min.
func wantParams(p rpc.Params, min, max int) error {
	if p.Len() > max {
		return rpc.InvalidParams("too many arguments, want at most %d", max)
	}
	if p.Len() < min {
		return rpc.InvalidParams("missing value for required argument %d", p.Len())
	}
	return nil
}

// decodeParam decodes parameter i, called name, into v.
func decodeParam(p rpc.Params, i int, name string, v any) error {
	if !param.Present(p, i) {
		return param.NamedArgError(i, name, fmt.Errorf("missing value"))
	}
	if err := json.Unmarshal(p.At(i), v); err != nil {
		return param.NamedArgError(i, name, ethjson.DecodeError(err))
	}
	return nil
}

// decodeAddressParam decodes parameter i, an address called name.
func decodeAddressParam(p rpc.Params, i int, name string) (common.Address, error) {
	var s string
	if err := decodeParam(p, i, name, &s); err != nil {
		return common.Address{}, err
	}
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return common.Address{}, param.NamedArgError(i, name, fmt.Errorf("%q is not a 20-byte hex address", s))
	}
	return common.HexToAddress(s), nil
}

// decodeBytesParam decodes parameter i, hex bytes called name.
func decodeBytesParam(p rpc.Params, i int, name string) ([]byte, error) {
	var b hexutil.Bytes
	if err := decodeParam(p, i, name, &b); err != nil {
		return nil, err
	}
	return b, nil
}

// decodeUintParam decodes parameter i, called name: a JSON number or a hex (or decimal)
// quantity string, as anvil and Hardhat accept them. A negative value is refused.
func decodeUintParam(p rpc.Params, i int, name string, bits int) (*big.Int, error) {
	if !param.Present(p, i) {
		return nil, param.NamedArgError(i, name, fmt.Errorf("missing value"))
	}
	v, err := parseQuantity(p.At(i), bits)
	if err != nil {
		return nil, param.NamedArgError(i, name, err)
	}
	return v, nil
}

// parseQuantity parses a JSON number or a quantity string ("0x…" hex or decimal digits) of at
// most bits bits.
func parseQuantity(raw json.RawMessage, bits int) (*big.Int, error) {
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
	} else {
		s = string(raw)
	}
	if strings.HasPrefix(s, "-") {
		return nil, fmt.Errorf("%s is negative", s)
	}
	v, ok := new(big.Int), false
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		if len(s) == 2 {
			return nil, fmt.Errorf("%q has no digits", s)
		}
		v, ok = v.SetString(s[2:], 16)
	case s != "" && strings.Trim(s, "0123456789") == "":
		v, ok = v.SetString(s, 10)
	}
	if !ok {
		return nil, fmt.Errorf("%s is not a number or a hex quantity", raw)
	}
	if v.BitLen() > bits {
		return nil, fmt.Errorf("%s exceeds %d bits", raw, bits)
	}
	return v, nil
}

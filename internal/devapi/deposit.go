package devapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// dev_deposit stands in for an L1 deposit on the OP Stack dev chain (decisions.md): params
// [{from, to, mint, value, gas, data}], to omitted for a contract creation. The deposit lands at
// the top of the next block, right after its L1-attributes deposit (flashblock index 0), mints
// to its sender and runs without fees; the result is its transaction hash.

// defaultDepositGas is a dev_deposit's gas when the request gives none.
const defaultDepositGas = 1_000_000

// depositFields are dev_deposit's fields, in the order errors list them.
var depositFields = []string{"from", "to", "mint", "value", "gas", "data"}

func (a *API) devDeposit(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 1); err != nil {
		return nil, err
	}
	if !param.Present(p, 0) {
		return nil, param.Missing(0)
	}
	d, err := decodeDeposit(p.At(0))
	if err != nil {
		return nil, param.ArgError(0, err)
	}
	hash, err := a.b.Sequencer.Deposit(*d)
	if err != nil {
		return nil, devDepositError(err)
	}
	return json.RawMessage(ethjson.AppendHash(nil, hash)), nil
}

// decodeDeposit decodes and checks a dev_deposit object; every error names its field.
func decodeDeposit(raw json.RawMessage) (*oprollup.Deposit, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("want a deposit object {%s}", strings.Join(depositFields, ", "))
	}
	for name := range fields {
		if !slices.Contains(depositFields, name) {
			return nil, fmt.Errorf("unknown field %q (a deposit has %s)", name, strings.Join(depositFields, ", "))
		}
	}
	field := func(name string, v any) (bool, error) {
		raw, ok := fields[name]
		if !ok || string(raw) == "null" {
			return false, nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return true, fmt.Errorf("%s: %w", name, ethjson.DecodeError(err))
		}
		return true, nil
	}
	d := &oprollup.Deposit{Gas: defaultDepositGas}
	var (
		from        common.Address
		to          common.Address
		mint, value hexutil.Big
		gas         hexutil.Uint64
		data        hexutil.Bytes
	)
	if ok, err := field("from", &from); err != nil {
		return nil, err
	} else if !ok {
		return nil, errors.New("from: missing: a deposit needs its sender")
	}
	d.From = from
	if ok, err := field("to", &to); err != nil {
		return nil, err
	} else if ok {
		d.To = &to
	}
	for _, f := range []struct {
		name string
		dst  *hexutil.Big
		set  **big.Int
	}{{"mint", &mint, &d.Mint}, {"value", &value, &d.Value}} {
		if ok, err := field(f.name, f.dst); err != nil {
			return nil, err
		} else if ok {
			*f.set = f.dst.ToInt()
		}
	}
	if ok, err := field("gas", &gas); err != nil {
		return nil, err
	} else if ok {
		d.Gas = uint64(gas)
	}
	if _, err := field("data", &data); err != nil {
		return nil, err
	}
	d.Data = data
	if len(d.Data) > txpool.MaxTxSize {
		return nil, fmt.Errorf("data: %d bytes, limit %d", len(d.Data), txpool.MaxTxSize)
	}
	intrinsic, err := core.IntrinsicGas(d.Data, nil, nil, d.To == nil, true, true, true)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if d.Gas < intrinsic {
		return nil, fmt.Errorf("gas: %d is below the deposit's intrinsic gas %d", d.Gas, intrinsic)
	}
	return d, nil
}

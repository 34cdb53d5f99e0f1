package devapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/impersonation"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// sendArgs are eth_sendTransaction's transaction fields, as go-ethereum's TransactionArgs
// names them.
type sendArgs struct {
	From                 *common.Address   `json:"from"`
	To                   *common.Address   `json:"to"`
	Gas                  *hexutil.Uint64   `json:"gas"`
	GasPrice             *hexutil.Big      `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big      `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big      `json:"value"`
	Nonce                *hexutil.Uint64   `json:"nonce"`
	Data                 *hexutil.Bytes    `json:"data"`
	Input                *hexutil.Bytes    `json:"input"`
	AccessList           *types.AccessList `json:"accessList"`
	ChainID              *hexutil.Big      `json:"chainId"`
}

// data is input, or data when input is absent; both must agree when both are given.
func (s *sendArgs) data() ([]byte, error) {
	if s.Input != nil && s.Data != nil && !bytes.Equal(*s.Input, *s.Data) {
		return nil, fmt.Errorf(`both "data" and "input" are set and not equal`)
	}
	if s.Input != nil {
		return *s.Input, nil
	}
	if s.Data != nil {
		return *s.Data, nil
	}
	return nil, nil
}

// sendTransaction is eth_sendTransaction: it fills what the transaction lacks as go-ethereum
// and anvil do (nonce: eth_getTransactionCount at `pending`; gas: eth_estimateGas at
// `pending`; fees: an EIP-1559 transaction with eth_maxPriorityFeePerGas's tip and a fee cap
// of twice the next base fee plus the tip, or a legacy one when only gasPrice is given),
// signs it with the sender's dev key, or marks it impersonated, and hands it to the pool.
// m is the endpoint's method table.
func (a *API) sendTransaction(ctx context.Context, p rpc.Params, m map[string]rpc.Method) (any, error) {
	tx, err := a.prepare(ctx, p, m, true)
	if err != nil {
		return nil, err
	}
	if err := a.b.Pool.Add(tx, a.poolView()); err != nil {
		return nil, err // go-ethereum's pool errors, -32000 with their text
	}
	return tx.Hash(), nil
}

// signTransaction is eth_signTransaction: eth_sendTransaction's filling and signing without
// the sending. It answers as anvil does, with the signed transaction's raw encoding (what
// eth_sendRawTransaction takes), which viem's and ethers' JSON-RPC signers expect. An
// impersonated sender has no key to sign with: refused.
func (a *API) signTransaction(ctx context.Context, p rpc.Params, m map[string]rpc.Method) (any, error) {
	tx, err := a.prepare(ctx, p, m, false)
	if err != nil {
		return nil, err
	}
	raw, err := tx.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return hexutil.Bytes(raw), nil
}

// prepare decodes the one transaction parameter, fills what it lacks and signs it with the
// sender's dev key, or, when impersonated is allowed and the sender is impersonated, marks it.
func (a *API) prepare(ctx context.Context, p rpc.Params, m map[string]rpc.Method, impersonated bool) (*types.Transaction, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	var args sendArgs
	if err := decodeParam(p, 0, "transaction", &args); err != nil {
		return nil, err
	}
	if args.From == nil {
		return nil, errNoFrom
	}
	from := *args.From
	key := a.keys[from]
	switch {
	case key == nil && !impersonated:
		return nil, errNoKey(from)
	case key == nil && !a.isImpersonated(from):
		return nil, errUnknownSender(from)
	}
	tx, err := a.fill(ctx, &args, m)
	if err != nil {
		return nil, err
	}
	if key != nil {
		if tx, err = types.SignTx(tx, types.LatestSigner(a.config), key); err != nil {
			return nil, fmt.Errorf("sign: %w", err)
		}
		return tx, nil
	}
	if tx, err = impersonation.Mark(a.config, tx, from); err != nil {
		return nil, param.NamedArgError(0, "transaction", err)
	}
	return tx, nil
}

// fill builds the unsigned transaction of args.
func (a *API) fill(ctx context.Context, args *sendArgs, m map[string]rpc.Method) (*types.Transaction, error) {
	if args.ChainID != nil && args.ChainID.ToInt().Cmp(a.config.ChainID) != 0 {
		return nil, param.NamedArgError(0, "transaction", fmt.Errorf("chainId %d, the chain's is %d", args.ChainID.ToInt(), a.config.ChainID))
	}
	legacy := args.GasPrice != nil
	if legacy && (args.MaxFeePerGas != nil || args.MaxPriorityFeePerGas != nil) {
		return nil, param.NamedArgError(0, "transaction", fmt.Errorf("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"))
	}
	data, err := a.argsData(args)
	if err != nil {
		return nil, err
	}
	value := new(big.Int)
	if args.Value != nil {
		value = args.Value.ToInt()
	}
	var tip, feeCap *big.Int
	if !legacy {
		if tip, feeCap, err = a.fees(ctx, args, m); err != nil {
			return nil, err
		}
	}
	var nonce uint64
	if args.Nonce != nil {
		nonce = uint64(*args.Nonce)
	} else if nonce, err = callUint(ctx, m, "eth_getTransactionCount", *args.From, "pending"); err != nil {
		return nil, err
	}
	var gas uint64
	if args.Gas != nil {
		gas = uint64(*args.Gas)
	} else if gas, err = a.estimate(ctx, args, data, tip, feeCap, m); err != nil {
		return nil, err
	}
	if legacy {
		return types.NewTx(&types.LegacyTx{Nonce: nonce, GasPrice: args.GasPrice.ToInt(), Gas: gas, To: args.To, Value: value, Data: data}), nil
	}
	var al types.AccessList
	if args.AccessList != nil {
		al = *args.AccessList
	}
	return types.NewTx(&types.DynamicFeeTx{
		ChainID: a.config.ChainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		Gas: gas, To: args.To, Value: value, Data: data, AccessList: al,
	}), nil
}

func (a *API) argsData(args *sendArgs) ([]byte, error) {
	data, err := args.data()
	if err != nil {
		return nil, param.NamedArgError(0, "transaction", err)
	}
	return data, nil
}

// fees returns the tip and fee cap of an EIP-1559 transaction: as given, or the suggested tip
// and twice the next base fee plus the tip (go-ethereum's defaults).
func (a *API) fees(ctx context.Context, args *sendArgs, m map[string]rpc.Method) (tip, feeCap *big.Int, err error) {
	if args.MaxPriorityFeePerGas != nil {
		tip = args.MaxPriorityFeePerGas.ToInt()
	} else {
		t, err := callBig(ctx, m, "eth_maxPriorityFeePerGas")
		if err != nil {
			return nil, nil, err
		}
		tip = t
		if args.MaxFeePerGas != nil && tip.Cmp(args.MaxFeePerGas.ToInt()) > 0 {
			tip = args.MaxFeePerGas.ToInt()
		}
	}
	if args.MaxFeePerGas != nil {
		feeCap = args.MaxFeePerGas.ToInt()
	} else {
		feeCap = new(big.Int).Add(tip, new(big.Int).Mul(a.nextBaseFee(), big.NewInt(2)))
	}
	if feeCap.Cmp(tip) < 0 {
		return nil, nil, param.NamedArgError(0, "transaction", fmt.Errorf("maxFeePerGas (%v) < maxPriorityFeePerGas (%v)", feeCap, tip))
	}
	return tip, feeCap, nil
}

// estimate asks the endpoint's eth_estimateGas at `pending` for the gas of args, with the
// fees the transaction will carry (tip and feeCap, nil for a legacy one).
func (a *API) estimate(ctx context.Context, args *sendArgs, data []byte, tip, feeCap *big.Int, m map[string]rpc.Method) (uint64, error) {
	call := map[string]any{"from": args.From, "input": hexutil.Bytes(data)}
	if args.To != nil {
		call["to"] = args.To
	}
	if args.Value != nil {
		call["value"] = args.Value
	}
	if args.GasPrice != nil {
		call["gasPrice"] = args.GasPrice
	}
	if feeCap != nil {
		call["maxFeePerGas"] = (*hexutil.Big)(feeCap)
		call["maxPriorityFeePerGas"] = (*hexutil.Big)(tip)
	}
	if args.AccessList != nil {
		call["accessList"] = args.AccessList
	}
	return callUint(ctx, m, "eth_estimateGas", call, "pending")
}

// nextBaseFee is the base fee of the block a new transaction lands in.
func (a *API) nextBaseFee() *big.Int {
	v := a.b.Preconf.View()
	if v.Pending != nil {
		return v.Pending.Block.BaseFee()
	}
	head := v.Latest
	if fee := eip1559.CalcBaseFee(a.config, head, head.Time+1); fee != nil {
		return fee
	}
	return new(big.Int)
}

// poolView is what a new transaction is validated against: the block in progress, else the
// block after the sealed head (as the API's eth_sendRawTransaction does).
func (a *API) poolView() txpool.View {
	v := a.b.Preconf.View()
	if snap := v.Pending; snap != nil {
		return txpool.StateView(a.config, snap.Header(), snap.ReadState)
	}
	head := v.Latest
	next := &types.Header{
		Number:   new(big.Int).Add(head.Number, common.Big1),
		Time:     head.Time + 1,
		GasLimit: head.GasLimit,
		BaseFee:  eip1559.CalcBaseFee(a.config, head, head.Time+1),
	}
	st, err := a.b.Chain.StateAt(head)
	if err != nil { // the head's state is always there (archive mode); fail closed if not
		return txpool.StateView(a.config, next, func(func(*state.StateDB)) {})
	}
	return txpool.StateView(a.config, next, func(fn func(*state.StateDB)) { fn(st) })
}

// callMethod calls method of the table m with args and returns its JSON result.
func callMethod(ctx context.Context, m map[string]rpc.Method, method string, args ...any) (json.RawMessage, error) {
	fn := m[method]
	if fn == nil {
		return nil, fmt.Errorf("%s is not served", method)
	}
	params := make(rpc.Params, len(args))
	for i, arg := range args {
		raw, err := json.Marshal(arg)
		if err != nil {
			return nil, err
		}
		params[i] = raw
	}
	res, err := fn(ctx, params)
	if err != nil {
		return nil, err
	}
	if raw, ok := res.(json.RawMessage); ok {
		return raw, nil
	}
	return json.Marshal(res)
}

func callBig(ctx context.Context, m map[string]rpc.Method, method string, args ...any) (*big.Int, error) {
	raw, err := callMethod(ctx, m, method, args...)
	if err != nil {
		return nil, err
	}
	var v hexutil.Big
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return v.ToInt(), nil
}

func callUint(ctx context.Context, m map[string]rpc.Method, method string, args ...any) (uint64, error) {
	v, err := callBig(ctx, m, method, args...)
	if err != nil {
		return 0, err
	}
	if !v.IsUint64() {
		return 0, fmt.Errorf("%s: %v out of range", method, v)
	}
	return v.Uint64(), nil
}

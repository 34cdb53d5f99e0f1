package exec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto/kzg4844"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/ethjson"
)

// Args are the transaction arguments of eth_call, eth_estimateGas and the calls of
// eth_simulateV1: go-ethereum's TransactionArgs. Field names decode case-insensitively, as
// encoding/json does; unknown keys are ignored (as geth does); a value of the wrong type is
// a *DecodeError naming the field.
//
// "data" and "input" may both be given when they are equal; "input" is the one used.
type Args struct {
	From                 *common.Address `json:"from"`
	To                   *common.Address `json:"to"`
	Gas                  *hexutil.Uint64 `json:"gas"`
	GasPrice             *hexutil.Big    `json:"gasPrice"`
	MaxFeePerGas         *hexutil.Big    `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *hexutil.Big    `json:"maxPriorityFeePerGas"`
	Value                *hexutil.Big    `json:"value"`
	Nonce                *hexutil.Uint64 `json:"nonce"`

	Data  *hexutil.Bytes `json:"data"`
	Input *hexutil.Bytes `json:"input"`

	AccessList *types.AccessList `json:"accessList,omitempty"`
	ChainID    *hexutil.Big      `json:"chainId,omitempty"`

	BlobFeeCap *hexutil.Big  `json:"maxFeePerBlobGas"`
	BlobHashes []common.Hash `json:"blobVersionedHashes,omitempty"`

	// Blob sidecar fields. Calls ignore them; simulated blob transactions carry them.
	Blobs       []kzg4844.Blob       `json:"blobs"`
	Commitments []kzg4844.Commitment `json:"commitments"`
	Proofs      []kzg4844.Proof      `json:"proofs"`

	AuthorizationList []types.SetCodeAuthorization `json:"authorizationList"`
}

// UnmarshalJSON decodes args, reporting a wrongly typed field as a *DecodeError that names
// it (e.g. `invalid value for field "gas": …`).
func (a *Args) UnmarshalJSON(input []byte) error {
	type plain Args
	dec, err := DecodeObject[plain](input, "transaction arguments")
	if err != nil {
		return err
	}
	*a = Args(dec)
	return nil
}

// DecodeObject decodes a JSON object into T (a type without its own UnmarshalJSON). If that
// fails, it finds the key whose value does not decode and returns a *DecodeError naming it,
// e.g. `invalid value for field "gas" in transaction arguments: …`; what names the object.
// The UnmarshalJSON methods of the request types here and in internal/exec/simulate use it.
func DecodeObject[T any](input []byte, what string) (T, error) {
	var dec T
	err := json.Unmarshal(input, &dec)
	if err == nil {
		return dec, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(input, &fields) != nil {
		return dec, &DecodeError{msg: fmt.Sprintf("invalid %s: not a JSON object", what)}
	}
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		single, merr := json.Marshal(map[string]json.RawMessage{key: fields[key]})
		if merr != nil {
			continue
		}
		var probe T
		if ferr := json.Unmarshal(single, &probe); ferr != nil {
			return dec, &DecodeError{msg: fmt.Sprintf("invalid value for field %q in %s: %v", key, what, fieldError(ferr))}
		}
	}
	return dec, &DecodeError{msg: fmt.Sprintf("invalid %s: %v", what, err)}
}

// fieldError says what was wrong with a field in the JSON-RPC vocabulary, without Go's type
// names (ethjson.DecodeError).
func fieldError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) { // the message names the field already
		c := *te
		c.Field = ""
		return ethjson.DecodeError(&c)
	}
	return ethjson.DecodeError(err)
}

// Sender returns the sender, the zero address when none was given.
func (a *Args) Sender() common.Address {
	if a.From == nil {
		return common.Address{}
	}
	return *a.From
}

// data returns the call data; "input" is preferred.
func (a *Args) data() []byte {
	if a.Input != nil {
		return *a.Input
	}
	if a.Data != nil {
		return *a.Data
	}
	return nil
}

// checkBlobFeeCap rejects a blob fee cap without blob hashes (eth_call, eth_estimateGas).
func (a *Args) checkBlobFeeCap() error {
	if a.BlobFeeCap != nil && len(a.BlobHashes) == 0 {
		return argsErrorf("maxFeePerBlobGas specified without blobVersionedHashes")
	}
	return nil
}

// CallDefaults fills missing fields for a call like geth's TransactionArgs.CallDefaults:
// gas defaults to (and is capped at) gasCap (0 = half of MaxUint64), nonce and value to
// zero, fee fields to zero of the style the base fee calls for, chain id to chainID.
// It also rejects "data" and "input" that differ.
func (a *Args) CallDefaults(gasCap uint64, baseFee, chainID *big.Int) error {
	if a.Data != nil && a.Input != nil && !bytes.Equal(*a.Data, *a.Input) {
		return argsErrorf(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)
	}
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return argsErrorf("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	if a.To == nil {
		if a.BlobHashes != nil {
			return &ArgsError{msg: core.ErrBlobTxCreate.Error()}
		}
		if a.AuthorizationList != nil {
			return &ArgsError{msg: core.ErrSetCodeTxCreate.Error()}
		}
	}
	if a.ChainID == nil {
		a.ChainID = (*hexutil.Big)(chainID)
	} else if have := a.ChainID.ToInt(); have.Cmp(chainID) != 0 {
		return argsErrorf("chainId does not match node's (have=%v, want=%v)", have, chainID)
	}
	if a.Gas == nil {
		gas := gasCap
		if gas == 0 {
			gas = math.MaxUint64 / 2
		}
		a.Gas = (*hexutil.Uint64)(&gas)
	} else if gasCap > 0 && gasCap < uint64(*a.Gas) {
		a.Gas = (*hexutil.Uint64)(&gasCap)
	}
	if a.Nonce == nil {
		a.Nonce = new(hexutil.Uint64)
	}
	if a.Value == nil {
		a.Value = new(hexutil.Big)
	}
	if baseFee == nil {
		if a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil {
			return argsErrorf("maxFeePerGas and maxPriorityFeePerGas are not valid before London is active")
		}
		if a.GasPrice == nil {
			a.GasPrice = new(hexutil.Big)
		}
	} else {
		if a.MaxFeePerGas == nil {
			a.MaxFeePerGas = new(hexutil.Big)
		}
		if a.MaxPriorityFeePerGas == nil {
			a.MaxPriorityFeePerGas = new(hexutil.Big)
		}
	}
	if a.BlobFeeCap == nil && a.BlobHashes != nil {
		a.BlobFeeCap = new(hexutil.Big)
	}
	return nil
}

// ToMessage converts defaulted args to a core.Message like geth's TransactionArgs.ToMessage.
// The transaction checks (sender is an EOA, EIP-7825 gas limit cap) are always skipped.
func (a *Args) ToMessage(baseFee *big.Int, skipNonceCheck bool) *core.Message {
	msg := new(core.Message)
	a.FillMessage(msg, baseFee, skipNonceCheck)
	return msg
}

// FillMessage sets msg to ToMessage's message, for callers that keep the messages of many
// calls in one slice (eth_simulateV1's blocks).
func (a *Args) FillMessage(msg *core.Message, baseFee *big.Int, skipNonceCheck bool) {
	var gasPrice, gasFeeCap, gasTipCap *big.Int
	switch {
	case baseFee == nil || a.GasPrice != nil:
		gasPrice = a.GasPrice.ToInt()
		gasFeeCap, gasTipCap = gasPrice, gasPrice
	default:
		gasFeeCap = a.MaxFeePerGas.ToInt()
		gasTipCap = a.MaxPriorityFeePerGas.ToInt()
		// Backfill the legacy gas price for EVM execution, unless all fees are zero.
		gasPrice = new(big.Int)
		if gasFeeCap.BitLen() > 0 || gasTipCap.BitLen() > 0 {
			gasPrice = gasPrice.Add(gasTipCap, baseFee)
			if gasPrice.Cmp(gasFeeCap) > 0 {
				gasPrice = gasFeeCap
			}
		}
	}
	var accessList types.AccessList
	if a.AccessList != nil {
		accessList = *a.AccessList
	}
	*msg = core.Message{
		From:                  a.Sender(),
		To:                    a.To,
		Value:                 (*big.Int)(a.Value),
		Nonce:                 uint64(*a.Nonce),
		GasLimit:              uint64(*a.Gas),
		GasPrice:              gasPrice,
		GasFeeCap:             gasFeeCap,
		GasTipCap:             gasTipCap,
		Data:                  a.data(),
		AccessList:            accessList,
		BlobGasFeeCap:         (*big.Int)(a.BlobFeeCap),
		BlobHashes:            a.BlobHashes,
		SetCodeAuthorizations: a.AuthorizationList,
		SkipNonceChecks:       skipNonceCheck,
		SkipTransactionChecks: true,
	}
}

// TxData returns the fields of the unsigned transaction for defaulted args, as geth's
// TransactionArgs.ToTransaction builds it (types.NewTx of them): the given type unless the
// fields call for another (gasPrice → legacy, or access list if one is given; blob hashes →
// blob; authorizations → set-code).
func (a *Args) TxData(defaultType int) types.TxData {
	usedType := types.LegacyTxType
	switch {
	case a.AuthorizationList != nil || defaultType == types.SetCodeTxType:
		usedType = types.SetCodeTxType
	case a.BlobHashes != nil || defaultType == types.BlobTxType:
		usedType = types.BlobTxType
	case a.MaxFeePerGas != nil || defaultType == types.DynamicFeeTxType:
		usedType = types.DynamicFeeTxType
	case a.AccessList != nil || defaultType == types.AccessListTxType:
		usedType = types.AccessListTxType
	}
	if a.GasPrice != nil {
		usedType = types.LegacyTxType
		if a.AccessList != nil {
			usedType = types.AccessListTxType
		}
	}
	al := types.AccessList{}
	if a.AccessList != nil {
		al = *a.AccessList
	}
	var data types.TxData
	switch usedType {
	case types.SetCodeTxType:
		authList := []types.SetCodeAuthorization{}
		if a.AuthorizationList != nil {
			authList = a.AuthorizationList
		}
		data = &types.SetCodeTx{
			To:         *a.To,
			ChainID:    uint256.MustFromBig(a.ChainID.ToInt()),
			Nonce:      uint64(*a.Nonce),
			Gas:        uint64(*a.Gas),
			GasFeeCap:  uint256.MustFromBig(a.MaxFeePerGas.ToInt()),
			GasTipCap:  uint256.MustFromBig(a.MaxPriorityFeePerGas.ToInt()),
			Value:      uint256.MustFromBig(a.Value.ToInt()),
			Data:       a.data(),
			AccessList: al,
			AuthList:   authList,
		}
	case types.BlobTxType:
		blobTx := &types.BlobTx{
			To:         *a.To,
			ChainID:    uint256.MustFromBig(a.ChainID.ToInt()),
			Nonce:      uint64(*a.Nonce),
			Gas:        uint64(*a.Gas),
			GasFeeCap:  uint256.MustFromBig(a.MaxFeePerGas.ToInt()),
			GasTipCap:  uint256.MustFromBig(a.MaxPriorityFeePerGas.ToInt()),
			Value:      uint256.MustFromBig(a.Value.ToInt()),
			Data:       a.data(),
			AccessList: al,
			BlobHashes: a.BlobHashes,
			BlobFeeCap: uint256.MustFromBig(a.BlobFeeCap.ToInt()),
		}
		if a.Blobs != nil {
			version := types.BlobSidecarVersion0
			if len(a.Proofs) == len(a.Blobs)*kzg4844.CellProofsPerBlob {
				version = types.BlobSidecarVersion1
			}
			blobTx.Sidecar = types.NewBlobTxSidecar(version, a.Blobs, a.Commitments, a.Proofs)
		}
		data = blobTx
	case types.DynamicFeeTxType:
		data = &types.DynamicFeeTx{
			To:         a.To,
			ChainID:    a.ChainID.ToInt(),
			Nonce:      uint64(*a.Nonce),
			Gas:        uint64(*a.Gas),
			GasFeeCap:  a.MaxFeePerGas.ToInt(),
			GasTipCap:  a.MaxPriorityFeePerGas.ToInt(),
			Value:      a.Value.ToInt(),
			Data:       a.data(),
			AccessList: al,
		}
	case types.AccessListTxType:
		data = &types.AccessListTx{
			To:         a.To,
			ChainID:    a.ChainID.ToInt(),
			Nonce:      uint64(*a.Nonce),
			Gas:        uint64(*a.Gas),
			GasPrice:   a.GasPrice.ToInt(),
			Value:      a.Value.ToInt(),
			Data:       a.data(),
			AccessList: al,
		}
	default:
		data = &types.LegacyTx{
			To:       a.To,
			Nonce:    uint64(*a.Nonce),
			Gas:      uint64(*a.Gas),
			GasPrice: a.GasPrice.ToInt(),
			Value:    a.Value.ToInt(),
			Data:     a.data(),
		}
	}
	return data
}

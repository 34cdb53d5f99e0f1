package exec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/holiman/uint256"
)

// An AccountOverride replaces parts of one account before a call runs. State replaces the
// whole storage, StateDiff single slots; giving both is an error. MovePrecompileTo moves the
// precompile at this address to another address (the target account's state is kept).
// Any override of a precompile address removes the precompile for that call or block.
type AccountOverride struct {
	Nonce            *hexutil.Uint64             `json:"nonce"`
	Code             *hexutil.Bytes              `json:"code"`
	Balance          *hexutil.Big                `json:"balance"`
	State            map[common.Hash]common.Hash `json:"state"`
	StateDiff        map[common.Hash]common.Hash `json:"stateDiff"`
	MovePrecompileTo *common.Address             `json:"movePrecompileToAddress"`
}

var accountOverrideKeys = []string{"nonce", "code", "balance", "state", "stateDiff", "movePrecompileToAddress"}

// StateOverride is the set of account overrides of a call or a simulated block.
// Decoding rejects unknown keys and two keys naming the same field (keys match
// case-insensitively), with go-ethereum's messages (`unknown field "x" in state override
// for 0x…`).
type StateOverride map[common.Address]AccountOverride

// UnmarshalJSON decodes the overrides, rejecting unknown and duplicate keys.
func (so *StateOverride) UnmarshalJSON(input []byte) error {
	if bytes.Equal(bytes.TrimSpace(input), []byte("null")) {
		*so = nil
		return nil
	}
	var raw map[common.Address]json.RawMessage
	if err := json.Unmarshal(input, &raw); err != nil {
		return &DecodeError{msg: fmt.Sprintf("invalid state override: %v", err)}
	}
	res := make(StateOverride, len(raw))
	for _, addr := range slices.SortedFunc(maps.Keys(raw), common.Address.Cmp) {
		what := "state override for " + addr.Hex()
		if err := checkKeys(raw[addr], accountOverrideKeys, what); err != nil {
			return err
		}
		acc, err := DecodeObject[AccountOverride](raw[addr], what)
		if err != nil {
			return err
		}
		res[addr] = acc
	}
	*so = res
	return nil
}

// checkKeys returns a *DecodeError for a key of the JSON object that names none of fields,
// or names a field another key already names, like geth's checkOverrideKeys. Identical
// repeated keys cannot be seen here; encoding/json keeps the last one.
func checkKeys(input json.RawMessage, fields []string, what string) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(input, &keys); err != nil || keys == nil {
		return nil // not an object: the typed decode reports it
	}
	seen := make(map[int]string, len(keys))
	for _, key := range slices.Sorted(maps.Keys(keys)) {
		field := slices.IndexFunc(fields, func(f string) bool { return strings.EqualFold(f, key) })
		if field < 0 {
			return &DecodeError{msg: fmt.Sprintf("unknown field %q in %s", key, what)}
		}
		if prev, ok := seen[field]; ok {
			return &DecodeError{msg: fmt.Sprintf("keys %q and %q in %s name the same field", prev, key, what)}
		}
		seen[field] = key
	}
	return nil
}

// Apply writes the overrides into statedb in ascending address order and finalises them,
// as if a preceding transaction had made them. precompiles is updated in place: moved
// precompiles appear at their target, overridden ones are removed.
func (so StateOverride) Apply(statedb *state.StateDB, precompiles vm.PrecompiledContracts) error {
	if so == nil {
		return nil
	}
	moved := make(map[common.Address]struct{})
	for _, addr := range slices.SortedFunc(maps.Keys(so), common.Address.Cmp) {
		account := so[addr]
		if _, ok := moved[addr]; ok {
			return overrideErrorf("account %s has already been overridden by a precompile", addr.Hex())
		}
		p, isPrecompile := precompiles[addr]
		if account.MovePrecompileTo != nil {
			if !isPrecompile {
				return overrideErrorf("account %s is not a precompile", addr.Hex())
			}
			if _, ok := so[*account.MovePrecompileTo]; ok {
				return overrideErrorf("account %s is already overridden", account.MovePrecompileTo.Hex())
			}
			precompiles[*account.MovePrecompileTo] = p
			moved[*account.MovePrecompileTo] = struct{}{}
		}
		if isPrecompile {
			delete(precompiles, addr)
		}
		if account.Nonce != nil {
			statedb.SetNonce(addr, uint64(*account.Nonce), tracing.NonceChangeUnspecified)
		}
		if account.Code != nil {
			statedb.SetCode(addr, *account.Code, tracing.CodeChangeUnspecified)
		}
		if account.Balance != nil {
			balance, _ := uint256.FromBig((*big.Int)(account.Balance))
			statedb.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
		}
		if account.State != nil && account.StateDiff != nil {
			return overrideErrorf("account %s has both 'state' and 'stateDiff'", addr.Hex())
		}
		if account.State != nil {
			statedb.SetStorage(addr, account.State)
		}
		for key, value := range account.StateDiff {
			statedb.SetState(addr, key, value)
		}
	}
	statedb.Finalise(false)
	return nil
}

// BlockOverrides replaces header fields of the block a call runs in. eth_call and
// eth_estimateGas reject BeaconRoot and Withdrawals; Difficulty has no effect after the
// merge there (eth_simulateV1 rejects it). BlobBaseFee changes only the EVM context.
// Decoding rejects unknown and duplicate keys (`unknown field "x" in block override`).
type BlockOverrides struct {
	Number        *hexutil.Big       `json:"number"`
	Difficulty    *hexutil.Big       `json:"difficulty"`
	Time          *hexutil.Uint64    `json:"time"`
	GasLimit      *hexutil.Uint64    `json:"gasLimit"`
	FeeRecipient  *common.Address    `json:"feeRecipient"`
	PrevRandao    *common.Hash       `json:"prevRandao"`
	BaseFeePerGas *hexutil.Big       `json:"baseFeePerGas"`
	BlobBaseFee   *hexutil.Big       `json:"blobBaseFee"`
	BeaconRoot    *common.Hash       `json:"beaconRoot"`
	Withdrawals   *types.Withdrawals `json:"withdrawals"`
}

var blockOverrideKeys = []string{"number", "difficulty", "time", "gasLimit", "feeRecipient",
	"prevRandao", "baseFeePerGas", "blobBaseFee", "beaconRoot", "withdrawals"}

// UnmarshalJSON decodes the overrides, rejecting unknown and duplicate keys.
func (o *BlockOverrides) UnmarshalJSON(input []byte) error {
	if err := checkKeys(input, blockOverrideKeys, "block override"); err != nil {
		return err
	}
	type plain BlockOverrides
	dec, err := DecodeObject[plain](input, "block override")
	if err != nil {
		return err
	}
	*o = BlockOverrides(dec)
	return nil
}

// applyContext writes the overrides into an EVM block context (eth_call, eth_estimateGas).
func (o *BlockOverrides) applyContext(blockCtx *vm.BlockContext) error {
	if o == nil {
		return nil
	}
	if o.BeaconRoot != nil {
		return overrideErrorf(`block override "beaconRoot" is not supported for this RPC method`)
	}
	if o.Withdrawals != nil {
		return overrideErrorf(`block override "withdrawals" is not supported for this RPC method`)
	}
	if o.Number != nil {
		blockCtx.BlockNumber = o.Number.ToInt()
	}
	if o.Difficulty != nil {
		blockCtx.Difficulty = o.Difficulty.ToInt()
	}
	if o.Time != nil {
		blockCtx.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		blockCtx.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		blockCtx.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		blockCtx.Random = o.PrevRandao
	}
	if o.BaseFeePerGas != nil {
		blockCtx.BaseFee = o.BaseFeePerGas.ToInt()
	}
	if o.BlobBaseFee != nil {
		blockCtx.BlobBaseFee = o.BlobBaseFee.ToInt()
	}
	return nil
}

// makeHeader returns a copy of header with the overridden fields (BlobBaseFee has no header
// field and is ignored; Difficulty only applies to pre-merge headers).
func (o *BlockOverrides) makeHeader(header *types.Header) *types.Header {
	if o == nil {
		return header
	}
	h := types.CopyHeader(header)
	o.ApplyHeader(h)
	return h
}

// ApplyHeader sets the overridden fields of h, as makeHeader does on its copy.
func (o *BlockOverrides) ApplyHeader(h *types.Header) {
	if o.Number != nil {
		h.Number = o.Number.ToInt()
	}
	if o.Difficulty != nil && (h.Difficulty == nil || h.Difficulty.Sign() != 0) {
		h.Difficulty = o.Difficulty.ToInt()
	}
	if o.Time != nil {
		h.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		h.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		h.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		h.MixDigest = *o.PrevRandao
	}
	if o.BaseFeePerGas != nil {
		h.BaseFee = o.BaseFeePerGas.ToInt()
	}
}

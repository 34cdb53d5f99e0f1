package devapi_test

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// TestSendTransaction: eth_sendTransaction from a dev account fills nonce, gas and fees as
// go-ethereum does (two sends in a row get consecutive nonces, an EIP-1559 transaction with a
// fee cap of twice the base fee plus the tip, or a legacy one when only gasPrice is given),
// signs it with the account's key, and the pool takes it; on both chain types.
func TestSendTransaction(t *testing.T) {
	for _, op := range []bool{false, true} {
		t.Run(fmt.Sprintf("op=%v", op), func(t *testing.T) {
			n := newDevNode(t, op)
			from, to := n.addr(0), common.HexToAddress("0x00000000000000000000000000000000000000c5")
			before := balance(t, n.stdEth, to, false)
			var h1, h2, h3 common.Hash
			mustCall(t, n.pre, &h1, "eth_sendTransaction", map[string]any{"from": from, "to": to, "value": "0x1"})
			mustCall(t, n.std, &h2, "eth_sendTransaction", map[string]any{"from": from, "to": to, "value": "0x2", "data": "0x"})
			mustCall(t, n.pre, &h3, "eth_sendTransaction", map[string]any{"from": from, "to": to, "value": "0x3", "gasPrice": "0x3b9aca00"})
			n.preconfirm(t)
			ctx := context.Background()
			for i, h := range []common.Hash{h1, h2, h3} {
				tx, _, err := n.preEth.TransactionByHash(ctx, h)
				if err != nil {
					t.Fatalf("tx %d: %v", i, err)
				}
				if tx.Nonce() != uint64(i) {
					t.Errorf("tx %d: nonce %d, want %d", i, tx.Nonce(), i)
				}
				wantType := uint8(types.DynamicFeeTxType)
				if i == 2 {
					wantType = types.LegacyTxType
				}
				if tx.Type() != wantType || tx.Gas() != 21000 {
					t.Errorf("tx %d: type %d gas %d, want type %d gas 21000", i, tx.Type(), tx.Gas(), wantType)
				}
				if sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err != nil || sender != from {
					t.Errorf("tx %d: signed by %s (%v), want %s", i, sender, err, from)
				}
				r, err := n.preEth.TransactionReceipt(ctx, h)
				if err != nil || r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("tx %d: receipt %+v, %v", i, r, err)
				}
			}
			if got := balance(t, n.preEth, to, true); got.Cmp(new(big.Int).Add(before, big.NewInt(6))) != 0 {
				t.Errorf("pending balance %v, want %v + 6", got, before)
			}
			n.seal(t)
			if got := balance(t, n.stdEth, to, false); got.Cmp(new(big.Int).Add(before, big.NewInt(6))) != 0 {
				t.Errorf("sealed balance %v, want %v + 6", got, before)
			}
		})
	}
}

// TestSendTransactionEstimates: without gas, eth_sendTransaction estimates on the endpoint's
// `pending`, so a call of a contract deployed in the block in progress is estimated (and
// sent) on the pre-confirmed endpoint; a reverting call is refused with the revert.
func TestSendTransactionEstimates(t *testing.T) {
	n := newDevNode(t, false)
	from := n.addr(2)
	// A contract that reverts when called with data, else stores 1 in slot 0: CALLDATASIZE
	// PUSH1 0x0a JUMPI PUSH1 1 PUSH1 0 SSTORE STOP JUMPDEST PUSH1 0 DUP1 REVERT.
	code := hexutil.MustDecode("0x36600a576001600055005b600080fd")
	initCode := append(hexutil.MustDecode(fmt.Sprintf("0x60%02x600c60003960%02x6000f3", len(code), len(code))), code...)
	var deploy common.Hash
	mustCall(t, n.pre, &deploy, "eth_sendTransaction", map[string]any{"from": from, "data": hexutil.Bytes(initCode)})
	n.preconfirm(t)
	r, err := n.preEth.TransactionReceipt(context.Background(), deploy)
	if err != nil || r.Status != 1 {
		t.Fatalf("deployment: %+v %v", r, err)
	}
	var call common.Hash
	mustCall(t, n.pre, &call, "eth_sendTransaction", map[string]any{"from": from, "to": r.ContractAddress})
	wantError(t, n.pre, rpc.CodeServer, []string{"execution reverted"}, "eth_sendTransaction", map[string]any{"from": from, "to": r.ContractAddress, "data": "0x01"})
	n.preconfirm(t)
	slot, err := n.preEth.PendingStorageAt(context.Background(), r.ContractAddress, common.Hash{})
	if err != nil || new(big.Int).SetBytes(slot).Uint64() != 1 {
		t.Fatalf("slot 0 after the call: %x %v, want 1", slot, err)
	}
}

// TestSendTransactionRefusals: a sender that is neither a dev account nor impersonated, and
// malformed transactions, are refused with a message saying why; the pool stays empty.
func TestSendTransactionRefusals(t *testing.T) {
	n := newDevNode(t, false)
	from, stranger := n.addr(0), common.HexToAddress("0x00000000000000000000000000000000000000aa")
	cases := []struct {
		name  string
		tx    any
		code  int
		words []string
	}{
		{"unknown sender", map[string]any{"from": stranger, "to": from}, rpc.CodeServer, []string{"not a dev account", "anvil_impersonateAccount"}},
		{"no from", map[string]any{"to": from}, rpc.CodeInvalidParams, []string{`missing "from"`}},
		{"bad value", map[string]any{"from": from, "value": "ten"}, rpc.CodeInvalidParams, []string{"argument 0 (transaction)"}},
		{"wrong chain", map[string]any{"from": from, "to": from, "chainId": "0x1"}, rpc.CodeInvalidParams, []string{"chainId 1"}},
		{"both fee kinds", map[string]any{"from": from, "to": from, "gasPrice": "0x1", "maxFeePerGas": "0x1"}, rpc.CodeInvalidParams, []string{"both gasPrice"}},
		{"cap below tip", map[string]any{"from": from, "to": from, "maxFeePerGas": "0x1", "maxPriorityFeePerGas": "0x2"}, rpc.CodeInvalidParams, []string{"maxFeePerGas (1) < maxPriorityFeePerGas (2)"}},
		{"data and input differ", map[string]any{"from": from, "to": from, "data": "0x01", "input": "0x02"}, rpc.CodeInvalidParams, []string{"data"}},
		{"too little gas", map[string]any{"from": from, "to": from, "gas": "0x1"}, rpc.CodeServer, []string{"intrinsic gas too low"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantError(t, n.pre, c.code, c.words, "eth_sendTransaction", c.tx) })
	}
	var status map[string]hexutil.Uint
	mustCall(t, n.pre, &status, "txpool_status")
	if status["pending"] != 0 || status["queued"] != 0 {
		t.Fatalf("txpool_status %v after refusals, want empty", status)
	}
}

// TestSignTransaction: eth_signTransaction fills and signs as eth_sendTransaction does and
// answers the raw signed transaction (anvil's answer) without sending it: the pool stays empty,
// and eth_sendRawTransaction of the answer then pre-confirms it. An impersonated account has no
// key: refused, as is an unknown one.
func TestSignTransaction(t *testing.T) {
	n := newDevNode(t, true)
	from, to := n.addr(0), common.HexToAddress("0x00000000000000000000000000000000000000c6")
	var raw hexutil.Bytes
	mustCall(t, n.pre, &raw, "eth_signTransaction", map[string]any{"from": from, "to": to, "value": "0x7"})
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatalf("answer is not a raw transaction: %v", err)
	}
	if sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err != nil || sender != from {
		t.Fatalf("signed by %s (%v), want %s", sender, err, from)
	}
	if tx.Type() != types.DynamicFeeTxType || tx.Nonce() != 0 || tx.Gas() != 21000 || tx.Value().Uint64() != 7 || *tx.To() != to {
		t.Fatalf("tx type %d nonce %d gas %d value %v to %v", tx.Type(), tx.Nonce(), tx.Gas(), tx.Value(), tx.To())
	}
	var status map[string]hexutil.Uint
	mustCall(t, n.pre, &status, "txpool_status")
	if status["pending"] != 0 || status["queued"] != 0 {
		t.Fatalf("txpool_status %v after signing, want empty: signing must not send", status)
	}
	var h common.Hash
	mustCall(t, n.std, &h, "eth_sendRawTransaction", raw)
	if h != tx.Hash() {
		t.Fatalf("sent %s, signed %s", h, tx.Hash())
	}
	n.preconfirm(t)
	if r, err := n.preEth.TransactionReceipt(context.Background(), h); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("receipt %+v, %v", r, err)
	}

	whale := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	var ok bool
	mustCall(t, n.std, &ok, "anvil_impersonateAccount", whale)
	wantError(t, n.pre, rpc.CodeServer, []string{"no key for", whale.Hex()}, "eth_signTransaction", map[string]any{"from": whale, "to": to})
	wantError(t, n.pre, rpc.CodeInvalidParams, []string{`missing "from"`}, "eth_signTransaction", map[string]any{"to": to})
}

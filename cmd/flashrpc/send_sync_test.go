package main

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

type syncResult struct {
	receipt *types.Receipt
	err     error
}

// sendSync calls eth_sendRawTransactionSync on c in the background.
func sendSync(c *gethrpc.Client, tx *types.Transaction, timeoutMs any) <-chan syncResult {
	out := make(chan syncResult, 1)
	raw, _ := tx.MarshalBinary()
	go func() {
		var r types.Receipt
		args := []any{hexutil.Bytes(raw)}
		if timeoutMs != nil {
			args = append(args, timeoutMs)
		}
		err := c.CallContext(context.Background(), &r, "eth_sendRawTransactionSync", args...)
		out <- syncResult{&r, err}
	}()
	return out
}

// waitPooled waits until the node knows tx (pooled or later), so that a pre-confirmation
// triggered next includes it.
func waitPooled(t *testing.T, tn *testNode, hash common.Hash) {
	t.Helper()
	for deadline := time.Now().Add(recvTimeout); ; time.Sleep(time.Millisecond) {
		var tx map[string]any
		if err := tn.preRaw.Call(&tx, "eth_getTransactionByHash", hash); err != nil {
			t.Fatal(err)
		}
		if tx != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s never reached the pool", hash)
		}
	}
}

// TestSendRawTransactionSync covers EIP-7966 on both endpoints: the pre-confirmed endpoint
// answers with the pre-confirmed receipt, the standard one with the sealed receipt; a
// transaction already pre-confirmed when the call comes is answered at once (base/base#3826);
// a timeout over the maximum is invalid params; a wait that runs out is code 4.
func TestSendRawTransactionSync(t *testing.T) {
	tn := startTestNode(t, testOptions(t.TempDir()))
	chainID := big.NewInt(1337)
	to := common.HexToAddress("0x0000000000000000000000000000000000005ace")
	key := tn.Accounts()[0].Key
	transfer := func(nonce uint64) *types.Transaction {
		return signTx(t, key, chainID, nonce, &to, big.NewInt(1), params.TxGas, nil)
	}

	t.Run("pre-confirmed endpoint", func(t *testing.T) {
		tx := transfer(0)
		res := sendSync(tn.preRaw, tx, 5000)
		waitPooled(t, tn, tx.Hash())
		tn.preconfirm(t)
		r := recv(t, res, "eth_sendRawTransactionSync answer")
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.receipt.TxHash != tx.Hash() || r.receipt.Status != 1 || r.receipt.BlockHash != (common.Hash{}) || r.receipt.BlockNumber.Uint64() != tn.Chain().Head().Number.Uint64()+1 {
			t.Fatalf("receipt %+v, want the pre-confirmed one", r.receipt)
		}
	})
	t.Run("already pre-confirmed", func(t *testing.T) {
		tx := transfer(1)
		if err := tn.pre.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		tn.preconfirm(t)
		// Sent again, synchronously: the receipt exists already, and no nonce error.
		r := recv(t, sendSync(tn.preRaw, tx, nil), "answer for a pre-confirmed transaction")
		if r.err != nil || r.receipt.TxHash != tx.Hash() {
			t.Fatalf("got %+v, %v", r.receipt, r.err)
		}
	})
	t.Run("standard endpoint waits for sealing", func(t *testing.T) {
		tx := transfer(2)
		res := sendSync(tn.stdRaw, tx, 5000)
		waitPooled(t, tn, tx.Hash())
		tn.preconfirm(t)
		select {
		case r := <-res:
			t.Fatalf("answered before sealing: %+v %v", r.receipt, r.err)
		default:
		}
		tn.seal(t)
		r := recv(t, res, "answer after sealing")
		if r.err != nil || r.receipt.BlockHash != tn.Chain().Head().Hash() {
			t.Fatalf("got %+v, %v; want the receipt in block %s", r.receipt, r.err, tn.Chain().Head().Hash())
		}
	})
	t.Run("timeout over the maximum", func(t *testing.T) {
		for _, timeout := range []any{6001, "0x1771"} {
			r := recv(t, sendSync(tn.preRaw, transfer(3), timeout), "answer")
			if e, ok := r.err.(gethrpc.Error); !ok || e.ErrorCode() != -32602 {
				t.Fatalf("timeout %v: %v, want -32602", timeout, r.err)
			}
		}
	})
	t.Run("timeout", func(t *testing.T) {
		tx := transfer(3)
		r := recv(t, sendSync(tn.preRaw, tx, 50), "timeout answer") // nothing pre-confirms it
		e, ok := r.err.(gethrpc.Error)
		de, _ := r.err.(gethrpc.DataError)
		if !ok || e.ErrorCode() != 4 || de == nil || de.ErrorData() != tx.Hash().Hex() {
			t.Fatalf("got %v, want code 4 with the hash as data", r.err)
		}
		// The transaction stays in the pool and is pre-confirmed later.
		tn.preconfirm(t)
		if _, err := tn.pre.TransactionReceipt(context.Background(), tx.Hash()); err != nil {
			t.Fatalf("after the timeout: %v", err)
		}
	})
}

// TestSendTransactionSyncTimers uses go-ethereum's ethclient.SendTransactionSync against the
// default 200 ms pre-confirmations: the receipt arrives pre-confirmed, before sealing.
func TestSendTransactionSyncTimers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 200 ms timers; skipped with -short")
	}
	o := testOptions(t.TempDir())
	_, defaults := devFlags(nil)
	o.preconfInterval, o.blockTime = defaults.preconfInterval, time.Hour // sealing never comes
	tn := startTestNode(t, o)
	to := common.HexToAddress("0x0000000000000000000000000000000000005ace")
	for nonce := range uint64(3) {
		tx := signTx(t, tn.Accounts()[1].Key, big.NewInt(1337), nonce, &to, big.NewInt(1), params.TxGas, nil)
		r, err := tn.pre.SendTransactionSync(context.Background(), tx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.TxHash != tx.Hash() || r.BlockNumber.Uint64() != 1 || r.BlockHash != (common.Hash{}) {
			t.Fatalf("receipt %+v", r)
		}
	}
}

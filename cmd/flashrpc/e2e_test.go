package main

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
)

var pendingTag = big.NewInt(-1) // ethclient's way to ask for `pending`

// TestPreconfirmedThenSealed follows a transfer and a contract deployment from a dev account
// through pre-confirmation (visible with `pending` on the pre-confirmed endpoint only) to
// sealing (visible on both), then across a restart on the same data directory.
func TestPreconfirmedThenSealed(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) { testPreconfirmedThenSealed(t, chainType) })
	}
}

func testPreconfirmedThenSealed(t *testing.T, chainType string) {
	ctx := context.Background()
	dir := t.TempDir()
	tn := startTestNode(t, testOptionsOf(dir, chainType))
	key := tn.Accounts()[0].Key
	from := addressOf(key)
	chainID, err := tn.pre.ChainID(ctx)
	if err != nil || chainID.Uint64() != 1337 {
		t.Fatalf("chain id: %v %v", chainID, err)
	}
	recipient := common.HexToAddress("0x00000000000000000000000000000000000c0ffe")
	value := big.NewInt(12345)
	transfer := signTx(t, key, chainID, 0, &recipient, value, params.TxGas, nil)
	deploy := signTx(t, key, chainID, 1, nil, new(big.Int), 200_000, logInit)
	contract := crypto.CreateAddress(from, 1)
	for _, tx := range []*types.Transaction{transfer, deploy} {
		if err := tn.pre.SendTransaction(ctx, tx); err != nil {
			t.Fatalf("send %s: %v", tx.Hash(), err)
		}
	}
	tn.preconfirm(t)

	// The pre-confirmed endpoint sees both transactions in the pending block.
	block, err := tn.pre.BlockByNumber(ctx, pendingTag)
	if err != nil {
		t.Fatalf("pending block: %v", err)
	}
	// An OP Stack block opens with its L1-attributes deposit.
	opening := map[string]int{chainTypeOP: 1, chainTypeL1: 0}[chainType]
	if block.NumberU64() != 1 || len(block.Transactions()) != opening+2 || depositCount(block.Transactions()) != opening {
		t.Fatalf("pending block: number %d with %d txs, want 1 with %d", block.NumberU64(), len(block.Transactions()), opening+2)
	}
	if block.ParentHash() != tn.Chain().Genesis().Hash() {
		t.Fatalf("pending parentHash %s, want the sealed head", block.ParentHash())
	}
	receipt, err := tn.pre.TransactionReceipt(ctx, deploy.Hash())
	if err != nil {
		t.Fatalf("pre-confirmed receipt: %v", err)
	}
	if receipt.Status != types.ReceiptStatusSuccessful || receipt.ContractAddress != contract || receipt.BlockNumber.Uint64() != 1 || receipt.BlockHash != (common.Hash{}) {
		t.Fatalf("pre-confirmed receipt: %+v", receipt)
	}
	if code, err := tn.pre.CodeAt(ctx, contract, pendingTag); err != nil || common.Bytes2Hex(code) != common.Bytes2Hex(logRuntime) {
		t.Fatalf("pending code: %x %v", code, err)
	}
	if bal, err := tn.pre.BalanceAt(ctx, recipient, pendingTag); err != nil || bal.Cmp(value) != 0 {
		t.Fatalf("pending balance: %v %v", bal, err)
	}
	if nonce, err := tn.pre.NonceAt(ctx, from, pendingTag); err != nil || nonce != 2 {
		t.Fatalf("pending nonce: %d %v", nonce, err)
	}
	// Pre-confirmed transactions carry their block number (blockHash is null, decisions.md).
	tx, _, err := tn.pre.TransactionByHash(ctx, transfer.Hash())
	if err != nil || tx.Hash() != transfer.Hash() {
		t.Fatalf("pre-confirmed transaction by hash: %v", err)
	}
	if _, _, err := tn.std.TransactionByHash(ctx, transfer.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("standard endpoint transaction before sealing: %v, want not found", err)
	}

	// The standard endpoint sees nothing before sealing, `pending` included (the next block as
	// forecast: latest's state, no transactions).
	if _, err := tn.std.TransactionReceipt(ctx, deploy.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("standard endpoint receipt before sealing: %v, want not found", err)
	}
	if code, err := tn.std.CodeAt(ctx, contract, pendingTag); err != nil || len(code) != 0 {
		t.Fatalf("standard endpoint pending code before sealing: %x %v", code, err)
	}
	if bal, err := tn.std.BalanceAt(ctx, recipient, pendingTag); err != nil || bal.Sign() != 0 {
		t.Fatalf("standard endpoint pending balance before sealing: %v %v", bal, err)
	}
	if b, err := tn.std.BlockByNumber(ctx, pendingTag); err != nil || b.NumberU64() != 1 || len(b.Transactions()) != 0 {
		t.Fatalf("standard endpoint pending block before sealing: %v, want block 1 as forecast, without transactions", err)
	}
	preHash := block.Hash()

	tn.seal(t)
	for name, c := range map[string]interface {
		BlockByNumber(context.Context, *big.Int) (*types.Block, error)
		TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error)
		CodeAt(context.Context, common.Address, *big.Int) ([]byte, error)
		FilterLogs(context.Context, ethereum.FilterQuery) ([]types.Log, error)
	}{"standard": tn.std, "pre-confirmed": tn.pre} {
		sealed, err := c.BlockByNumber(ctx, nil)
		if err != nil || sealed.NumberU64() != 1 || len(sealed.Transactions()) != opening+2 {
			t.Fatalf("%s: latest block after sealing: %v", name, err)
		}
		if sealed.Hash() != preHash {
			t.Fatalf("%s: sealed hash %s differs from the last pre-confirmed hash %s", name, sealed.Hash(), preHash)
		}
		r, err := c.TransactionReceipt(ctx, deploy.Hash())
		if err != nil || r.BlockHash != sealed.Hash() {
			t.Fatalf("%s: sealed receipt: %v", name, err)
		}
		if code, err := c.CodeAt(ctx, contract, nil); err != nil || len(code) == 0 {
			t.Fatalf("%s: code after sealing: %v", name, err)
		}
	}

	// A call that emits a log, pre-confirmed and sealed, is found by eth_getLogs.
	emit := signTx(t, key, chainID, 2, &contract, new(big.Int), 50_000, nil)
	if err := tn.std.SendTransaction(ctx, emit); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	q := ethereum.FilterQuery{Addresses: []common.Address{contract}, FromBlock: big.NewInt(0), ToBlock: pendingTag}
	if logs, err := tn.pre.FilterLogs(ctx, q); err != nil || len(logs) != 1 || logs[0].BlockNumber != 2 || logs[0].Topics[0] != logTopic {
		t.Fatalf("pre-confirmed logs: %v %v", logs, err)
	}
	if logs, err := tn.std.FilterLogs(ctx, q); err != nil || len(logs) != 0 {
		t.Fatalf("standard endpoint logs before sealing: %v %v", logs, err)
	}
	tn.seal(t)
	q.ToBlock = nil
	if logs, err := tn.std.FilterLogs(ctx, q); err != nil || len(logs) != 1 || logs[0].BlockNumber != 2 {
		t.Fatalf("sealed logs: %v %v", logs, err)
	}

	// A restart on the same data directory continues from the sealed head, on the stored
	// chain whatever the default chain type.
	head := tn.Chain().Head().Hash()
	tn.stop()
	tn = startTestNode(t, testOptions(dir))
	if got := oprollup.IsOP(tn.Chain().Config()); got != (chainType == chainTypeOP) {
		t.Fatalf("after restart: OP Stack chain = %v, want the stored %s chain", got, chainType)
	}
	latest, err := tn.std.BlockByNumber(ctx, nil)
	if err != nil || latest.Hash() != head || latest.NumberU64() != 2 {
		t.Fatalf("after restart: head %v, want block 2 %s", err, head)
	}
	if code, err := tn.std.CodeAt(ctx, contract, nil); err != nil || len(code) == 0 {
		t.Fatalf("code after restart: %v", err)
	}
	if r, err := tn.std.TransactionReceipt(ctx, transfer.Hash()); err != nil || r.BlockNumber.Uint64() != 1 {
		t.Fatalf("receipt after restart: %v", err)
	}
	if nonce, err := tn.pre.NonceAt(ctx, from, pendingTag); err != nil || nonce != 3 {
		t.Fatalf("nonce after restart: %d %v", nonce, err)
	}
}

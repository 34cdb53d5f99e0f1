package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/params"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// The client suite's scenarios (clients/README.md) written with go-ethereum's ethclient, against
// both endpoints of a dev node. clients/run.mjs runs this test and counts its subtests as the
// ethclient column of the suite's summary; `go test ./...` runs it too.

// csReason is ClientSuite's revert reason (clients/contracts/ClientSuite.sol).
const csReason = "ClientSuite: value too large"

var csSink = common.HexToAddress("0x000000000000000000000000000000000000dEaD")

// csArtifact is clients/contracts/ClientSuite.json, compiled by clients/compile.mjs.
type csArtifact struct {
	ABI              abi.ABI
	Bytecode         []byte
	DeployedBytecode []byte
}

func loadClientSuiteArtifact(t *testing.T) *csArtifact {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "clients", "contracts", "ClientSuite.json"))
	if err != nil {
		t.Fatalf("client suite contract: %v", err)
	}
	var j struct {
		ABI              json.RawMessage `json:"abi"`
		Bytecode         hexutil.Bytes   `json:"bytecode"`
		DeployedBytecode hexutil.Bytes   `json:"deployedBytecode"`
	}
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatalf("ClientSuite.json: %v", err)
	}
	a := &csArtifact{Bytecode: j.Bytecode, DeployedBytecode: j.DeployedBytecode}
	if a.ABI, err = abi.JSON(strings.NewReader(string(j.ABI))); err != nil {
		t.Fatalf("ClientSuite ABI: %v", err)
	}
	return a
}

// csEnv is what every scenario shares: one manual-mode node, its clients and the contract.
type csEnv struct {
	tn    *testNode
	art   *csArtifact
	both  []csEndpoint
	keys  []*ecdsa.PrivateKey
	chain *big.Int
}

type csEndpoint struct {
	name string
	c    *ethclient.Client
	ws   string
}

func (e *csEnv) pack(t *testing.T, method string, args ...any) []byte {
	t.Helper()
	data, err := e.art.ABI.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// send signs a transaction from key with the nonce and fees the endpoint suggests (as a wallet
// does) and sends it through c. gas 0 estimates on `pending`.
func (e *csEnv) send(t *testing.T, c *ethclient.Client, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte, gas uint64) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if gas == 0 {
		msg := ethereum.CallMsg{From: from, To: to, Value: value, Data: data}
		if gas, err = c.EstimateGasAtBlock(ctx, msg, pendingTag); err != nil {
			t.Fatalf("estimate: %v", err)
		}
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(e.chain), &types.DynamicFeeTx{
		ChainID: e.chain, Nonce: nonce, To: to, Value: value, Gas: gas, Data: data, GasFeeCap: feeCap, GasTipCap: tip,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("send nonce %d: %v", nonce, err)
	}
	return tx
}

// deploy deploys ClientSuite(start) from key 0, pre-confirms and seals; it returns the address.
func (e *csEnv) deploy(t *testing.T, start int64) common.Address {
	t.Helper()
	args, err := e.art.ABI.Pack("", big.NewInt(start))
	if err != nil {
		t.Fatal(err)
	}
	tx := e.send(t, e.tn.std, e.keys[0], nil, nil, append(append([]byte{}, e.art.Bytecode...), args...), 0)
	e.tn.preconfirm(t)
	e.tn.seal(t)
	r, err := e.tn.std.TransactionReceipt(context.Background(), tx.Hash())
	if err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deployment: %v %+v", err, r)
	}
	return r.ContractAddress
}

// csRevertReason decodes the Error(string) revert data carried by an RPC error.
func csRevertReason(t *testing.T, err error) string {
	t.Helper()
	var de gethrpc.DataError
	if !errors.As(err, &de) {
		t.Fatalf("error %v carries no revert data", err)
	}
	data, ok := de.ErrorData().(string)
	if !ok {
		t.Fatalf("revert data %v is not a string", de.ErrorData())
	}
	reason, uerr := abi.UnpackRevert(common.FromHex(data))
	if uerr != nil {
		t.Fatalf("unpack revert %s: %v", data, uerr)
	}
	return reason
}

// csCustomError decodes the custom error whose revert data an RPC error carries.
func csCustomError(t *testing.T, art *csArtifact, err error) (string, any) {
	t.Helper()
	var de gethrpc.DataError
	if !errors.As(err, &de) {
		t.Fatalf("error %v carries no revert data", err)
	}
	data := common.FromHex(fmt.Sprint(de.ErrorData()))
	if len(data) < 4 {
		t.Fatalf("revert data %x too short", data)
	}
	e, lerr := art.ABI.ErrorByID([4]byte(data[:4]))
	if lerr != nil || e == nil {
		t.Fatalf("no ABI error for %x: %v", data[:4], lerr)
	}
	args, uerr := e.Inputs.Unpack(data[4:])
	if uerr != nil {
		t.Fatalf("unpack %s: %v", e.Name, uerr)
	}
	return e.Name, args
}

func TestClientSuite(t *testing.T) {
	ctx := context.Background()
	art := loadClientSuiteArtifact(t)
	tn := startTestNode(t, testOptions(t.TempDir()))
	e := &csEnv{tn: tn, art: art, keys: testOptionsAccounts(t), chain: big.NewInt(1337)}
	e.both = []csEndpoint{
		{"standard", tn.std, strings.Replace(tn.stdURL, "http://", "ws://", 1)},
		{"pre-confirmed", tn.pre, strings.Replace(tn.preURL, "http://", "ws://", 1)},
	}
	var contract common.Address

	t.Run("chain-id", func(t *testing.T) {
		for _, ep := range e.both {
			id, err := ep.c.ChainID(ctx)
			if err != nil || id.Int64() != 1337 {
				t.Fatalf("%s ChainID: %v %v", ep.name, id, err)
			}
			if nid, err := ep.c.NetworkID(ctx); err != nil || nid.Int64() != 1337 {
				t.Fatalf("%s NetworkID: %v %v", ep.name, nid, err)
			}
		}
	})

	t.Run("blocks-by-tag", func(t *testing.T) {
		tags := map[string]*big.Int{
			"latest": nil, "earliest": big.NewInt(int64(gethrpc.EarliestBlockNumber)),
			"safe": big.NewInt(int64(gethrpc.SafeBlockNumber)), "finalized": big.NewInt(int64(gethrpc.FinalizedBlockNumber)),
			"pending": pendingTag,
		}
		for _, ep := range e.both {
			for name, tag := range tags {
				if _, err := ep.c.BlockByNumber(ctx, tag); err != nil {
					t.Fatalf("%s block %s: %v", ep.name, name, err)
				}
			}
		}
		tx := e.send(t, tn.pre, e.keys[0], &csSink, big.NewInt(1), nil, params.TxGas)
		tn.preconfirm(t)
		head, err := tn.std.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		pending, err := tn.pre.BlockByNumber(ctx, pendingTag)
		if err != nil || pending.NumberU64() != head.Number.Uint64()+1 || pending.ParentHash() != head.Hash() || pending.Transaction(tx.Hash()) == nil {
			t.Fatalf("pre-confirmed pending block: %v", err)
		}
		if b, err := tn.std.BlockByNumber(ctx, pendingTag); err != nil || b.NumberU64() != head.Number.Uint64()+1 || b.ParentHash() != head.Hash() || len(b.Transactions()) != 0 {
			t.Fatalf("standard pending block: %v, want the next block as forecast, without transactions", err)
		}
		if b, err := tn.pre.BlockByHash(ctx, head.Hash()); err != nil || b.NumberU64() != head.Number.Uint64() {
			t.Fatalf("block by hash: %v", err)
		}
		tn.seal(t)
		if sealed, err := tn.std.BlockByNumber(ctx, nil); err != nil || sealed.Hash() != pending.Hash() {
			t.Fatalf("sealed block: %v, want hash %s", err, pending.Hash())
		}
	})

	t.Run("send-and-receipt", func(t *testing.T) {
		value := big.NewInt(params.Ether)
		before, err := tn.std.BalanceAt(ctx, csSink, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx := e.send(t, tn.std, e.keys[1], &csSink, value, nil, params.TxGas)
		tn.preconfirm(t)
		r, err := tn.pre.TransactionReceipt(ctx, tx.Hash())
		if err != nil || r.Status != types.ReceiptStatusSuccessful || r.BlockHash != (common.Hash{}) {
			t.Fatalf("pre-confirmed receipt: %v %+v", err, r)
		}
		if _, err := tn.std.TransactionReceipt(ctx, tx.Hash()); !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("standard receipt before sealing: %v, want not found", err)
		}
		if bal, err := tn.pre.PendingBalanceAt(ctx, csSink); err != nil || bal.Cmp(new(big.Int).Add(before, value)) != 0 {
			t.Fatalf("pending balance: %v %v", bal, err)
		}
		tn.seal(t)
		for _, ep := range e.both {
			r, err := csWaitReceipt(ctx, ep.c, tx.Hash())
			if err != nil || r.Status != types.ReceiptStatusSuccessful || r.BlockHash != tn.Chain().Head().Hash() {
				t.Fatalf("%s sealed receipt: %v", ep.name, err)
			}
			if got, pending, err := ep.c.TransactionByHash(ctx, tx.Hash()); err != nil || pending || got.Hash() != tx.Hash() {
				t.Fatalf("%s transaction by hash: %v pending=%v", ep.name, err, pending)
			}
		}
	})

	t.Run("nonce-pending", func(t *testing.T) {
		from := addressOf(e.keys[0])
		for _, ep := range e.both {
			t1 := e.send(t, ep.c, e.keys[0], &csSink, big.NewInt(1), nil, params.TxGas)
			t2 := e.send(t, ep.c, e.keys[0], &csSink, big.NewInt(2), nil, params.TxGas)
			if t2.Nonce() != t1.Nonce()+1 {
				t.Fatalf("%s: nonces %d, %d", ep.name, t1.Nonce(), t2.Nonce())
			}
			for _, c := range e.both {
				if n, err := c.c.PendingNonceAt(ctx, from); err != nil || n != t2.Nonce()+1 {
					t.Fatalf("%s PendingNonceAt after two sends: %d %v, want %d", c.name, n, err, t2.Nonce()+1)
				}
			}
			tn.preconfirm(t)
		}
		tn.seal(t)
	})

	t.Run("deploy-and-call", func(t *testing.T) {
		args, _ := art.ABI.Pack("", big.NewInt(7))
		deploy := e.send(t, tn.pre, e.keys[0], nil, nil, append(append([]byte{}, art.Bytecode...), args...), 0)
		tn.preconfirm(t)
		r, err := tn.pre.TransactionReceipt(ctx, deploy.Hash())
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("deployment receipt: %v", err)
		}
		contract = r.ContractAddress
		count := func(c *ethclient.Client, block *big.Int) *big.Int {
			out, err := c.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: e.pack(t, "count")}, block)
			if err != nil {
				t.Fatalf("count: %v", err)
			}
			v, err := art.ABI.Unpack("count", out)
			if err != nil {
				t.Fatalf("unpack count %x: %v", out, err)
			}
			return v[0].(*big.Int)
		}
		if n := count(tn.pre, pendingTag); n.Int64() != 7 {
			t.Fatalf("pending count %d, want 7", n)
		}
		set := e.send(t, tn.pre, e.keys[0], &contract, nil, e.pack(t, "setCount", big.NewInt(42)), 0)
		tn.preconfirm(t)
		if r, err := tn.pre.TransactionReceipt(ctx, set.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("setCount receipt: %v", err)
		}
		if n := count(tn.pre, pendingTag); n.Int64() != 42 {
			t.Fatalf("pending count %d, want 42", n)
		}
		tn.seal(t)
		if n := count(tn.std, nil); n.Int64() != 42 {
			t.Fatalf("sealed count %d, want 42", n)
		}
	})

	t.Run("estimate-gas-revert", func(t *testing.T) {
		if contract == (common.Address{}) {
			contract = e.deploy(t, 7)
		}
		from := addressOf(e.keys[0])
		for _, ep := range e.both {
			ok := ethereum.CallMsg{From: from, To: &contract, Data: e.pack(t, "setCount", big.NewInt(5))}
			if gas, err := ep.c.EstimateGas(ctx, ok); err != nil || gas <= params.TxGas || gas > 100_000 {
				t.Fatalf("%s estimate: %d %v", ep.name, gas, err)
			}
			bad := ethereum.CallMsg{From: from, To: &contract, Data: e.pack(t, "setCount", big.NewInt(101))}
			_, err := ep.c.EstimateGas(ctx, bad)
			if err == nil {
				t.Fatalf("%s: estimate of a reverting call succeeded", ep.name)
			}
			if got := csRevertReason(t, err); got != csReason {
				t.Fatalf("%s estimate revert reason %q, want %q", ep.name, got, csReason)
			}
			_, err = ep.c.CallContract(ctx, ethereum.CallMsg{To: &contract, Data: e.pack(t, "check", big.NewInt(101))}, nil)
			var ce gethrpc.Error
			if !errors.As(err, &ce) || ce.ErrorCode() != 3 {
				t.Fatalf("%s call revert: %v, want code 3", ep.name, err)
			}
			if got := csRevertReason(t, err); got != csReason {
				t.Fatalf("%s call revert reason %q", ep.name, got)
			}
			// A custom error, decoded with the contract's ABI.
			strict := ethereum.CallMsg{From: from, To: &contract, Data: e.pack(t, "setCountStrict", big.NewInt(101))}
			_, err = ep.c.EstimateGas(ctx, strict)
			if name, args := csCustomError(t, art, err); name != "TooLarge" || fmt.Sprint(args) != "[101 100]" {
				t.Fatalf("%s estimate custom error %s%v", ep.name, name, args)
			}
		}
	})

	t.Run("pending-code", func(t *testing.T) {
		args, _ := art.ABI.Pack("", big.NewInt(1))
		tx := e.send(t, tn.std, e.keys[1], nil, nil, append(append([]byte{}, art.Bytecode...), args...), 0)
		tn.preconfirm(t)
		addr := crypto.CreateAddress(addressOf(e.keys[1]), tx.Nonce())
		if code, err := tn.pre.PendingCodeAt(ctx, addr); err != nil || !bytesEqual(code, art.DeployedBytecode) {
			t.Fatalf("pre-confirmed pending code: %x %v", code, err)
		}
		if code, err := tn.pre.CodeAt(ctx, addr, nil); err != nil || len(code) != 0 {
			t.Fatalf("latest code before sealing: %x %v", code, err)
		}
		if code, err := tn.std.PendingCodeAt(ctx, addr); err != nil || len(code) != 0 {
			t.Fatalf("standard pending code before sealing: %x %v", code, err)
		}
		tn.seal(t)
		for _, ep := range e.both {
			if code, err := ep.c.CodeAt(ctx, addr, nil); err != nil || !bytesEqual(code, art.DeployedBytecode) {
				t.Fatalf("%s code after sealing: %v", ep.name, err)
			}
		}
	})

	t.Run("get-logs", func(t *testing.T) {
		addr := e.deploy(t, 0)
		r1, r2, r3 := common.HexToAddress("0xa1"), common.HexToAddress("0xa2"), common.HexToAddress("0xa3")
		e.send(t, tn.std, e.keys[0], &addr, nil, e.pack(t, "transfer", r1, big.NewInt(10)), 0)
		e.send(t, tn.std, e.keys[1], &addr, nil, e.pack(t, "transfer", r2, big.NewInt(20)), 0)
		tn.preconfirm(t)
		tn.seal(t)
		e.send(t, tn.pre, e.keys[0], &addr, nil, e.pack(t, "transfer", r3, big.NewInt(30)), 0)
		tn.preconfirm(t)
		ev := art.ABI.Events["Transfer"]
		for _, ep := range e.both {
			q := ethereum.FilterQuery{Addresses: []common.Address{addr}, Topics: [][]common.Hash{{ev.ID}}, FromBlock: big.NewInt(0)}
			logs, err := ep.c.FilterLogs(ctx, q)
			if err != nil || len(logs) != 2 {
				t.Fatalf("%s sealed logs: %d %v", ep.name, len(logs), err)
			}
			vals, err := ev.Inputs.NonIndexed().Unpack(logs[1].Data)
			if err != nil || vals[0].(*big.Int).Int64() != 20 || common.BytesToAddress(logs[1].Topics[1][:]) != addressOf(e.keys[1]) {
				t.Fatalf("%s decoded log: %v %v", ep.name, vals, err)
			}
			q.Topics = [][]common.Hash{{ev.ID}, nil, {common.BytesToHash(r2[:])}}
			if logs, err := ep.c.FilterLogs(ctx, q); err != nil || len(logs) != 1 {
				t.Fatalf("%s logs by indexed to: %d %v", ep.name, len(logs), err)
			}
			q.Topics, q.ToBlock = [][]common.Hash{{ev.ID}}, pendingTag
			want := map[string]int{"standard": 2, "pre-confirmed": 3}[ep.name]
			if logs, err := ep.c.FilterLogs(ctx, q); err != nil || len(logs) != want {
				t.Fatalf("%s logs to pending: %d %v, want %d", ep.name, len(logs), err, want)
			}
		}
		q := ethereum.FilterQuery{Addresses: []common.Address{addr}, FromBlock: pendingTag, ToBlock: pendingTag}
		logs, err := tn.pre.FilterLogs(ctx, q)
		if err != nil || len(logs) != 1 || common.BytesToAddress(logs[0].Topics[2][:]) != r3 {
			t.Fatalf("pre-confirmed logs only: %v %v", logs, err)
		}
		tn.seal(t)
	})

	t.Run("ws-watch-blocks", func(t *testing.T) {
		chans := make([]chan *types.Header, len(e.both))
		for i, ep := range e.both {
			ws, err := ethclient.Dial(ep.ws)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			chans[i] = make(chan *types.Header, 8)
			sub, err := ws.SubscribeNewHead(ctx, chans[i])
			if err != nil {
				t.Fatalf("%s SubscribeNewHead: %v", ep.name, err)
			}
			defer sub.Unsubscribe()
		}
		first := tn.Chain().Head().Number.Uint64() + 1
		tn.seal(t)
		tn.seal(t)
		for i, ch := range chans {
			var prev *types.Header
			for want := first; want < first+2; want++ {
				select {
				case h := <-ch:
					if h.Number.Uint64() != want || (prev != nil && h.ParentHash != prev.Hash()) {
						t.Fatalf("%s: head %d, want %d", e.both[i].name, h.Number, want)
					}
					prev = h
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: no head %d", e.both[i].name, want)
				}
			}
		}
	})

	t.Run("ws-watch-events", func(t *testing.T) {
		addr := e.deploy(t, 0)
		to := common.HexToAddress("0xb1")
		ev := art.ABI.Events["Transfer"]
		chans := make([]chan types.Log, len(e.both))
		for i, ep := range e.both {
			ws, err := ethclient.Dial(ep.ws)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			chans[i] = make(chan types.Log, 8)
			q := ethereum.FilterQuery{Addresses: []common.Address{addr}, Topics: [][]common.Hash{{ev.ID}, nil, {common.BytesToHash(to[:])}}}
			sub, err := ws.SubscribeFilterLogs(ctx, q, chans[i])
			if err != nil {
				t.Fatalf("%s SubscribeFilterLogs: %v", ep.name, err)
			}
			defer sub.Unsubscribe()
		}
		e.send(t, tn.std, e.keys[0], &addr, nil, e.pack(t, "transfer", csSink, big.NewInt(1)), 0) // filtered out
		want := e.send(t, tn.std, e.keys[1], &addr, nil, e.pack(t, "transfer", to, big.NewInt(77)), 0)
		tn.preconfirm(t)
		tn.seal(t)
		for i, ch := range chans {
			for got := false; !got; {
				select {
				case l := <-ch:
					if l.Removed {
						continue
					}
					if l.TxHash != want.Hash() {
						t.Fatalf("%s: log of %s, want %s", e.both[i].name, l.TxHash, want.Hash())
					}
					got = true
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: no Transfer log", e.both[i].name)
				}
			}
		}
	})

	t.Run("simulate", func(t *testing.T) {
		if contract == (common.Address{}) {
			contract = e.deploy(t, 7)
		}
		e.send(t, tn.pre, e.keys[0], &contract, nil, e.pack(t, "setCount", big.NewInt(9)), 0)
		tn.preconfirm(t)
		from := addressOf(e.keys[0])
		data := func(method string, args ...any) *hexutil.Bytes {
			b := hexutil.Bytes(e.pack(t, method, args...))
			return &b
		}
		opts := ethclient.SimulateOptions{BlockStateCalls: []ethclient.SimulateBlock{{Calls: []ethereum.CallMsg{
			{From: from, To: &contract, Data: *data("count")},
			{From: from, To: &contract, Data: *data("transfer", csSink, big.NewInt(5))},
			{From: from, To: &contract, Data: *data("check", big.NewInt(101))},
		}}}}
		pending := gethrpc.BlockNumberOrHashWithNumber(gethrpc.PendingBlockNumber)
		res, err := tn.pre.SimulateV1(ctx, opts, &pending)
		if err != nil || len(res) != 1 || len(res[0].Calls) != 3 {
			t.Fatalf("SimulateV1: %v", err)
		}
		if res[0].Number.Uint64() != tn.Chain().Head().Number.Uint64()+1 {
			t.Fatalf("simulated block %d, want the block in progress", res[0].Number)
		}
		count, transfer, failed := res[0].Calls[0], res[0].Calls[1], res[0].Calls[2]
		if count.Status != 1 || new(big.Int).SetBytes(count.ReturnValue).Int64() != 9 {
			t.Fatalf("count: status %d value %x, want 9 (the pre-confirmed setCount)", count.Status, count.ReturnValue)
		}
		if transfer.Status != 1 || len(transfer.Logs) != 1 {
			t.Fatalf("transfer: %+v", transfer)
		}
		if failed.Status != 0 || failed.Error == nil {
			t.Fatalf("check(101): %+v", failed)
		}
		if reason, err := abi.UnpackRevert(common.FromHex(failed.Error.Data)); err != nil || reason != csReason || failed.Error.Code != 3 {
			t.Fatalf("check(101): code %d reason %q %v", failed.Error.Code, reason, err)
		}
		_, err = tn.std.SimulateV1(ctx, opts, &pending)
		var re gethrpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != -32601 {
			t.Fatalf("standard SimulateV1: %v, want -32601", err)
		}
		tn.seal(t)
	})

	t.Run("fee-data", func(t *testing.T) {
		for _, ep := range e.both {
			fh, err := ep.c.FeeHistory(ctx, 4, nil, []float64{25, 75})
			if err != nil || len(fh.BaseFee) < 2 || len(fh.Reward) != len(fh.GasUsedRatio) || len(fh.Reward[0]) != 2 {
				t.Fatalf("%s FeeHistory: %+v %v", ep.name, fh, err)
			}
			if fh, err := ep.c.FeeHistory(ctx, 2, pendingTag, []float64{50}); err != nil || len(fh.BaseFee) < 2 {
				t.Fatalf("%s pending FeeHistory: %v", ep.name, err)
			}
			tip, err := ep.c.SuggestGasTipCap(ctx)
			if err != nil || tip.Sign() <= 0 {
				t.Fatalf("%s SuggestGasTipCap: %v %v", ep.name, tip, err)
			}
			if gp, err := ep.c.SuggestGasPrice(ctx); err != nil || gp.Cmp(tip) <= 0 {
				t.Fatalf("%s SuggestGasPrice: %v %v", ep.name, gp, err)
			}
			if bf, err := ep.c.BlobBaseFee(ctx); err != nil || bf.Sign() <= 0 {
				t.Fatalf("%s BlobBaseFee: %v %v", ep.name, bf, err)
			}
		}
	})

	t.Run("default-timing", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for real 200 ms / 2 s timers; skipped with -short")
		}
		o := testOptions(t.TempDir())
		_, defaults := devFlags(nil)
		o.blockTime, o.preconfInterval = defaults.blockTime, defaults.preconfInterval
		dn := startTestNode(t, o)
		d := &csEnv{tn: dn, art: art, keys: e.keys, chain: e.chain}
		for _, ep := range []csEndpoint{{"standard", dn.std, ""}, {"pre-confirmed", dn.pre, ""}} {
			t0 := time.Now()
			args, _ := art.ABI.Pack("", big.NewInt(1))
			tx := d.send(t, ep.c, e.keys[2], nil, nil, append(append([]byte{}, art.Bytecode...), args...), 0)
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			dr, err := csWaitReceipt(wctx, ep.c, tx.Hash())
			cancel()
			if err != nil || dr.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("%s deployment receipt: %v", ep.name, err)
			}
			addr := dr.ContractAddress
			t.Logf("%s: deployed in %v", ep.name, time.Since(t0).Round(time.Millisecond))
			t0 = time.Now()
			call := d.send(t, ep.c, e.keys[2], &addr, nil, d.pack(t, "setCount", big.NewInt(3)), 0)
			wctx, cancel = context.WithTimeout(ctx, 30*time.Second)
			r, err := csWaitReceipt(wctx, ep.c, call.Hash())
			cancel()
			if err != nil || r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("%s call receipt: %v", ep.name, err)
			}
			t.Logf("%s: call mined in %v", ep.name, time.Since(t0).Round(time.Millisecond))
		}
	})
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// csWaitReceipt polls TransactionReceipt every 50 ms until the receipt is there, as a client
// waiting for its transaction does.
func csWaitReceipt(ctx context.Context, c *ethclient.Client, hash common.Hash) (*types.Receipt, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		r, err := c.TransactionReceipt(ctx, hash)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/tracers"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rlp"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/trie"
)

// The differential tests of the methods of issue 16 against go-ethereum's own implementation:
// the execution-apis chain (54 blocks, 249 transactions of every type, proof-of-work blocks
// with uncles, then proof-of-stake up to Osaka and BPO2) is imported into flashrpc and into
// an in-process op-geth node (its eth service and its debug tracing API, archive, hash
// scheme), and the same requests go to both. op-geth's tracers are the ones flashrpc runs,
// so traces must be equal; what differs is the code around them (which block, which state,
// which context, how a transaction is replayed), which is what these tests check.
// GETHDIFF_VERBOSE=1 logs every answer compared.

// gethFixtureNode is op-geth's node on the execution-apis chain, reached in process.
type gethFixtureNode struct {
	eth    *eth.Ethereum
	client *gethrpc.Client
}

// readJSON decodes the JSON file at path into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func startGethOnFixtures(t *testing.T, dir string) *gethFixtureNode {
	t.Helper()
	genesis := new(core.Genesis)
	if err := readJSON(filepath.Join(dir, "genesis.json"), genesis); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks types.Blocks
	stream := rlp.NewStream(f, 0)
	for {
		b := new(types.Block)
		if err := stream.Decode(b); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode chain.rlp: %v", err)
		}
		blocks = append(blocks, b)
	}
	return startGethNode(t, genesis, blocks)
}

// startGethNode starts op-geth's node in process (eth service and debug tracing API,
// archive, hash scheme) on genesis, imports blocks and marks the head safe and finalized.
func startGethNode(t *testing.T, genesis *core.Genesis, blocks types.Blocks) *gethFixtureNode {
	t.Helper()
	stack, err := node.New(&node.Config{P2P: p2p.Config{NoDiscovery: true, MaxPeers: 0}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stack.Close() })
	conf := ethconfig.Defaults
	conf.Genesis = genesis
	conf.NetworkId = genesis.Config.ChainID.Uint64()
	conf.NoPruning = true
	conf.StateScheme = rawdb.HashScheme
	conf.TransactionHistory = 0
	conf.SyncMode = ethconfig.FullSync
	backend, err := eth.New(stack, &conf)
	if err != nil {
		t.Fatalf("geth eth service: %v", err)
	}
	stack.RegisterAPIs(tracers.APIs(backend.APIBackend))
	if err := stack.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := backend.BlockChain().InsertChain(blocks); err != nil {
		t.Fatalf("geth import: %v", err)
	}
	head := backend.BlockChain().CurrentBlock() // headfcu.json: head = safe = finalized
	backend.BlockChain().SetSafe(head)
	backend.BlockChain().SetFinalized(head)
	client := stack.Attach()
	t.Cleanup(client.Close)
	return &gethFixtureNode{eth: backend, client: client}
}

// diffEnv is flashrpc's standard endpoint and op-geth on the same chain.
type diffEnv struct {
	url  string
	geth *gethFixtureNode

	results, errs int // answers compared: results, and errors with the same code
}

func newDiffEnv(t *testing.T) *diffEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("imports the execution-apis chain twice and starts op-geth's node")
	}
	dir := conformanceDir(t)
	standard, _ := serveForTest(t, importFixtures(t, dir))
	return &diffEnv{url: standard, geth: startGethOnFixtures(t, dir)}
}

// diffAnswer is a JSON-RPC answer reduced to what is compared: the result, decoded, or the
// error's code and message.
type diffAnswer struct {
	Result  any
	raw     json.RawMessage
	Code    int
	Message string
}

func (a diffAnswer) String() string {
	if a.Code != 0 {
		return fmt.Sprintf("error %d %q", a.Code, a.Message)
	}
	if len(a.raw) > 600 {
		return "result " + string(a.raw[:600]) + "…"
	}
	return "result " + string(a.raw)
}

// flash calls flashrpc over HTTP.
func (e *diffEnv) flash(t *testing.T, method string, params ...any) diffAnswer {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: decode: %v", method, err)
	}
	if out.Error != nil {
		return diffAnswer{Code: out.Error.Code, Message: out.Error.Message}
	}
	return decodedAnswer(t, out.Result)
}

// gethCall calls op-geth's node in process.
func (e *diffEnv) gethCall(t *testing.T, method string, params ...any) diffAnswer {
	t.Helper()
	var raw json.RawMessage
	err := e.geth.client.CallContext(context.Background(), &raw, method, params...)
	if err != nil {
		a := diffAnswer{Code: -32000, Message: err.Error()}
		var re gethrpc.Error
		if errors.As(err, &re) {
			a.Code = re.ErrorCode()
		}
		return a
	}
	return decodedAnswer(t, raw)
}

func decodedAnswer(t *testing.T, raw json.RawMessage) diffAnswer {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode result: %v", err)
	}
	return diffAnswer{Result: v, raw: raw}
}

// same sends one request to both and requires equal results (JSON-equal), or errors with the
// same code when geth fails. It returns flashrpc's answer.
func (e *diffEnv) same(t *testing.T, method string, params ...any) diffAnswer {
	t.Helper()
	got := e.flash(t, method, params...)
	want := e.gethCall(t, method, params...)
	what := method + " " + compactParams(params)
	switch {
	case want.Code != 0 && got.Code != want.Code:
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	case want.Code == 0 && got.Code != 0:
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	case want.Code == 0 && !reflect.DeepEqual(got.Result, want.Result):
		t.Errorf("%s: results differ:\n%s", what, jsonDiff("", got.Result, want.Result))
	case want.Code == 0:
		e.results++
	default:
		e.errs++
		if os.Getenv("GETHDIFF_VERBOSE") != "" {
			t.Logf("%s: both fail: %v / %v", what, got, want)
		}
	}
	if os.Getenv("GETHDIFF_VERBOSE") != "" && want.Code == 0 {
		t.Logf("%s: %v", what, got)
	}
	return got
}

func compactParams(params []any) string {
	b, _ := json.Marshal(params)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// fixtureBlocks returns the numbers and transaction hashes of the chain's blocks.
func (e *diffEnv) fixtureBlocks(t *testing.T) (head uint64, txs map[uint64][]string) {
	t.Helper()
	bc := e.geth.eth.BlockChain()
	head = bc.CurrentBlock().Number.Uint64()
	txs = make(map[uint64][]string)
	for n := uint64(1); n <= head; n++ {
		for _, tx := range bc.GetBlockByNumber(n).Transactions() {
			txs[n] = append(txs[n], tx.Hash().Hex())
		}
	}
	return head, txs
}

// TestGethDiff imports the chain into both nodes once and runs the comparisons on them.
func TestGethDiff(t *testing.T) {
	e := newDiffEnv(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T, *diffEnv)
	}{
		{"tracing", gethDiffTracing},
		{"traceCall", gethDiffTraceCall},
		{"proofs", gethDiffProofs},
		{"accessLists", gethDiffAccessLists},
		{"raw", gethDiffRaw},
	} {
		e.results, e.errs = 0, 0
		t.Run(tc.name, func(t *testing.T) { tc.run(t, e) })
	}
}

// traceConfigs are the tracer options compared: every tracer the issue names, with their
// options.
var traceConfigs = []map[string]any{
	nil, // the struct logger with its defaults
	{"enableMemory": true, "enableReturnData": true, "disableStorage": true},
	{"tracer": "callTracer"},
	{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}},
	{"tracer": "callTracer", "tracerConfig": map[string]any{"onlyTopCall": true}},
	{"tracer": "prestateTracer"},
	{"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}},
	{"tracer": "4byteTracer"},
	{"tracer": "flatCallTracer"},
	{"tracer": "muxTracer", "tracerConfig": map[string]any{"callTracer": map[string]any{"withLog": true}, "4byteTracer": nil, "prestateTracer": map[string]any{"diffMode": true}}},
}

func traceName(cfg map[string]any) string {
	if cfg == nil {
		return "structLogger"
	}
	b, _ := json.Marshal(cfg)
	return strings.NewReplacer(`"`, "", "{", "", "}", "", ":", "=").Replace(string(b))
}

// gethDiffTracing traces every block of the execution-apis chain with every tracer, and
// every transaction with callTracer and the struct logger, on flashrpc and on op-geth.
func gethDiffTracing(t *testing.T, e *diffEnv) {
	head, txs := e.fixtureBlocks(t)
	for _, cfg := range traceConfigs {
		t.Run(traceName(cfg), func(t *testing.T) {
			for n := uint64(1); n <= head; n++ {
				e.same(t, "debug_traceBlockByNumber", hexNum(n), cfg)
			}
		})
	}
	t.Run("traceTransaction", func(t *testing.T) {
		for n := uint64(1); n <= head; n++ {
			for _, h := range txs[n] {
				for _, cfg := range []map[string]any{nil, {"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}, {"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}}} {
					e.same(t, "debug_traceTransaction", h, cfg)
				}
			}
		}
	})
	t.Run("traceBlockByHash", func(t *testing.T) {
		for _, n := range []uint64{2, 27, 45, head} {
			hash := e.geth.eth.BlockChain().GetCanonicalHash(n).Hex()
			e.same(t, "debug_traceBlockByHash", hash, map[string]any{"tracer": "callTracer"})
		}
	})
	t.Logf("%d equal results, %d equal errors", e.results, e.errs)
}

func hexNum(n uint64) string { return fmt.Sprintf("0x%x", n) }

// The system contracts the pre-execution calls write: EIP-4788's beacon roots and EIP-2935's
// block hashes.
const (
	beaconRootsAddr = "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02"
	historyAddr     = "0x0000F90827F1C53a10cb7A02335B175320002935"
	callenvAddr     = "0x9344b07175800259691961298ca11c824e65032d" // deployed in block 1
	funded          = "0x7435ed30a8b4aeb0877cef0c6e8cffe834eb865f" // accounts.json, funded
)

// word is n as a 32-byte ABI word.
func word(n uint64) string { return fmt.Sprintf("0x%064x", n) }

// gethDiffTraceCall compares debug_traceCall: on a block's state and within a block
// (txIndex, which replays the block's system calls and transactions), with block overrides
// (the number+1 rule for BLOCKHASH) and state overrides (code, a moved precompile).
func gethDiffTraceCall(t *testing.T, e *diffEnv) {
	head, txs := e.fixtureBlocks(t)
	bc := e.geth.eth.BlockChain()
	call := map[string]any{"tracer": "callTracer", "tracerConfig": map[string]any{"withLog": true}}
	prestate := map[string]any{"tracer": "prestateTracer"}
	for _, n := range []uint64{44, 45, 50, head} {
		h := bc.GetHeaderByNumber(n)
		// Within the block, before its first transaction: the beacon root of this block and
		// the hash of its parent are in the system contracts only if the block's
		// pre-execution calls were replayed.
		at0 := func(cfg map[string]any) map[string]any {
			out := map[string]any{"txIndex": "0x0"}
			for k, v := range cfg {
				out[k] = v
			}
			return out
		}
		e.same(t, "debug_traceCall", map[string]any{"to": beaconRootsAddr, "input": word(h.Time)}, hexNum(n), at0(call))
		e.same(t, "debug_traceCall", map[string]any{"to": historyAddr, "input": word(n - 1)}, hexNum(n), at0(call))
		e.same(t, "debug_traceCall", map[string]any{"to": historyAddr, "input": word(n - 1)}, hexNum(n), at0(nil))
		if len(txs[n]) > 1 {
			e.same(t, "debug_traceCall", map[string]any{"from": funded, "to": callenvAddr}, hexNum(n), map[string]any{"txIndex": hexNum(uint64(len(txs[n]) - 1)), "tracer": "prestateTracer"})
		}
	}
	// BLOCKHASH(NUMBER-1) and the context: with the number overridden to head+1, the head
	// becomes the parent.
	blockhash := "0x600143034060005260206000f3" // PUSH1 1, NUMBER, SUB, BLOCKHASH, MSTORE(0), RETURN(0, 32)
	code := map[string]any{"0x00000000000000000000000000000000000c0de1": map[string]any{"code": blockhash}}
	for _, cfg := range []map[string]any{
		{"stateOverrides": code},
		{"stateOverrides": code, "blockOverrides": map[string]any{"number": hexNum(head + 1)}},
		{"stateOverrides": code, "blockOverrides": map[string]any{"number": hexNum(head + 5), "time": "0x9999"}},
		{"stateOverrides": code, "tracer": "callTracer"},
		{"stateOverrides": code, "blockOverrides": map[string]any{"number": hexNum(head + 1)}, "tracer": "callTracer"},
	} {
		e.same(t, "debug_traceCall", map[string]any{"to": "0x00000000000000000000000000000000000c0de1"}, "latest", cfg)
	}
	// SHA-256 moved elsewhere, and called there.
	moved := map[string]any{"0x0000000000000000000000000000000000000002": map[string]any{"movePrecompileToAddress": "0x0000000000000000000000000000000000000b0b"}}
	e.same(t, "debug_traceCall", map[string]any{"to": "0x0000000000000000000000000000000000000b0b", "input": "0x616263"}, "latest", map[string]any{"stateOverrides": moved, "tracer": "callTracer"})
	// Calls of the chain's contracts, priced and not, at several blocks.
	for _, n := range []uint64{1, 10, 30, head} {
		for _, args := range []map[string]any{
			{"from": funded, "to": callenvAddr},
			{"from": funded, "to": callenvAddr, "gasPrice": "0x3b9aca00"},
			{"to": "0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930", "input": "0x01"}, // reverts
			{"from": funded, "to": "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667", "value": "0x1"},
		} {
			for _, cfg := range []map[string]any{nil, call, prestate, {"tracer": "prestateTracer", "tracerConfig": map[string]any{"diffMode": true}}} {
				e.same(t, "debug_traceCall", args, hexNum(n), cfg)
			}
		}
	}
	t.Logf("%d equal results, %d equal errors", e.results, e.errs)
}

// headState is tools-chain/headstate.json: the state at the head block.
type headState struct {
	Root     string `json:"root"` // hex without 0x
	Accounts map[common.Address]struct {
		Storage map[common.Hash]string `json:"storage"`
	} `json:"accounts"`
}

// gethDiffProofs compares eth_getProof for every account of the head state (with its
// storage slots and one that is empty), at the head and at older blocks, and verifies each
// of flashrpc's proofs against the block's state root with trie.VerifyProof.
func gethDiffProofs(t *testing.T, e *diffEnv) {
	dir := conformanceDir(t)
	var hs headState
	if err := readJSON(filepath.Join(dir, "tools-chain", "headstate.json"), &hs); err != nil {
		t.Fatal(err)
	}
	bc := e.geth.eth.BlockChain()
	head := bc.CurrentBlock()
	if head.Root != common.HexToHash(hs.Root) {
		t.Fatalf("head state root %s, headstate.json says %s", head.Root, hs.Root)
	}
	missing := "0x00000000000000000000000000000000000000000000000000000000deadbeef"
	proofs := 0
	for addr, acct := range hs.Accounts {
		keys := []string{missing}
		for k := range acct.Storage {
			keys = append(keys, k.Hex())
		}
		for _, n := range []uint64{head.Number.Uint64(), 45, 30, 10} {
			h := bc.GetHeaderByNumber(n)
			got := e.same(t, "eth_getProof", addr, keys, hexNum(n))
			if got.Code == 0 {
				verifyProof(t, h.Root, addr, got.raw)
				proofs++
			}
		}
	}
	// Key spellings (echoed as given: 32 bytes as such, others as quantities), an account
	// that does not exist, the default block, a block hash.
	callenv := "0x9344b07175800259691961298ca11c824e65032d"
	e.same(t, "eth_getProof", callenv, []string{"0x0", "0x00", "0x1", "0000000000000000000000000000000000000000000000000000000000000001"}, "latest")
	e.same(t, "eth_getProof", "0x00000000000000000000000000000000000dead1", []string{"0x1"}, "latest")
	// The block parameter may be left out (latest, execution-apis' fixture); op-geth's
	// v1.101702.3 still requires it.
	if got, want := e.flash(t, "eth_getProof", callenv, []string{}), e.gethCall(t, "eth_getProof", callenv, []string{}, "latest"); !reflect.DeepEqual(got.Result, want.Result) {
		t.Errorf("eth_getProof without a block: got %v, want %v", got, want)
	}
	e.same(t, "eth_getProof", callenv, []string{"0x2"}, map[string]any{"blockHash": head.Hash()})
	t.Logf("%d proofs verified; %d equal results, %d equal errors", proofs, e.results, e.errs)
	if proofs < len(hs.Accounts) {
		t.Fatalf("only %d proofs verified", proofs)
	}
}

// verifyProof checks an eth_getProof answer against root: the account proof proves the
// account's fields (or its absence), each storage proof its value under storageHash.
func verifyProof(t *testing.T, root common.Hash, addr common.Address, raw json.RawMessage) {
	t.Helper()
	var p struct {
		AccountProof []hexutil.Bytes
		Balance      *hexutil.Big
		CodeHash     common.Hash
		Nonce        hexutil.Uint64
		StorageHash  common.Hash
		StorageProof []struct {
			Key   string
			Value *hexutil.Big
			Proof []hexutil.Bytes
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	val, err := trie.VerifyProof(root, crypto.Keccak256(addr.Bytes()), proofDB(p.AccountProof))
	if err != nil {
		t.Fatalf("account proof of %s: %v", addr, err)
	}
	if val == nil {
		if p.Nonce != 0 || p.Balance.ToInt().Sign() != 0 || p.StorageHash != (common.Hash{}) || p.CodeHash != (common.Hash{}) {
			t.Fatalf("%s is absent from the trie but the answer has fields: %s", addr, raw)
		}
		return
	}
	var acct types.StateAccount
	if err := rlp.DecodeBytes(val, &acct); err != nil {
		t.Fatalf("account of %s: %v", addr, err)
	}
	if acct.Nonce != uint64(p.Nonce) || acct.Balance.ToBig().Cmp(p.Balance.ToInt()) != 0 || acct.Root != p.StorageHash || common.BytesToHash(acct.CodeHash) != p.CodeHash {
		t.Fatalf("proven account of %s %+v, answer %s", addr, acct, raw)
	}
	for _, sp := range p.StorageProof {
		if len(sp.Proof) == 0 {
			if p.StorageHash != types.EmptyRootHash || sp.Value.ToInt().Sign() != 0 {
				t.Fatalf("%s: slot %s without a proof in a non-empty storage trie", addr, sp.Key)
			}
			continue
		}
		key := common.HexToHash(sp.Key)
		v, err := trie.VerifyProof(p.StorageHash, crypto.Keccak256(key.Bytes()), proofDB(sp.Proof))
		if err != nil {
			t.Fatalf("%s: proof of slot %s: %v", addr, sp.Key, err)
		}
		var want []byte
		if sp.Value.ToInt().Sign() != 0 {
			want, _ = rlp.EncodeToBytes(sp.Value.ToInt().Bytes())
		}
		if !bytes.Equal(v, want) {
			t.Fatalf("%s: slot %s proves %x, answer says %s", addr, sp.Key, v, sp.Value)
		}
	}
}

// proofDB holds proof nodes by their hash, as trie.VerifyProof reads them.
func proofDB(nodes []hexutil.Bytes) *memorydb.Database {
	db := memorydb.New()
	for _, n := range nodes {
		db.Put(crypto.Keccak256(n), n)
	}
	return db
}

// gethDiffAccessLists compares eth_createAccessList on calls of the chain's contracts
// (storage reads and writes, calls to other contracts, reverts, creations) at several
// blocks, with and without a starting list and state overrides.
func gethDiffAccessLists(t *testing.T, e *diffEnv) {
	head, _ := e.fixtureBlocks(t)
	callme := "0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667"
	emitter := "0x7dcd17433742f4c0ca53122ab541d0ba67fc27df"
	cases := []map[string]any{
		{"from": funded, "to": "0x0100000000000000000000000000000000000000", "value": "0xa"},
		{"from": funded, "to": emitter, "input": "0x010203040506", "gas": "0xea60"},
		{"from": funded, "to": emitter, "input": "0x010203040506", "maxFeePerGas": "0x1a21397", "maxPriorityFeePerGas": "0x3"},
		{"from": funded, "to": emitter, "input": "0x010203040506", "gasPrice": "0x1a21397"},
		{"from": funded, "to": "0x0ee3ab1371c93e7c0c281cc0c2107cdebc8b1930", "input": "0x01", "gas": "0x186a0"},
		{"from": funded, "to": callenvAddr},
		{"from": funded, "to": callme, "value": "0x1"},
		{"from": funded, "to": emitter, "input": "0x01", "accessList": []map[string]any{{"address": callme, "storageKeys": []string{word(1)}}}},
		{"from": funded, "input": "0x600160005560016000f3"}, // a creation that stores
		{"from": funded, "to": beaconRootsAddr, "input": word(1)},
	}
	for _, args := range cases {
		for _, n := range []uint64{head, 45, 30} {
			e.same(t, "eth_createAccessList", args, hexNum(n))
		}
	}
	// State overrides: code that reads slots of another contract.
	reader := "0x00000000000000000000000000000000000c0de2"
	code := "0x6000547f" + strings.Repeat("00", 31) + "0154" + "00" // SLOAD(0), PUSH32 1, SLOAD, STOP
	e.same(t, "eth_createAccessList", map[string]any{"from": funded, "to": reader}, "latest", map[string]any{reader: map[string]any{"code": code}})
	t.Logf("%d equal results, %d equal errors", e.results, e.errs)
}

// gethDiffRaw compares the raw data methods, headers and uncles on every block and
// transaction of the chain, and eth_config.
func gethDiffRaw(t *testing.T, e *diffEnv) {
	head, txs := e.fixtureBlocks(t)
	bc := e.geth.eth.BlockChain()
	for n := uint64(0); n <= head+1; n++ {
		num := hexNum(n)
		for _, m := range []string{"debug_getRawHeader", "debug_getRawBlock", "debug_getRawReceipts"} {
			e.same(t, m, num)
		}
		e.same(t, "eth_getHeaderByNumber", num)
		e.same(t, "eth_getUncleCountByBlockNumber", num)
		for i := uint64(0); i < 3; i++ {
			e.same(t, "eth_getUncleByBlockNumberAndIndex", num, hexNum(i))
			e.same(t, "eth_getRawTransactionByBlockNumberAndIndex", num, hexNum(i))
		}
		if b := bc.GetBlockByNumber(n); b != nil {
			hash := b.Hash().Hex()
			e.same(t, "debug_getRawHeader", hash)
			e.same(t, "debug_getRawBlock", hash)
			e.same(t, "debug_getRawReceipts", hash)
			e.same(t, "eth_getHeaderByHash", hash)
			e.same(t, "eth_getUncleByBlockHashAndIndex", hash, "0x0")
			e.same(t, "eth_getRawTransactionByBlockHashAndIndex", hash, "0x1")
		}
		for _, h := range txs[n] {
			e.same(t, "debug_getRawTransaction", h)
			e.same(t, "eth_getRawTransactionByHash", h)
		}
	}
	for _, tag := range []string{"latest", "earliest", "safe", "finalized"} {
		e.same(t, "debug_getRawBlock", tag)
		e.same(t, "eth_getHeaderByNumber", tag)
	}
	e.same(t, "eth_getRawTransactionByHash", common.Hash{1}.Hex())
	e.same(t, "eth_getHeaderByHash", common.Hash{1}.Hex())
	e.same(t, "eth_config")
	e.same(t, "eth_getStorageValues", map[string][]string{callenvAddr: {word(0), word(1)}, funded: {word(0)}}, "latest")
	t.Logf("%d equal results, %d equal errors", e.results, e.errs)
}

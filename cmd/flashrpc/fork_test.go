package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/fork"
	"github.com/flashrpc/flashrpc/internal/node"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// Fork mode end to end, with a flashrpc dev node as the upstream, reached through a proxy that
// counts the upstream's requests and can fail them.

// storeRuntime is hand-assembled runtime code of a contract with storage:
//
//	calldata of 64 bytes (slot, value): SSTORE, then LOG1 with topic = slot;
//	any other calldata: return SLOAD(calldata[0:32]).
//
//	0x00 CALLDATASIZE PUSH1 64 EQ PUSH1 0x13 JUMPI
//	0x07 PUSH1 0 CALLDATALOAD SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
//	0x13 JUMPDEST PUSH1 32 CALLDATALOAD PUSH1 0 CALLDATALOAD SSTORE
//	     PUSH1 0 CALLDATALOAD PUSH1 0 PUSH1 0 LOG1 STOP
var storeRuntime = common.FromHex("3660401460135760003554600052602060" + "00f35b602035600035556000356000600" + "0a100")

// initCode returns init code that deploys runtime.
func initCode(runtime []byte) []byte {
	n := byte(len(runtime))
	return append([]byte{0x60, n, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, n, 0x60, 0x00, 0xf3}, runtime...)
}

func setData(slot, value int64) []byte {
	return append(common.BigToHash(big.NewInt(slot)).Bytes(), common.BigToHash(big.NewInt(value)).Bytes()...)
}

func getData(slot int64) []byte { return common.BigToHash(big.NewInt(slot)).Bytes() }

// sender sends transactions from one key to a test node, counting nonces.
type sender struct {
	key   *ecdsa.PrivateKey
	nonce uint64
}

func (s *sender) send(t *testing.T, tn *testNode, to *common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	chainID := tn.Chain().Config().ChainID
	tx := signTx(t, s.key, chainID, s.nonce, to, value, 300_000, data)
	if err := tn.pre.SendTransaction(context.Background(), tx); err != nil {
		t.Fatalf("send: %v", err)
	}
	s.nonce++
	return tx
}

// proxy is an HTTP reverse proxy in front of an upstream that counts requests and can fail
// them: with fail > 0 it answers that HTTP status instead of forwarding, failTimes times (or
// for ever when failTimes is negative).
type proxy struct {
	url       string
	requests  atomic.Int64
	mu        sync.Mutex
	fail      int
	failTimes int
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	p := &proxy{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.requests.Add(1)
		p.mu.Lock()
		status := 0
		if p.fail != 0 && p.failTimes != 0 {
			status = p.fail
			if p.failTimes > 0 {
				p.failTimes--
			}
		}
		p.mu.Unlock()
		if status != 0 {
			io.Copy(io.Discard, r.Body)
			http.Error(w, http.StatusText(status), status)
			return
		}
		rp.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	p.url = "http://" + ln.Addr().String()
	return p
}

// failWith makes the next times requests (negative: all) fail with HTTP status; 0 heals.
func (p *proxy) failWith(status, times int) {
	p.mu.Lock()
	p.fail, p.failTimes = status, times
	p.mu.Unlock()
}

// forkFixture is an upstream dev node with the store contract, forked at block n by a second
// node through a proxy. After n the upstream changes the contract's storage, sends ETH and
// seals more blocks, none of which the fork may see.
type forkFixture struct {
	up       *testNode
	proxy    *proxy
	store    common.Address
	n        uint64
	upSender *sender
	before   *types.Transaction // a transaction of block n-1 (the store's deployment is in 1)
	after    *types.Transaction // a transaction of a block after n
}

func newForkFixture(t *testing.T) *forkFixture {
	t.Helper()
	return newForkFixtureChain(t, 1337)
}

// newForkFixtureChain is newForkFixture with an upstream of another chain id.
func newForkFixtureChain(t *testing.T, chainID uint64) *forkFixture {
	t.Helper()
	return newForkFixtureWith(t, func(o *devOptions) { o.chainID = chainID })
}

// newForkFixtureWith is newForkFixture with an upstream whose options opt changes.
func newForkFixtureWith(t *testing.T, opt func(*devOptions)) *forkFixture {
	t.Helper()
	uo := testOptions(t.TempDir())
	opt(uo)
	up := startTestNode(t, uo)
	s := &sender{key: up.Accounts()[1].Key}
	deploy := s.send(t, up, nil, new(big.Int), initCode(storeRuntime))
	store := crypto.CreateAddress(addressOf(s.key), 0)
	up.preconfirm(t)
	up.seal(t) // block 1: the store
	for i := int64(0); i < 5; i++ {
		s.send(t, up, &store, new(big.Int), setData(i, 100+i))
	}
	up.preconfirm(t)
	up.seal(t) // block 2: slots 0..4 = 100..104, five logs
	s.send(t, up, &store, new(big.Int), setData(9, 9))
	up.preconfirm(t)
	up.seal(t) // block 3: slot 9 = 9: the fork block
	f := &forkFixture{up: up, store: store, n: 3, upSender: s, before: deploy}
	f.after = s.send(t, up, &store, new(big.Int), setData(0, 999))
	s.send(t, up, &common.Address{0xaa}, big.NewInt(1e18), nil)
	up.preconfirm(t)
	up.seal(t) // block 4: after the fork
	f.proxy = startProxy(t, up.stdURL)
	return f
}

// forkOptions returns the options of a fork node of f in dir.
func (f *forkFixture) forkOptions(dir string) *devOptions {
	o := testOptions(dir)
	o.fork.url = f.proxy.url
	o.fork.block = optionalInt{v: int64(f.n), set: true}
	o.fork.retries = 2
	o.fork.backoff.d = 5 * time.Millisecond
	return o
}

func callStore(t *testing.T, c *gethrpc.Client, store common.Address, slot int64, block string) *big.Int {
	t.Helper()
	var out hexutil.Bytes
	if err := c.Call(&out, "eth_call", map[string]any{"to": store, "data": hexutil.Bytes(getData(slot))}, block); err != nil {
		t.Fatalf("eth_call slot %d at %s: %v", slot, block, err)
	}
	return new(big.Int).SetBytes(out)
}

func storageAt(t *testing.T, c *gethrpc.Client, addr common.Address, slot int64, block string) (*big.Int, error) {
	t.Helper()
	var out hexutil.Bytes
	err := c.Call(&out, "eth_getStorageAt", addr, common.BigToHash(big.NewInt(slot)), block)
	return new(big.Int).SetBytes(out), err
}

// TestForkEndToEnd forks a flashrpc dev node at block 3 and checks what the fork serves:
// the upstream's state at block 3 (not later), its blocks, transactions, receipts and logs up to
// 3 and none after, the dev accounts funded in block 4, local transactions pre-confirmed and
// sealed on top, eth_getLogs across the fork block, and a restart that asks the upstream
// nothing it already has. It runs on both kinds of upstream dev chain: an OP Stack chain
// (the fork runs OP Stack rules, TestForkOPStack checks them) and a plain Ethereum chain.
func TestForkEndToEnd(t *testing.T) {
	for _, chainType := range testChainTypes {
		t.Run(chainType, func(t *testing.T) { testForkEndToEnd(t, chainType) })
	}
}

func testForkEndToEnd(t *testing.T, chainType string) {
	ctx := context.Background()
	f := newForkFixtureWith(t, func(o *devOptions) { o.chainType = chainType })
	if got := oprollup.IsOP(f.up.Chain().Config()); got != (chainType == chainTypeOP) {
		t.Fatalf("upstream of chain type %s: OP Stack %v", chainType, got)
	}
	dir := t.TempDir()
	tn := startTestNode(t, f.forkOptions(dir))
	forkRPC := tn.stdRaw

	if got := oprollup.IsOP(tn.Chain().Config()); got != (chainType == chainTypeOP) {
		t.Fatalf("fork of a chain of type %s runs %s", chainType, fork.Of(tn.Chain()).Info().Network)
	}
	// The chain: the upstream's id, block 4 on the upstream's block 3.
	if id, err := tn.std.ChainID(ctx); err != nil || id.Uint64() != 1337 {
		t.Fatalf("chain id %v %v, want the upstream's 1337", id, err)
	}
	upBlock3, _ := f.up.std.HeaderByNumber(ctx, big.NewInt(3))
	head, err := tn.std.HeaderByNumber(ctx, nil)
	if err != nil || head.Number.Uint64() != 4 || head.ParentHash != upBlock3.Hash() {
		t.Fatalf("head %v (parent %s), want block 4 on the upstream's block 3 %s: %v", head.Number, head.ParentHash, upBlock3.Hash(), err)
	}
	for _, n := range []int64{0, 2, 3} {
		want, _ := f.up.std.HeaderByNumber(ctx, big.NewInt(n))
		got, err := tn.std.HeaderByNumber(ctx, big.NewInt(n))
		if err != nil || got.Hash() != want.Hash() {
			t.Fatalf("block %d: %v %v, want the upstream's %s", n, got, err, want.Hash())
		}
	}

	// State: the upstream's at block 3.
	dev0 := addressOf(tn.Accounts()[0].Key)
	if bal, err := tn.std.BalanceAt(ctx, dev0, nil); err != nil || bal.Cmp(new(big.Int).Mul(big.NewInt(10_000), big.NewInt(1e18))) != 0 {
		t.Fatalf("dev account 0 holds %v (%v), want 10,000 ETH", bal, err)
	}
	for slot, want := range map[int64]int64{0: 100, 4: 104, 9: 9, 7: 0} {
		if got := callStore(t, forkRPC, f.store, slot, "latest"); got.Int64() != want {
			t.Fatalf("eth_call slot %d = %d, want the upstream's %d at block 3", slot, got, want)
		}
		if got, err := storageAt(t, forkRPC, f.store, slot, "latest"); err != nil || got.Int64() != want {
			t.Fatalf("eth_getStorageAt slot %d = %v (%v), want %d", slot, got, err, want)
		}
	}
	if code, err := tn.std.CodeAt(ctx, f.store, nil); err != nil || string(code) != string(storeRuntime) {
		t.Fatalf("code %x %v, want the store's", code, err)
	}
	if bal, err := tn.std.BalanceAt(ctx, common.Address{0xaa}, nil); err != nil || bal.Sign() != 0 {
		t.Fatalf("an account funded after the fork holds %v %v, want 0", bal, err)
	}
	// State before the fork block is the upstream's too: slot 0 at block 1 was 0.
	if got, err := storageAt(t, forkRPC, f.store, 0, "0x1"); err != nil || got.Sign() != 0 {
		t.Fatalf("slot 0 at block 1 = %v (%v), want 0", got, err)
	}
	if got := callStore(t, forkRPC, f.store, 0, "0x2"); got.Int64() != 100 {
		t.Fatalf("eth_call at block 2: slot 0 = %d, want 100", got)
	}

	// History: transactions and receipts up to block 3 are the upstream's; later ones are not
	// this chain's.
	if tx, _, err := tn.std.TransactionByHash(ctx, f.before.Hash()); err != nil || tx.Hash() != f.before.Hash() {
		t.Fatalf("transaction of block 1: %v %v", tx, err)
	}
	if r, err := tn.std.TransactionReceipt(ctx, f.before.Hash()); err != nil || r.BlockNumber.Uint64() != 1 || r.ContractAddress != f.store {
		t.Fatalf("receipt of block 1: %+v %v", r, err)
	}
	if _, _, err := tn.std.TransactionByHash(ctx, f.after.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("a transaction the upstream mined after the fork: %v, want not found", err)
	}
	if _, err := tn.std.TransactionReceipt(ctx, f.after.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("a receipt of the upstream after the fork: %v, want not found", err)
	}
	upBlock4, _ := f.up.std.HeaderByNumber(ctx, big.NewInt(4))
	if _, err := tn.std.HeaderByHash(ctx, upBlock4.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("the upstream's block 4 by hash: %v, want not found", err)
	}
	if h, err := tn.std.HeaderByHash(ctx, upBlock3.Hash()); err != nil || h.Hash() != upBlock3.Hash() {
		t.Fatalf("the upstream's block 3 by hash: %v", err)
	}

	// Local transactions on top: slot 0 to zero, slot 7 to 7.
	s := &sender{key: tn.Accounts()[0].Key}
	s.send(t, tn, &f.store, new(big.Int), setData(0, 0))
	s.send(t, tn, &f.store, new(big.Int), setData(7, 7))
	tn.preconfirm(t)
	if got := callStore(t, tn.preRaw, f.store, 0, "pending"); got.Sign() != 0 {
		t.Fatalf("pending slot 0 = %d, want 0", got)
	}
	if got := callStore(t, forkRPC, f.store, 0, "latest"); got.Int64() != 100 {
		t.Fatalf("latest slot 0 = %d before the seal, want 100", got)
	}
	tn.seal(t)
	if got := callStore(t, forkRPC, f.store, 0, "latest"); got.Sign() != 0 {
		t.Fatalf("latest slot 0 = %d after the seal, want 0", got)
	}
	if got := callStore(t, forkRPC, f.store, 0, "0x4"); got.Int64() != 100 {
		t.Fatalf("slot 0 at block 4 = %d, want 100", got)
	}
	if got := callStore(t, forkRPC, f.store, 7, "latest"); got.Int64() != 7 {
		t.Fatalf("latest slot 7 = %d, want 7", got)
	}

	// eth_getLogs across the fork block: the upstream's five (block 2) and one (block 3),
	// then the local two (block 5); none of block 4 upstream.
	logs, err := tn.std.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: big.NewInt(0), Addresses: []common.Address{f.store}})
	if err != nil {
		t.Fatal(err)
	}
	var blocks []uint64
	for _, l := range logs {
		blocks = append(blocks, l.BlockNumber)
	}
	if want := []uint64{2, 2, 2, 2, 2, 3, 5, 5}; !slicesEqual(blocks, want) {
		t.Fatalf("logs in blocks %v, want %v", blocks, want)
	}
	tn.stop()

	// A restart on the same datadir asks the upstream one batch (chain id and block 3) and
	// reads nothing it has read before.
	f.proxy.requests.Store(0)
	tn = startTestNode(t, f.forkOptions(dir))
	if h, err := tn.std.HeaderByNumber(ctx, nil); err != nil || h.Number.Uint64() != 5 {
		t.Fatalf("head after restart %v %v, want 5", h, err)
	}
	for slot, want := range map[int64]int64{0: 0, 4: 104, 7: 7, 9: 9} {
		if got := callStore(t, tn.stdRaw, f.store, slot, "latest"); got.Int64() != want {
			t.Fatalf("after restart slot %d = %d, want %d", slot, got, want)
		}
	}
	if tx, _, err := tn.std.TransactionByHash(ctx, f.before.Hash()); err != nil || tx.Hash() != f.before.Hash() {
		t.Fatalf("transaction of block 1 after restart: %v", err)
	}
	if n := f.proxy.requests.Load(); n != 1 {
		t.Fatalf("the restart sent %d requests upstream, want 1", n)
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestForkUpstreamFaults checks what a fork does when its upstream fails while serving: a read
// that needs the upstream is retried, then answered with an error naming the upstream (never a
// value, never cached); everything local keeps being served; a read after the upstream
// recovers gets the right value; 429s within the retries are invisible.
func TestForkUpstreamFaults(t *testing.T) {
	f := newForkFixture(t)
	tn := startTestNode(t, f.forkOptions(t.TempDir()))
	c := tn.stdRaw
	if got := callStore(t, c, f.store, 1, "latest"); got.Int64() != 101 {
		t.Fatalf("slot 1 = %d, want 101", got)
	}

	f.proxy.failWith(http.StatusServiceUnavailable, -1)
	for i := 0; i < 2; i++ { // twice: a failure is not cached
		_, err := storageAt(t, c, f.store, 2, "latest")
		var rerr gethrpc.Error
		if !errors.As(err, &rerr) || rerr.ErrorCode() != -32000 || !strings.Contains(err.Error(), "upstream "+f.proxy.url+" failed") || !strings.Contains(err.Error(), "503") {
			t.Fatalf("eth_getStorageAt with the upstream down: %v, want -32000 naming the upstream and HTTP 503", err)
		}
		var out hexutil.Bytes
		err = c.Call(&out, "eth_call", map[string]any{"to": f.store, "data": hexutil.Bytes(getData(3))}, "latest")
		if err == nil || !strings.Contains(err.Error(), "upstream") {
			t.Fatalf("eth_call with the upstream down: %x %v, want an upstream error", out, err)
		}
	}
	// Local and cached reads go on.
	if got := callStore(t, c, f.store, 1, "latest"); got.Int64() != 101 {
		t.Fatalf("cached slot 1 with the upstream down = %d, want 101", got)
	}
	var n hexutil.Uint64
	if err := c.Call(&n, "eth_blockNumber"); err != nil || n != 4 {
		t.Fatalf("eth_blockNumber with the upstream down: %d %v", n, err)
	}
	// A transfer between dev accounts (local since the first forked block) is sealed.
	s := &sender{key: tn.Accounts()[0].Key}
	dev1 := addressOf(tn.Accounts()[1].Key)
	before, _ := tn.std.BalanceAt(context.Background(), dev1, nil)
	s.send(t, tn, &dev1, big.NewInt(5), nil)
	tn.preconfirm(t)
	tn.seal(t)
	if bal, err := tn.std.BalanceAt(context.Background(), dev1, nil); err != nil || new(big.Int).Sub(bal, before).Int64() != 5 {
		t.Fatalf("a local transfer with the upstream down: %v %v", bal, err)
	}

	// Healed: the right value. Then 429 twice, within the two retries: the right value.
	f.proxy.failWith(0, 0)
	if got, err := storageAt(t, c, f.store, 2, "latest"); err != nil || got.Int64() != 102 {
		t.Fatalf("slot 2 after the upstream recovered = %v (%v), want 102", got, err)
	}
	f.proxy.failWith(http.StatusTooManyRequests, 2)
	if got := callStore(t, c, f.store, 3, "latest"); got.Int64() != 103 {
		t.Fatalf("slot 3 through two 429s = %d, want 103", got)
	}
}

// TestForkRefusesToStart checks the starts a fork refuses, each with a message naming the URL
// and the reason: an unreachable upstream, a block it does not have, a datadir whose fork is
// of another chain, and flags that contradict the datadir's fork.
func TestForkRefusesToStart(t *testing.T) {
	f := newForkFixture(t)
	dead := func() string { // a port nothing listens on
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := ln.Addr().String()
		ln.Close()
		return "http://" + addr
	}()
	o := f.forkOptions(t.TempDir())
	o.fork.url, o.fork.retries = dead, 0
	wantStartError(t, o, dead, "connection refused")

	o = f.forkOptions(t.TempDir())
	o.fork.block = optionalInt{v: 1000, set: true}
	wantStartError(t, o, f.proxy.url, "no block 1000")

	// An OP Stack upstream (its block 3 opens with a deposit) forked with Ethereum rules.
	o = f.forkOptions(t.TempDir())
	o.chainType, o.given = chainTypeL1, map[string]bool{"chain-type": true}
	wantStartError(t, o, "", "block 3 opens with a deposit transaction, but chain 1337 runs Ethereum rules")

	// A datadir forked from f, restarted against another chain (another dev node: another
	// genesis, same chain id).
	dir := t.TempDir()
	tn := startTestNode(t, f.forkOptions(dir))
	tn.stop()
	other := newForkFixtureChain(t, 4242)
	o = f.forkOptions(dir)
	o.fork.url = other.proxy.url
	wantStartError(t, o, other.proxy.url, "is chain 4242 with block 3")

	o = f.forkOptions(dir)
	o.fork.block = optionalInt{v: 2, set: true}
	wantStartError(t, o, f.proxy.url, "forked block 3")
	o = f.forkOptions(dir)
	o.fork.chainID = 10
	wantStartError(t, o, "", "--fork-chain-id 10")
	o = f.forkOptions(dir)
	o.chainType, o.given = chainTypeL1, map[string]bool{"chain-type": true}
	wantStartError(t, o, f.proxy.url, "--chain-type l1, but this datadir's fork of "+f.proxy.url+" runs OP Stack rules")

	// --fork-chain-id with the datadir's id: an offline start, the upstream not asked.
	f.proxy.requests.Store(0)
	o = f.forkOptions(dir)
	o.fork.chainID = 1337
	tn = startTestNode(t, o)
	tn.stop()
	if n := f.proxy.requests.Load(); n != 0 {
		t.Fatalf("an offline start sent %d requests upstream", n)
	}
}

func wantStartError(t *testing.T, o *devOptions, url, reason string) {
	t.Helper()
	n, err := startDev(o, slog.New(slog.DiscardHandler))
	if err == nil {
		n.Close()
		t.Fatalf("the fork started; want an error naming %q and %q", url, reason)
	}
	if !strings.Contains(err.Error(), url) || !strings.Contains(err.Error(), reason) {
		t.Fatalf("start error %q, want one naming %q and %q", err, url, reason)
	}
}

// TestForkSurvivesKill seals a local block in a fork running as a separate process, kills it
// with SIGKILL, and checks that a node restarted on the datadir has the block, its state and
// the same fork point, and reads nothing again from the upstream.
func TestForkSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the flashrpc binary; skipped with -short")
	}
	ctx := context.Background()
	f := newForkFixture(t)
	bin := filepath.Join(t.TempDir(), "flashrpc")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "dev", "--datadir", dir, "--fork-url", f.proxy.url, "--fork-block-number", "3",
		"--http.port", "0", "--preconf.port", "0", "--feed.port", "-1", "--block-time", "0", "--preconf-interval", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	raw, err := gethrpc.Dial(endpointURL(t, stdout, "standard"))
	if err != nil {
		t.Fatal(err)
	}
	client := ethclient.NewClient(raw)
	key := testOptionsAccounts(t)[0]
	tx := signTx(t, key, big.NewInt(1337), 0, &f.store, new(big.Int), 100_000, setData(1, 0)) // slot 1: 101 -> 0
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := raw.Call(&res, "dev_preconfirm"); err != nil {
		t.Fatal(err)
	}
	// A state cheat in the same block: the block is written as executed, with the fork's
	// records, so slot 7 reads the cheat's value after the restart, not the upstream's.
	var ok bool
	if err := raw.Call(&ok, "anvil_setStorageAt", f.store, common.BigToHash(big.NewInt(7)), common.BigToHash(big.NewInt(77))); err != nil || !ok {
		t.Fatalf("anvil_setStorageAt on a fork: %v %v", ok, err)
	}
	if err := raw.Call(&res, "dev_seal"); err != nil {
		t.Fatal(err)
	}
	sealed, err := client.BlockByNumber(ctx, nil)
	if err != nil || sealed.NumberU64() != 5 {
		t.Fatalf("sealed block: %v %v", sealed, err)
	}
	client.Close()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	f.proxy.requests.Store(0)
	tn := startTestNode(t, f.forkOptions(dir))
	head, err := tn.std.BlockByNumber(ctx, nil)
	if err != nil || head.Hash() != sealed.Hash() {
		t.Fatalf("after kill -9: head %v (%v), want block 5 %s", head.Number(), err, sealed.Hash())
	}
	if info := fork.Of(tn.Chain()).Info(); info.Number != 3 {
		t.Fatalf("fork point after kill -9: block %d, want 3", info.Number)
	}
	if r, err := tn.std.TransactionReceipt(ctx, tx.Hash()); err != nil || r.BlockNumber.Uint64() != 5 {
		t.Fatalf("receipt after kill -9: %v %v", r, err)
	}
	if got := callStore(t, tn.stdRaw, f.store, 1, "latest"); got.Sign() != 0 {
		t.Fatalf("slot 1 after kill -9 = %d, want 0 (written locally)", got)
	}
	if got := callStore(t, tn.stdRaw, f.store, 1, "0x4"); got.Int64() != 101 {
		t.Fatalf("slot 1 at block 4 after kill -9 = %d, want 101", got)
	}
	if n := f.proxy.requests.Load(); n != 1 {
		t.Fatalf("the restart after kill -9 sent %d requests upstream, want 1", n)
	}
	if got, err := tn.std.StorageAt(ctx, f.store, common.BigToHash(big.NewInt(7)), nil); err != nil || new(big.Int).SetBytes(got).Int64() != 77 {
		t.Fatalf("slot 7 after kill -9 = %x (%v), want 77 (set by anvil_setStorageAt)", got, err)
	}
}

// TestRefork calls the re-fork entry point (anvil_reset with forking params) of a running
// fork: the same endpoints then serve a fork of another chain at another block, the local
// blocks and transactions of the old fork are gone, WebSocket subscriptions are ended, and a
// restart resumes the new fork. A re-fork that cannot be created leaves the node as it was.
func TestRefork(t *testing.T) {
	ctx := context.Background()
	f := newForkFixture(t)
	other := newForkFixtureChain(t, 4242)
	dir := t.TempDir()
	tn := startTestNode(t, f.forkOptions(dir))
	s := &sender{key: tn.Accounts()[0].Key}
	local := s.send(t, tn, &f.store, new(big.Int), setData(0, 5))
	tn.preconfirm(t)
	tn.seal(t)
	ws, err := gethrpc.Dial(strings.Replace(tn.stdURL, "http", "ws", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	heads := make(chan *types.Header, 4)
	sub, err := ws.EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		t.Fatal(err)
	}

	// A re-fork that fails: nothing changes.
	dead := "http://127.0.0.1:1"
	if err := tn.Refork(ctx, node.ForkRequest{URL: dead}); err == nil || !strings.Contains(err.Error(), dead) {
		t.Fatalf("re-fork to %s: %v, want an error naming it", dead, err)
	}
	if got := callStore(t, tn.stdRaw, f.store, 0, "latest"); got.Int64() != 5 {
		t.Fatalf("after a failed re-fork slot 0 = %d, want 5", got)
	}

	// Through anvil_reset with forking options, as a test suite does it.
	var ok bool
	if err := tn.stdRaw.Call(&ok, "anvil_reset", map[string]any{"forking": map[string]any{"jsonRpcUrl": dead}}); err == nil || !strings.Contains(err.Error(), dead) {
		t.Fatalf("anvil_reset to %s: %v, want an error naming it", dead, err)
	}
	// The mining controls set at runtime survive the re-fork, as anvil's mining mode survives
	// anvil_reset (an hour's block time: no timer seal during this test).
	if err := tn.stdRaw.Call(&ok, "evm_setIntervalMining", 3600); err != nil {
		t.Fatal(err)
	}
	if err := tn.stdRaw.Call(&ok, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	if err := tn.stdRaw.Call(&ok, "anvil_reset", map[string]any{"forking": map[string]any{"jsonRpcUrl": other.proxy.url, "blockNumber": 2}}); err != nil || !ok {
		t.Fatalf("anvil_reset to a fork of %s at block 2: %v %v", other.proxy.url, ok, err)
	}
	var automine bool
	if err := tn.stdRaw.Call(&automine, "evm_getAutomine"); err != nil || !automine {
		t.Fatalf("automine after the re-fork: %v %v, want true", automine, err)
	}
	if got := tn.Sequencer().BlockTime(); got != time.Hour {
		t.Fatalf("block time after the re-fork %s, want the 1h set before it", got)
	}
	if err := tn.stdRaw.Call(&ok, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	if id, err := tn.std.ChainID(ctx); err != nil || id.Uint64() != 4242 {
		t.Fatalf("chain id after the re-fork %v %v, want 4242", id, err)
	}
	up2, _ := other.up.std.HeaderByNumber(ctx, big.NewInt(2))
	head, err := tn.std.HeaderByNumber(ctx, nil)
	if err != nil || head.Number.Uint64() != 3 || head.ParentHash != up2.Hash() {
		t.Fatalf("head after the re-fork %v (parent %s), want block 3 on the other chain's block 2 %s", head.Number, head.ParentHash, up2.Hash())
	}
	if got := callStore(t, tn.stdRaw, other.store, 0, "latest"); got.Int64() != 100 {
		t.Fatalf("the other chain's slot 0 = %d, want 100", got)
	}
	if _, err := tn.std.TransactionReceipt(ctx, local.Hash()); !errors.Is(err, ethereum.NotFound) {
		t.Fatalf("the old fork's local transaction after the re-fork: %v, want not found", err)
	}
	select {
	case err := <-sub.Err():
		if err == nil {
			t.Fatal("subscription ended without an error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subscription was not ended by the re-fork")
	}
	// The new fork seals on the same endpoints.
	s2 := &sender{key: tn.Accounts()[0].Key}
	s2.send(t, tn, &other.store, new(big.Int), setData(1, 77))
	tn.preconfirm(t)
	tn.seal(t)
	if got := callStore(t, tn.stdRaw, other.store, 1, "latest"); got.Int64() != 77 {
		t.Fatalf("slot 1 on the new fork = %d, want 77", got)
	}
	tn.stop()

	o := f.forkOptions(dir)
	o.fork.url, o.fork.block = other.proxy.url, optionalInt{}
	tn = startTestNode(t, o)
	if info := fork.Of(tn.Chain()).Info(); info.Number != 2 || info.UpstreamChainID != 4242 {
		t.Fatalf("restart after the re-fork: fork of chain %d at %d, want 4242 at 2", info.UpstreamChainID, info.Number)
	}
	if got := callStore(t, tn.stdRaw, other.store, 1, "latest"); got.Int64() != 77 {
		t.Fatalf("slot 1 after restart = %d, want 77", got)
	}
}

// TestForkReadsStorageOfCodelessAccounts: storage the upstream holds at an account with no
// code and nonce 0 (set by anvil_setStorageAt, as a genesis allocation can) is the upstream's
// value on the fork, as anvil answers, not zero.
func TestForkReadsStorageOfCodelessAccounts(t *testing.T) {
	up := startTestNode(t, testOptions(t.TempDir()))
	addr := common.Address{0xc0, 0xde, 0x1e, 0x55}
	var ok bool
	if err := up.stdRaw.Call(&ok, "anvil_setBalance", addr, hexutil.EncodeBig(big.NewInt(1e18))); err != nil {
		t.Fatalf("anvil_setBalance: %v", err)
	}
	if err := up.stdRaw.Call(&ok, "anvil_setStorageAt", addr, common.BigToHash(big.NewInt(5)), common.BigToHash(big.NewInt(55))); err != nil || !ok {
		t.Fatalf("anvil_setStorageAt: %v %v", ok, err)
	}
	up.preconfirm(t)
	up.seal(t)
	if v, err := storageAt(t, up.stdRaw, addr, 5, "latest"); err != nil || v.Int64() != 55 {
		t.Fatalf("upstream slot 5 = %v (%v), want 55", v, err)
	}
	var nonce hexutil.Uint64
	var code hexutil.Bytes
	if err := up.stdRaw.Call(&nonce, "eth_getTransactionCount", addr, "latest"); err != nil || nonce != 0 {
		t.Fatalf("upstream nonce %d (%v), want 0", nonce, err)
	}
	if err := up.stdRaw.Call(&code, "eth_getCode", addr, "latest"); err != nil || len(code) != 0 {
		t.Fatalf("upstream code %x (%v), want none", code, err)
	}

	o := testOptions(t.TempDir())
	o.fork.url = up.stdURL
	o.fork.retries, o.fork.backoff.d = 2, 5*time.Millisecond
	fk := startTestNode(t, o)
	for _, tag := range []string{"latest", "pending"} {
		if v, err := storageAt(t, fk.preRaw, addr, 5, tag); err != nil || v.Int64() != 55 {
			t.Errorf("fork slot 5 at %s = %v (%v), want the upstream's 55", tag, v, err)
		}
	}
	if v, err := storageAt(t, fk.stdRaw, addr, 6, "latest"); err != nil || v.Sign() != 0 {
		t.Errorf("fork slot 6 = %v (%v), want 0", v, err)
	}
}

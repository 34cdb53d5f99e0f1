package api_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/benchmix"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/cputime"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// logContract is the contract scripts/bench/run.sh deploys: 11 bytes of init code and a
// 12-byte runtime that emits one LOG1 per call (scripts/cast-demo.sh annotates it).
var logContract = common.FromHex("0x600c80600b6000396000f336600060003733366000a100")

// BenchmarkSimulateV1 measures eth_simulateV1 as a client sees it: the bodies of
// scripts/bench/run.sh (simulateV1_1x1, simulateV1_1x100, simulateV1_3x10_mix, the same JSON)
// sent over a loopback TCP connection to the pre-confirmed endpoint's rpc.Server, on the OP
// Stack dev chain `flashrpc dev` runs, at `latest`, with the command's gas cap, EVM timeout
// and GOGC of 400. The client
// is a few lines of HTTP/1.1 on the raw connection, so that the CPU profile is the server's.
// Besides the time per request it reports the process's CPU time per request (cpu-µs/op),
// the figure to compare on a shared machine.
func BenchmarkSimulateV1(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(400)) // cmd/flashrpc's defaultGCPercent
	n := newSimBenchNode(b)
	for _, bc := range []struct{ name, body string }{
		{"body=1x1", n.simulateBody(1)},
		{"body=1x100", n.simulateBody(100)},
		{"body=3x10_mix", n.mixBody()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := n.dial(b)
			req := httpPost(bc.body)
			resp := c.roundTrip(b, req)
			if !bytes.Contains(resp, []byte(`"result"`)) || bytes.Contains(resp, []byte(`"error"`)) {
				b.Fatalf("response: %.600s", resp)
			}
			b.SetBytes(int64(len(resp)))
			b.ReportAllocs()
			cpu0 := cputime.Process(b)
			for b.Loop() {
				if resp := c.roundTrip(b, req); !bytes.HasPrefix(resp, []byte(`{"jsonrpc":"2.0","id":1,"result":[{`)) {
					b.Fatalf("response: %.600s", resp)
				}
			}
			b.ReportMetric(float64((cputime.Process(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// simBenchNode is an OP Stack dev chain with the bench contracts sealed, served on loopback.
type simBenchNode struct {
	addr                 string
	dev0                 common.Address
	logAddr              common.Address
	tokenA, tokenB, pool common.Address
}

func newSimBenchNode(b *testing.B) *simBenchNode {
	b.Helper()
	dev0 := crypto.PubkeyToAddress(testKey.PublicKey)
	g := oprollup.DevGenesis(chain.DefaultChainID, []common.Address{dev0}, chain.DevAccountBalance)
	c, err := chain.Open(chain.Config{DataDir: b.TempDir(), Genesis: g})
	if err != nil {
		b.Fatal(err)
	}
	pre := preconf.New(c)
	pool := txpool.New(c.Config(), txpool.Config{})
	seq := sequencer.New(sequencer.Config{L1: &oprollup.DevL1{GenesisTime: g.Timestamp}}, c, pre, pool)
	if err := seq.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	srv := rpc.NewServer(rpc.Config{}, api.New(api.Config{Pending: true, GasCap: api.DefaultGasCap, EVMTimeout: api.DefaultEVMTimeout}, api.Backend{Chain: c, Preconf: pre, Pool: pool}).Service())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	b.Cleanup(func() {
		if err := srv.Shutdown(context.Background()); err != nil {
			b.Error(err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			b.Error(err)
		}
		seq.Close()
		c.Close()
	})
	n := &simBenchNode{addr: ln.Addr().String(), dev0: dev0, logAddr: crypto.CreateAddress(dev0, 0)}

	// What run.sh sends, from dev account 0, in its order, so that the contracts have the same
	// addresses and the bodies are the same bytes: the LOG1 contract (nonce 0), a call of it
	// (the one debug_traceTransaction traces), then benchmix's tokens and pool from nonce 2,
	// with dev account 0 as the one sender that gets tokens and approves the pool.
	mix := benchmix.New(c.Config().ChainID, dev0, 2, big.NewInt(params.GWei), big.NewInt(1))
	n.tokenA, n.tokenB, n.pool = mix.Addresses()
	setup, err := mix.Setup(testKey, 2, []*ecdsa.PrivateKey{testKey}, []uint64{2 + benchmix.SetupDeployer})
	if err != nil {
		b.Fatal(err)
	}
	var txs []*types.Transaction
	for nonce, tx := range []types.DynamicFeeTx{{Data: logContract}, {To: &n.logAddr, Data: []byte{1}}} {
		tx.ChainID, tx.Nonce, tx.Gas, tx.GasFeeCap, tx.GasTipCap = c.Config().ChainID, uint64(nonce), 100_000, big.NewInt(params.GWei), big.NewInt(1)
		signed, err := types.SignNewTx(testKey, types.LatestSigner(c.Config()), &tx)
		if err != nil {
			b.Fatal(err)
		}
		txs = append(txs, signed)
	}
	conn := n.dial(b)
	for _, tx := range append(txs, setup...) {
		raw, _ := tx.MarshalBinary()
		resp := conn.roundTrip(b, httpPost(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["`+hexutil.Encode(raw)+`"]}`))
		if !bytes.Contains(resp, []byte(`"result"`)) {
			b.Fatalf("send: %s", resp)
		}
	}
	if _, err := seq.Preconfirm(context.Background()); err != nil {
		b.Fatal(err)
	}
	block, err := seq.Seal(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	receipts := c.Receipts(block.Hash())
	if len(receipts) != 3+len(setup) { // the L1-attributes deposit, the LOG1 contract and its call, the set-up
		b.Fatalf("sealed %d transactions, want %d", len(receipts), 3+len(setup))
	}
	for i, r := range receipts {
		if r.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("set-up transaction %d failed", i)
		}
	}
	return n
}

// simulateBody is run.sh's simulate_body: one block of calls of the LOG1 contract.
func (n *simBenchNode) simulateBody(calls int) string {
	call := fmt.Sprintf(`{"from":"%s","to":"%s","data":"0x01"}`, n.dev0, n.logAddr)
	list := strings.TrimSuffix(strings.Repeat(call+",", calls), ",")
	return `{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"blockStateCalls":[{"calls":[` + list + `]}]},"latest"]}`
}

// mixFunded is run.sh's MIX_FUNDED: an account without ether that the state override funds.
var mixFunded = common.HexToAddress("0x00000000000000000000000000000000000f00d5")

// mixBody is run.sh's body_simulateV1_3x10_mix: three blocks of eight ERC-20 transfers to
// fresh holders, a swap and an ether transfer from mixFunded, whose balance the first block
// overrides, with traceTransfers.
func (n *simBenchNode) mixBody() string {
	var blocks []string
	for blk := range 3 {
		var calls []string
		for i := range 8 {
			token := n.tokenA
			if i%2 == 1 {
				token = n.tokenB
			}
			k := blk*10 + i
			calls = append(calls, fmt.Sprintf(`{"from":"%s","to":"%s","data":"0xa9059cbb%064x%064x"}`, n.dev0, token, 0xbe000+k, 1000+k))
		}
		zeroForOne := 1 - blk%2
		calls = append(calls, fmt.Sprintf(`{"from":"%s","to":"%s","data":"0x4312ae31%064x%064x%064x"}`, n.dev0, n.pool, 1_000_000_000_000_000, zeroForOne, 1))
		calls = append(calls, fmt.Sprintf(`{"from":"%s","to":"0x%040x","value":"0x2386f26fc10000"}`, strings.ToLower(mixFunded.Hex()), 0xbe000+blk*10+9))
		block := `{"calls":[` + strings.Join(calls, ",") + `]}`
		if blk == 0 {
			block = `{"stateOverrides":{"` + strings.ToLower(mixFunded.Hex()) + `":{"balance":"0xde0b6b3a7640000"}},"calls":[` + strings.Join(calls, ",") + `]}`
		}
		blocks = append(blocks, block)
	}
	return `{"jsonrpc":"2.0","id":1,"method":"eth_simulateV1","params":[{"traceTransfers":true,"blockStateCalls":[` + strings.Join(blocks, ",") + `]},"latest"]}`
}

// httpPost is the HTTP/1.1 request wrk sends with scripts/bench/rpc.lua.
func httpPost(body string) []byte {
	return []byte("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// rawClient sends requests on one kept-alive connection and reads their responses.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	body []byte
}

func (n *simBenchNode) dial(b *testing.B) *rawClient {
	b.Helper()
	conn, err := net.Dial("tcp", n.addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return &rawClient{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}
}

// roundTrip writes req and returns the response's body, which is valid until the next call.
func (c *rawClient) roundTrip(b *testing.B, req []byte) []byte {
	if _, err := c.conn.Write(req); err != nil {
		b.Fatal(err)
	}
	length := -1
	for first := true; ; first = false {
		line, err := c.r.ReadSlice('\n')
		if err != nil {
			b.Fatal(err)
		}
		line = bytes.TrimRight(line, "\r\n")
		if first && !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
			b.Fatalf("status line %q", line)
		}
		if len(line) == 0 {
			break
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.EqualFold(string(k), "Content-Length") {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				b.Fatal(err)
			}
		}
	}
	if length < 0 {
		b.Fatal("response without Content-Length")
	}
	if cap(c.body) < length {
		c.body = make([]byte, length)
	}
	c.body = c.body[:length]
	if _, err := io.ReadFull(c.r, c.body); err != nil {
		b.Fatal(err)
	}
	return c.body
}

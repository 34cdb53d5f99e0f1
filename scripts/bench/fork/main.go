// Command fork compares flashrpc's fork mode with anvil --fork-url on the same upstream: the
// first eth_call of a contract with storage (cold), the same call again (warm), and a first
// call that reads 200 storage slots (cold) and again (warm). Every request to the upstream
// goes through a proxy that adds --delay (a remote provider's round trip) and counts HTTP
// requests and JSON-RPC calls per phase. Rounds interleave the two servers. Figures for
// docs/benchmarks.md ("Fork mode").
//
//	go build -o .tools/flashrpc ./cmd/flashrpc
//	npm ci --prefix scripts/fork
//	go run ./scripts/bench/fork --flashrpc .tools/flashrpc --anvil scripts/fork/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil [--delay 20ms] [--rounds 3]
//
// The upstream is a fresh anvil (chain 31337) holding the bench contract, hand-assembled:
// its constructor sets slots 0..199 to 1..200; a 32-byte call returns SLOAD(calldata[0]); a
// 64-byte call returns the sum of slots 0..calldata[0]-1. Both forks pin the block after the
// deployment; each round starts each server fresh (anvil with --no-storage-caching, flashrpc
// on an empty datadir), so its first calls are cold.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// The bench contract (see the package comment).
var (
	// PUSH1 0; loop: JUMPDEST DUP1 PUSH1 1 ADD DUP2 SSTORE PUSH1 1 ADD DUP1 PUSH1 200 GT
	// PUSH1 loop JUMPI; POP; CODECOPY the 56-byte runtime after these 32 bytes and RETURN it.
	initCode = common.FromHex("60005b8060010181556001018060c8116002575060386020600039603860" + "00f3")
	// CALLDATASIZE PUSH1 32 EQ PUSH1 get JUMPI; acc=0 i=0; loop: while i < n: acc += SLOAD(i),
	// i++; return acc. get: return SLOAD(calldata[0]).
	runtime = common.FromHex("36602014602b5760006000" + "5b600035811015602157805482019150600101600b565b5060005260206000f3" + "5b6000355460005260206000f3")
)

// The test mnemonic's account 1: deploys the contract on the upstream.
const deployerKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"

func main() {
	flashrpcBin := flag.String("flashrpc", ".tools/flashrpc", "flashrpc binary")
	anvilBin := flag.String("anvil", "scripts/fork/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil", "anvil binary (1.7.1)")
	delay := flag.Duration("delay", 20*time.Millisecond, "added to every upstream HTTP request")
	rounds := flag.Int("rounds", 3, "rounds, each running anvil then flashrpc")
	warmN := flag.Int("warm", 51, "warm calls per measurement (the median is reported)")
	flag.Parse()
	if err := run(*flashrpcBin, *anvilBin, *delay, *rounds, *warmN); err != nil {
		log.Fatal(err)
	}
}

// result is one server's figures in one round.
type result struct {
	server                string
	coldGet, warmGet      time.Duration
	coldSum, warmSum      time.Duration
	getReqs, getCalls     int64 // upstream HTTP requests / calls during the cold get
	sumReqs, sumCalls     int64
	warmReqs              int64 // upstream requests during the warm calls
	startReqs, startCalls int64 // upstream requests / calls while the server started
	getValue, sumValue    *big.Int
}

func run(flashrpcBin, anvilBin string, delay time.Duration, rounds, warmN int) error {
	upPort := freePort()
	up, err := startProcess(anvilBin, `Listening on`, "--port", strconv.Itoa(upPort))
	if err != nil {
		return fmt.Errorf("upstream anvil: %w", err)
	}
	defer up.stop()
	upURL := "http://127.0.0.1:" + strconv.Itoa(upPort)
	contract, forkBlock, err := deploy(upURL)
	if err != nil {
		return err
	}
	p := startProxy(upURL, delay)
	fmt.Printf("upstream anvil %s, contract %s, fork block %d, proxy delay %v per request\n\n", upURL, contract, forkBlock, delay)

	var all []result
	for r := 1; r <= rounds; r++ {
		for _, server := range []string{"anvil", "flashrpc"} {
			res, err := measure(server, flashrpcBin, anvilBin, p, contract, forkBlock, warmN)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r, server, err)
			}
			fmt.Printf("round %d %-8s cold get %7.2f ms (%d req / %d calls)  warm get %6.3f ms  cold sum(200) %8.2f ms (%d req / %d calls)  warm sum(200) %6.3f ms  start %d req / %d calls\n",
				r, server, ms(res.coldGet), res.getReqs, res.getCalls, ms(res.warmGet), ms(res.coldSum), res.sumReqs, res.sumCalls, ms(res.warmSum), res.startReqs, res.startCalls)
			all = append(all, res)
		}
	}
	fmt.Println()
	fmt.Println("Per round, separated by \" / \"; upstream requests as HTTP requests (JSON-RPC calls).")
	fmt.Println()
	fmt.Println("| server | cold get(5) ms | upstream requests | warm get(5) ms | cold sum(200) ms | upstream requests | warm sum(200) ms | upstream requests, warm |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, server := range []string{"anvil", "flashrpc"} {
		var cg, wg, cs, ws, gr, sr, wr []string
		for _, res := range all {
			if res.server != server {
				continue
			}
			cg, wg = append(cg, fmt.Sprintf("%.1f", ms(res.coldGet))), append(wg, fmt.Sprintf("%.3f", ms(res.warmGet)))
			cs, ws = append(cs, fmt.Sprintf("%.1f", ms(res.coldSum))), append(ws, fmt.Sprintf("%.3f", ms(res.warmSum)))
			gr, sr = append(gr, fmt.Sprintf("%d (%d)", res.getReqs, res.getCalls)), append(sr, fmt.Sprintf("%d (%d)", res.sumReqs, res.sumCalls))
			wr = append(wr, strconv.FormatInt(res.warmReqs, 10))
		}
		j := func(v []string) string { return strings.Join(v, " / ") }
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", server, j(cg), j(gr), j(wg), j(cs), j(sr), j(ws), j(wr))
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// measure starts a fresh fork server through the proxy and measures it.
func measure(server, flashrpcBin, anvilBin string, p *proxy, contract common.Address, forkBlock uint64, warmN int) (result, error) {
	res := result{server: server}
	port := freePort()
	p.reset()
	var (
		proc *process
		err  error
	)
	switch server {
	case "anvil":
		proc, err = startProcess(anvilBin, `Listening on`, "--port", strconv.Itoa(port), "--fork-url", p.url,
			"--fork-block-number", strconv.FormatUint(forkBlock, 10), "--no-storage-caching")
	default:
		dir, derr := os.MkdirTemp("", "flashrpc-forkbench-")
		if derr != nil {
			return res, derr
		}
		defer os.RemoveAll(dir)
		proc, err = startProcess(flashrpcBin, `standard\s+http://`, "dev", "--datadir", filepath.Join(dir, "d"), "--fork-url", p.url,
			"--fork-block-number", strconv.FormatUint(forkBlock, 10), "--http.port", strconv.Itoa(port), "--preconf.port", strconv.Itoa(freePort()),
			"--feed.port", "-1", "--block-time", "0", "--preconf-interval", "0")
	}
	if err != nil {
		return res, err
	}
	defer proc.stop()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	res.startReqs, res.startCalls = p.reset()

	get := callBody(contract, common.BigToHash(big.NewInt(5)).Bytes())
	sum := callBody(contract, append(common.BigToHash(big.NewInt(200)).Bytes(), make([]byte, 32)...))
	var d time.Duration
	if d, res.getValue, err = timeCall(c, url, get); err != nil {
		return res, err
	}
	res.coldGet = d
	res.getReqs, res.getCalls = p.reset()
	if res.warmGet, err = median(c, url, get, warmN); err != nil {
		return res, err
	}
	if d, res.sumValue, err = timeCall(c, url, sum); err != nil {
		return res, err
	}
	res.coldSum = d
	res.sumReqs, res.sumCalls = p.reset()
	if res.warmSum, err = median(c, url, sum, max(warmN/2, 1)); err != nil {
		return res, err
	}
	res.warmReqs, _ = p.reset()
	if res.getValue.Int64() != 6 || res.sumValue.Int64() != 200*201/2 {
		return res, fmt.Errorf("wrong answers: get(5) = %s (want 6), sum(200) = %s (want 20100)", res.getValue, res.sumValue)
	}
	return res, nil
}

func callBody(to common.Address, data []byte) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_call",
		"params": []any{map[string]any{"to": to, "data": hexutil.Bytes(data)}, "latest"}})
	return b
}

// timeCall sends one request and returns its duration and the 32-byte result as a number.
func timeCall(c *http.Client, url string, body []byte) (time.Duration, *big.Int, error) {
	start := time.Now()
	resp, err := c.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		return 0, nil, err
	}
	var out struct {
		Result hexutil.Bytes    `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Error != nil {
		return 0, nil, fmt.Errorf("eth_call answered %s", data)
	}
	return took, new(big.Int).SetBytes(out.Result), nil
}

func median(c *http.Client, url string, body []byte, n int) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		d, _, err := timeCall(c, url, body)
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// deploy deploys the bench contract on the upstream and returns it and the block after.
func deploy(url string) (common.Address, uint64, error) {
	key, _ := crypto.HexToECDSA(deployerKey)
	from := crypto.PubkeyToAddress(key.PublicKey)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(31337), Nonce: 0, Gas: 6_000_000, GasFeeCap: big.NewInt(10e9), GasTipCap: big.NewInt(1e9), Data: append(initCode, runtime...),
	})
	if err != nil {
		return common.Address{}, 0, err
	}
	raw, _ := tx.MarshalBinary()
	if _, err := rpcCall(url, "eth_sendRawTransaction", hexutil.Bytes(raw)); err != nil {
		return common.Address{}, 0, err
	}
	for {
		r, err := rpcCall(url, "eth_getTransactionReceipt", tx.Hash())
		if err != nil {
			return common.Address{}, 0, err
		}
		if string(r) != "null" {
			var rec struct {
				Status      hexutil.Uint64 `json:"status"`
				BlockNumber hexutil.Uint64 `json:"blockNumber"`
			}
			json.Unmarshal(r, &rec)
			if rec.Status != 1 {
				return common.Address{}, 0, fmt.Errorf("deployment failed: %s", r)
			}
			return crypto.CreateAddress(from, 0), uint64(rec.BlockNumber), nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func rpcCall(url, method string, params ...any) (json.RawMessage, error) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Result json.RawMessage  `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, err
	}
	if out.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, *out.Error)
	}
	return out.Result, nil
}

// proxy forwards to the upstream after a delay per HTTP request, counting requests and calls.
type proxy struct {
	url             string
	requests, calls atomic.Int64
}

func startProxy(target string, delay time.Duration) *proxy {
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ErrorLog = log.New(io.Discard, "", 0) // a server stopped between rounds cuts its requests
	p := &proxy{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.requests.Add(1)
		n := int64(1)
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' {
			var items []json.RawMessage
			json.Unmarshal(t, &items)
			n = int64(len(items))
		}
		p.calls.Add(n)
		time.Sleep(delay)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		rp.ServeHTTP(w, r)
	}))
	p.url = "http://" + ln.Addr().String()
	return p
}

// reset returns the counts since the last reset.
func (p *proxy) reset() (requests, calls int64) {
	return p.requests.Swap(0), p.calls.Swap(0)
}

type process struct{ cmd *exec.Cmd }

// startProcess runs bin with args and waits until its output matches ready.
func startProcess(bin, ready string, args ...string) (*process, error) {
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	re := regexp.MustCompile(ready)
	found := make(chan struct{})
	var lines []string
	go func() {
		sc := bufio.NewScanner(out)
		done := false
		for sc.Scan() {
			if !done {
				lines = append(lines, sc.Text())
			}
			if !done && re.MatchString(sc.Text()) {
				done = true
				close(found)
			}
		}
	}()
	select {
	case <-found:
		return &process{cmd}, nil
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("%s did not start:\n%s", bin, strings.Join(lines, "\n"))
	}
}

func (p *process) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

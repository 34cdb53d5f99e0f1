// Command abuse sends oversized and abusive JSON-RPC inputs to a flashrpc node and measures
// what they cost the node and everyone else, for docs/benchmarks.md ("Abusive inputs"):
//
//   - the growth of the node's resident memory (VmRSS in /proc/PID/status, sampled every
//     5 ms, peak minus the value before the case);
//   - the latency of eth_chainId on another keep-alive connection, one call every 10 ms
//     while the case runs and for a second after (p50, p99, max);
//   - sealing: the longest gap between two newHeads notifications on a third connection
//     (a block is sealed every --block-time, 2 s by default).
//
// It either starts the node itself, a fresh one per case and round, from a binary:
//
//	go run ./scripts/bench/abuse --bin .tools/flashrpc [--rounds 3] [--cases a,b]
//
// or measures a node that is already running (one process for every case):
//
//	go run ./scripts/bench/abuse --url http://127.0.0.1:8545 --pid 12345
//
// Every request goes to the loopback address given; the run ends by itself.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/flashrpc/flashrpc/internal/devaccounts"
)

// abuseCase is one abusive input.
type abuseCase struct {
	name string
	desc string
	run  func(ctx context.Context, url string) (string, error) // returns what the node answered
}

const (
	mib = 1 << 20
	// chainIDBody is the call measured on the side connection.
	chainIDBody = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`
)

var cases = []abuseCase{
	{"http-batch-5m", "HTTP POST of a 5 MiB batch [1,1,1,…] (the body limit)", func(ctx context.Context, url string) (string, error) {
		return post(ctx, url, ones(5*mib, "[", "]"))
	}},
	{"http-params-5m", "HTTP POST of one call whose params are 5 MiB of [1,1,1,…]", func(ctx context.Context, url string) (string, error) {
		return post(ctx, url, ones(5*mib, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[`, "]}"))
	}},
	{"http-body-6m", "HTTP POST of a 6 MiB batch, over the body limit", func(ctx context.Context, url string) (string, error) {
		return post(ctx, url, ones(6*mib, "[", "]"))
	}},
	{"ws-batch-32m", "WebSocket message of 32 MiB [1,1,1,…] (the read limit)", func(ctx context.Context, url string) (string, error) {
		return wsSend(ctx, url, 1, ones(32*mib, "[", "]"))
	}},
	{"ws-over-33m", "WebSocket message of 33 MiB, over the read limit", func(ctx context.Context, url string) (string, error) {
		return wsSend(ctx, url, 1, ones(33*mib, "[", "]"))
	}},
	{"ws-pipeline-8x32m", "8 WebSocket messages of 32 MiB sent back to back on one connection", func(ctx context.Context, url string) (string, error) {
		return wsSend(ctx, url, 8, ones(32*mib, "[", "]"))
	}},
	{"txpool-future-2000x120k", "2,000 future-nonce transactions of 120 kB calldata from one account (most refused: account queue full)", func(ctx context.Context, url string) (string, error) {
		return futureFlood(ctx, url, 2000, 120_000)
	}},
}

// futureFlood sends n transactions with size bytes of random calldata from dev account 0,
// with nonces 1..n past its next one (so none is executable), one eth_sendRawTransaction at a
// time on one connection, and tells how many were accepted and the first refusal.
func futureFlood(ctx context.Context, url string, n, size int) (string, error) {
	accounts, err := devaccounts.Derive(devaccounts.TestMnemonic, 1)
	if err != nil {
		return "", err
	}
	client, err := ethclient.DialContext(ctx, url)
	if err != nil {
		return "", err
	}
	defer client.Close()
	chainID, err := client.ChainID(ctx)
	if err != nil {
		return "", err
	}
	nonce, err := client.PendingNonceAt(ctx, accounts[0].Address)
	if err != nil {
		return "", err
	}
	tip, err := client.SuggestGasTipCap(ctx)
	if err != nil {
		return "", err
	}
	head, err := client.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	signer := types.LatestSignerForChainID(chainID)
	to := common.Address{0xde, 0xad}
	data := make([]byte, size)
	accepted, refused, first := 0, 0, ""
	for i := 1; i <= n; i++ {
		rand.Read(data) // nonzero bytes: the most intrinsic gas, no compression anywhere
		tx, err := types.SignNewTx(accounts[0].Key, signer, &types.DynamicFeeTx{
			ChainID: chainID, Nonce: nonce + uint64(i), GasTipCap: tip, GasFeeCap: feeCap,
			Gas: 21_000 + 40*uint64(size) + 100_000, To: &to, Data: data,
		})
		if err != nil {
			return "", err
		}
		switch err := client.SendTransaction(ctx, tx); {
		case err == nil:
			accepted++
		case ctx.Err() != nil:
			return "", ctx.Err()
		default:
			if refused++; first == "" {
				first = err.Error()
			}
		}
	}
	return fmt.Sprintf("%d accepted, %d refused (%s)", accepted, refused, first), nil
}

func main() {
	var (
		bin       = flag.String("bin", "", "flashrpc binary to start, fresh for every case and round (dev mode on --port)")
		port      = flag.Int("port", 18945, "standard endpoint port of a node started with --bin (the pre-confirmed one is port+2)")
		url       = flag.String("url", "", "endpoint of a running node (instead of --bin)")
		pid       = flag.Int("pid", 0, "process id of the running node at --url")
		rounds    = flag.Int("rounds", 3, "rounds of every case")
		only      = flag.String("cases", "", "comma-separated case names (default: all)")
		label     = flag.String("label", "", "name of the node in the output (default: the binary or the URL)")
		blockTime = flag.Duration("block-time", 2*time.Second, "block time of a node started with --bin")
		nodeArgs  = flag.String("node-args", "", "space-separated flags added to the command line of a node started with --bin, e.g. --memory-limit=0")
		list      = flag.Bool("list", false, "print the case names and exit")
	)
	flag.Parse()
	if *list {
		for _, c := range cases {
			fmt.Printf("%-20s %s\n", c.name, c.desc)
		}
		return
	}
	if (*bin == "") == (*url == "") || (*url != "" && *pid == 0) {
		log.Fatal("give either --bin, or --url and --pid")
	}
	if *label == "" {
		*label = *bin + *url
	}
	fmt.Printf("node: %s\n\n", *label)
	fmt.Println("| case | round | answer | RSS before | RSS growth (peak) | eth_chainId p50 / p99 / max (n) | longest gap between sealed blocks |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, c := range cases {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), c.name) {
			continue
		}
		for r := 1; r <= *rounds; r++ {
			u, p, stop := *url, *pid, func() {}
			if *bin != "" {
				var err error
				if u, p, stop, err = startNode(*bin, *port, *blockTime, strings.Fields(*nodeArgs)); err != nil {
					log.Fatal(err)
				}
			}
			res, err := measure(c, u, p)
			stop()
			if err != nil {
				log.Fatalf("%s: %v", c.name, err)
			}
			fmt.Printf("| %s | %d | %s | %d MB | %d MB | %s | %s |\n", c.name, r, res.answer, res.rssBefore/1e6, res.rssGrowth/1e6, res.latency, res.sealGap.Round(10*time.Millisecond))
		}
	}
}

// result is what one run of a case measured.
type result struct {
	answer    string
	rssBefore int64
	rssGrowth int64
	latency   string
	sealGap   time.Duration
}

// measure runs one case against the node at url (process pid) with the three probes.
func measure(c abuseCase, url string, pid int) (result, error) {
	var res result
	before, err := rss(pid)
	if err != nil {
		return res, err
	}
	res.rssBefore = before

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	peak := before
	wg.Go(func() { // memory
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := rss(pid); err == nil && v > peak {
				peak = v
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
	var lat []time.Duration
	var latErr error
	wg.Go(func() { lat, latErr = chainIDLoop(ctx, url) })
	var heads []time.Time
	wg.Go(func() { heads = headTimes(ctx, url) })

	time.Sleep(2500 * time.Millisecond) // the probes settle; at least one block seals
	start := time.Now()
	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	answer, err := c.run(cctx, url)
	ccancel()
	if err != nil {
		answer = "error: " + err.Error()
	}
	time.Sleep(max(time.Second, 2500*time.Millisecond-time.Since(start))) // a block seals after the case
	cancel()
	wg.Wait()
	if latErr != nil {
		return res, fmt.Errorf("eth_chainId probe: %w", latErr)
	}
	res.answer = answer
	res.rssGrowth = peak - before
	res.latency = percentiles(lat)
	for i := 1; i < len(heads); i++ {
		res.sealGap = max(res.sealGap, heads[i].Sub(heads[i-1]))
	}
	if len(heads) < 2 {
		res.sealGap = -1
	}
	return res, nil
}

// ones returns prefix + "1,1,…,1" + suffix of exactly n bytes.
func ones(n int, prefix, suffix string) []byte {
	b := make([]byte, 0, n)
	b = append(b, prefix...)
	for len(b)+2+len(suffix) <= n {
		b = append(b, '1', ',')
	}
	if len(b)+1+len(suffix) <= n {
		b = append(b, '1')
	} else {
		b[len(b)-1] = ' ' // "1," + suffix would be one byte too long: "1 " + suffix
	}
	for len(b)+len(suffix) < n {
		b = append(b, ' ')
	}
	return append(b, suffix...)
}

// post sends body and returns the status and the first bytes of the answer.
func post(ctx context.Context, url string, body []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	return fmt.Sprintf("%d %s", resp.StatusCode, summarize(b)), nil
}

// wsSend sends n copies of msg on one WebSocket connection and returns the first answer
// or the close status.
func wsSend(ctx context.Context, url string, n int, msg []byte) (string, error) {
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		return "", err
	}
	defer c.CloseNow()
	c.SetReadLimit(64 * mib)
	errc := make(chan error, 1)
	go func() {
		for range n {
			if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	var answers []string
	for len(answers) < n {
		_, b, err := c.Read(ctx)
		if err != nil {
			if st := websocket.CloseStatus(err); st != -1 {
				var ce websocket.CloseError
				errors.As(err, &ce)
				answers = append(answers, fmt.Sprintf("close %d %q", st, ce.Reason))
			} else {
				answers = append(answers, "read: "+err.Error())
			}
			break
		}
		answers = append(answers, summarize(b))
	}
	<-errc
	if len(answers) > 1 && n > 1 {
		return fmt.Sprintf("%s (×%d)", answers[0], len(answers)), nil
	}
	return answers[0], nil
}

// summarize shortens an answer for the table.
func summarize(b []byte) string {
	s := strings.TrimSpace(string(b))
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > 110 {
		s = s[:110] + "…"
	}
	return "`" + s + "`"
}

// chainIDLoop calls eth_chainId every 10 ms on one keep-alive connection until ctx ends
// and returns the latencies.
func chainIDLoop(ctx context.Context, url string) ([]time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
	var lat []time.Duration
	for ctx.Err() == nil {
		t0 := time.Now()
		resp, err := client.Post(url, "application/json", strings.NewReader(chainIDBody))
		if err != nil {
			return lat, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Contains(b, []byte(`"result"`)) {
			return lat, fmt.Errorf("answer %q, %v", b, err)
		}
		lat = append(lat, time.Since(t0))
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
	return lat, nil
}

// percentiles formats p50, p99 and max of lat.
func percentiles(lat []time.Duration) string {
	if len(lat) == 0 {
		return "none"
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	r := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms" }
	return fmt.Sprintf("%s / %s / %s (%d)", r(p(0.5)), r(p(0.99)), r(lat[len(lat)-1]), len(lat))
}

// headTimes subscribes to newHeads and records when each notification arrives.
func headTimes(ctx context.Context, url string) []time.Time {
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		return nil
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)); err != nil {
		return nil
	}
	var times []time.Time
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return times
		}
		var m struct{ Method string }
		if json.Unmarshal(b, &m) == nil && m.Method == "eth_subscription" {
			times = append(times, time.Now())
		}
	}
}

// rss returns the resident set size of process pid in bytes.
func rss(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/" + strconv.Itoa(pid) + "/status")
}

// startNode starts `bin dev` on loopback and waits until it answers.
func startNode(bin string, port int, blockTime time.Duration, extra []string) (url string, pid int, stop func(), err error) {
	args := []string{"dev", "--http.port", strconv.Itoa(port), "--preconf.port", strconv.Itoa(port + 2),
		"--feed.port", "-1", "--block-time", blockTime.String(), "--log.level", "warn"}
	cmd := exec.Command(bin, append(args, extra...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}
	url = "http://127.0.0.1:" + strconv.Itoa(port)
	for range 300 {
		if nc, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 100*time.Millisecond); err == nil {
			nc.Close()
			if _, err := post(context.Background(), url, []byte(chainIDBody)); err == nil {
				time.Sleep(time.Second) // let start-up allocations settle
				return url, cmd.Process.Pid, stop, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return "", 0, nil, fmt.Errorf("%s did not answer on port %d", bin, port)
}

// Command evmflood measures what a flood of heavy EVM calls does to a node: it sends --calls
// concurrent eth_call (or eth_estimateGas) requests of a contract that expands its memory to
// 1.5 MiB and then loops until its gas runs out, and meanwhile asks eth_chainId one request at a
// time. It reports how the flood was answered (result, busy error, timeout, other), the
// eth_chainId latency percentiles during the flood, and the growth of the node's resident memory
// (VmRSS). Figures for docs/benchmarks.md ("EVM load shedding").
//
//	go build -o .tools/flashrpc ./cmd/flashrpc
//	go run ./scripts/bench/evmflood --bin .tools/flashrpc [--calls 512] [--method eth_call] [--rounds 1] [-- node flags…]
//
// The node is started as `<bin> dev` on free loopback ports with the flags after `--`, and
// stopped at the end. The contract is given to each call as a state override, so the node
// needs no deployment: PUSH3 0x180000 MLOAD POP JUMPDEST PUSH1 6 JUMP (1.5 MiB of memory,
// then an endless loop that the gas cap ends).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// heavyCode expands memory to 0x180000 bytes (1.5 MiB), then loops: 0x06 is the JUMPDEST.
const heavyCode = "0x6218000051505b600656"

const heavyAddr = "0x000000000000000000000000000000000000c0de"

func main() {
	bin := flag.String("bin", ".tools/flashrpc", "flashrpc binary to start")
	calls := flag.Int("calls", 512, "concurrent heavy calls in the flood")
	method := flag.String("method", "eth_call", "eth_call or eth_estimateGas")
	rounds := flag.Int("rounds", 1, "floods to run one after another on the same node")
	probeGap := flag.Duration("probe-gap", 10*time.Millisecond, "pause between two eth_chainId probes")
	flag.Parse()

	port := freePort()
	args := append([]string{"dev", "--http.port", strconv.Itoa(freePort()), "--preconf.port", strconv.Itoa(port), "--feed.port", "-1"}, flag.Args()...)
	node := exec.Command(*bin, args...)
	node.Stdout, node.Stderr = io.Discard, io.Discard
	node.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := node.Start(); err != nil {
		log.Fatalf("start %s: %v", *bin, err)
	}
	defer func() {
		syscall.Kill(-node.Process.Pid, syscall.SIGTERM)
		node.Wait()
	}()
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitReady(url)
	fmt.Printf("node: %s %s (pid %d)\nflood: %d × %s of a 1.5 MiB-memory loop, eth_chainId probed every %v\n\n",
		*bin, strings.Join(args, " "), node.Process.Pid, *calls, *method, *probeGap)
	for r := 1; r <= *rounds; r++ {
		res := flood(url, node.Process.Pid, *calls, *method, *probeGap)
		fmt.Printf("round %d: %s\n", r, res)
	}
}

// result is one flood's outcome.
type result struct {
	answers  map[string]int // result, busy (-32005), timeout (-32002 or "execution aborted"), other error text
	transErr int            // transport errors: no JSON-RPC answer at all
	took     time.Duration  // from the first call sent to the last answer
	probes   []time.Duration
	rssBase  int64 // KiB before the flood
	rssPeak  int64 // KiB, highest sample during the flood
}

func (r result) String() string {
	var b strings.Builder
	keys := make([]string, 0, len(r.answers))
	for k := range r.answers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d, ", k, r.answers[k])
	}
	fmt.Fprintf(&b, "no answer %d; flood %.1fs\n", r.transErr, r.took.Seconds())
	slices.Sort(r.probes)
	fmt.Fprintf(&b, "  eth_chainId during the flood: %d probes, p50 %s, p99 %s, max %s\n", len(r.probes),
		ms(pct(r.probes, 0.50)), ms(pct(r.probes, 0.99)), ms(pct(r.probes, 1)))
	fmt.Fprintf(&b, "  RSS: %d MB before, peak %d MB, growth %d MB", r.rssBase/1024, r.rssPeak/1024, (r.rssPeak-r.rssBase)/1024)
	return b.String()
}

func flood(url string, pid, calls int, method string, gap time.Duration) result {
	res := result{answers: map[string]int{}, rssBase: rss(pid)}
	res.rssPeak = res.rssBase
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":[{"to":%q},"latest",{%q:{"code":%q}}]}`, method, heavyAddr, heavyAddr, heavyCode)

	var mu sync.Mutex
	var done atomic.Bool
	var wg sync.WaitGroup
	stopAux := make(chan struct{})
	var aux sync.WaitGroup
	aux.Add(2)
	go func() { // RSS sampler
		defer aux.Done()
		for {
			select {
			case <-stopAux:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if v := rss(pid); v > 0 {
				mu.Lock()
				res.rssPeak = max(res.rssPeak, v)
				mu.Unlock()
			}
		}
	}()
	go func() { // eth_chainId prober, one request at a time on its own connection
		defer aux.Done()
		c := &http.Client{Transport: &http.Transport{}}
		for !done.Load() {
			t0 := time.Now()
			if _, err := post(c, url, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); err != nil {
				log.Printf("eth_chainId: %v", err)
			}
			d := time.Since(t0)
			if !done.Load() {
				mu.Lock()
				res.probes = append(res.probes, d)
				mu.Unlock()
			}
			time.Sleep(gap)
		}
	}()
	transport := &http.Transport{MaxIdleConnsPerHost: calls, MaxConnsPerHost: 0}
	client := &http.Client{Transport: transport, Timeout: 2 * time.Minute}
	start := time.Now()
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := post(client, url, body)
			kind := classify(out, err)
			mu.Lock()
			if kind == "" {
				res.transErr++
			} else {
				res.answers[kind]++
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.took = time.Since(start)
	done.Store(true)
	close(stopAux)
	aux.Wait()
	transport.CloseIdleConnections()
	return res
}

// classify names a JSON-RPC answer: "result", "busy", "timeout" or the error's code and
// message; "" when there was no JSON-RPC answer.
func classify(out []byte, err error) string {
	if err != nil {
		return ""
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(out, &msg) != nil {
		return ""
	}
	switch {
	case msg.Error == nil && msg.Result != nil:
		return "result"
	case msg.Error == nil:
		return ""
	case msg.Error.Code == -32005:
		return "busy"
	case msg.Error.Code == -32002 || strings.HasPrefix(msg.Error.Message, "execution aborted"):
		return "timeout"
	}
	return fmt.Sprintf("error %d %q", msg.Error.Code, msg.Error.Message)
}

func post(c *http.Client, url, body string) ([]byte, error) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func waitReady(url string) {
	for range 300 {
		if out, err := post(http.DefaultClient, url, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); err == nil && bytes.Contains(out, []byte("result")) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatalf("node at %s did not answer", url)
}

// rss returns the process's resident set size in KiB, or 0.
func rss(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return v
		}
	}
	return 0
}

func freePort() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * q)
	return sorted[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// Command getlogs measures eth_getLogs latency over HTTP on a chain made by `flashrpc
// generate`, for docs/benchmarks.md ("eth_getLogs over 1,000,000 blocks"). scripts/bench/getlogs.sh
// runs it against flashrpc with and without its log index and against go-ethereum's eth/filters.
//
//	go run ./scripts/bench/getlogs --url http://127.0.0.1:18745 --label flashrpc [--runs 20] [--budget 60s]
//
// For each query of the set and each range (the last 1k, 10k, 100k blocks and the whole chain)
// it sends one request to warm up, then --runs requests one after another on one keep-alive
// connection, and prints the p50 and p99 of the wall time from sending the request to reading
// the whole response, with the response: the number of logs, or the error code. A cell stops
// early, after at least 3 runs, when its runs have taken --budget.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/chaingen"
)

// query is one filter of the set, without its block range.
type query struct {
	name, what string
	filter     map[string]any
}

// querySet names members of chaingen's population (it does not depend on the seed): a token
// of middling use (rank 100), a busier token's Approval events (rank 15), the rare event, the
// incoming transfers of one wallet (account 1,000: a posting list intersected with Transfer's,
// which names nearly every block), and every Transfer.
func querySet() []query {
	wallet := common.BytesToHash(chaingen.Account(1_000, chaingen.DefaultSenders).Bytes())
	return []query{
		{"contract", "address = token #100", map[string]any{"address": chaingen.Token(99)}},
		{"contract+topic", "address = token #15, topic0 = Approval", map[string]any{"address": chaingen.Token(14), "topics": []any{chaingen.ApprovalTopic}}},
		{"rare-topic", "topic0 = the rare event", map[string]any{"topics": []any{chaingen.RareTopic}}},
		{"wallet", "topic0 = Transfer, topic2 = account #1,000", map[string]any{"topics": []any{chaingen.TransferTopic, nil, wallet}}},
		{"broad", "topic0 = Transfer", map[string]any{"topics": []any{chaingen.TransferTopic}}},
	}
}

type result struct {
	Label   string  `json:"label"`
	Query   string  `json:"query"`
	Range   string  `json:"range"`
	Blocks  uint64  `json:"blocks"`
	Runs    int     `json:"runs"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	CPUms   float64 `json:"cpu_ms,omitempty"` // server CPU per request, when --pid is given
	Outcome string  `json:"outcome"`          // "N logs" or "error CODE"
}

func main() {
	url := flag.String("url", "http://127.0.0.1:18745", "JSON-RPC endpoint")
	label := flag.String("label", "flashrpc", "name of the server in the output")
	runs := flag.Int("runs", 20, "measured requests per query and range")
	budget := flag.Duration("budget", time.Minute, "time after which a query and range stops, after at least 3 runs")
	only := flag.String("only", "", "comma-separated query names to run (default: all)")
	ranges := flag.String("ranges", "1k,10k,100k,full", "comma-separated ranges: 1k, 10k, 100k, full")
	out := flag.String("json", "", "append one JSON line per result to this file")
	skip := flag.String("skip", "", "comma-separated query:range cells not to run, e.g. broad:full (a server without a result cap would return millions of logs)")
	pid := flag.Int("pid", 0, "process id of the server: adds its CPU time per request (user+system, from /proc) to the output")
	flag.Parse()

	client := &http.Client{Timeout: 10 * time.Minute}
	var head hexutil.Uint64
	if err := call(client, *url, "eth_blockNumber", []any{}, &head); err != nil {
		log.Fatalf("eth_blockNumber: %v", err)
	}
	widths := map[string]uint64{"1k": 1_000, "10k": 10_000, "100k": 100_000, "full": uint64(head) + 1}
	var jsonOut io.Writer = io.Discard
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		jsonOut = f
	}
	fmt.Printf("| server | query | range | runs | p50 ms | p99 ms | CPU ms | result |\n|---|---|---|---|---|---|---|---|\n")
	for _, q := range querySet() {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), q.name) {
			continue
		}
		for _, r := range strings.Split(*ranges, ",") {
			if slices.Contains(strings.Split(*skip, ","), q.name+":"+r) {
				continue
			}
			width := min(widths[r], uint64(head)+1)
			from := uint64(head) + 1 - width
			res := measure(client, *url, q, from, uint64(head), *runs, *budget, *pid)
			res.Label, res.Range, res.Blocks = *label, r, width
			cpu := "-"
			if *pid != 0 {
				cpu = fmt.Sprintf("%.1f", res.CPUms)
			}
			fmt.Printf("| %s | %s | %s | %d | %.1f | %.1f | %s | %s |\n", res.Label, res.Query, res.Range, res.Runs, res.P50ms, res.P99ms, cpu, res.Outcome)
			line, _ := json.Marshal(res)
			fmt.Fprintln(jsonOut, string(line))
		}
	}
}

// measure runs one query over [from, to]: a warm-up request, then up to runs timed ones.
func measure(client *http.Client, url string, q query, from, to uint64, runs int, budget time.Duration, pid int) result {
	filter := map[string]any{"fromBlock": hexutil.EncodeUint64(from), "toBlock": hexutil.EncodeUint64(to)}
	for k, v := range q.filter {
		filter[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "eth_getLogs", "params": []any{filter}})
	warm, err := post(client, url, body)
	if err != nil {
		log.Fatalf("%s [%d, %d]: %v", q.name, from, to, err)
	}
	outcome := summarise(warm)
	var times []time.Duration
	var spent time.Duration
	cpuBefore := cpuTime(pid)
	for i := 0; i < runs && (i < 3 || spent < budget); i++ {
		start := time.Now()
		got, err := post(client, url, body)
		d := time.Since(start)
		if err != nil || summarise(got) != outcome {
			log.Fatalf("%s [%d, %d]: run %d gave %q (%v), the warm-up %q", q.name, from, to, i, summarise(got), err, outcome)
		}
		times = append(times, d)
		spent += d
	}
	cpu := cpuTime(pid) - cpuBefore
	slices.Sort(times)
	return result{Query: q.name, Runs: len(times), P50ms: ms(percentile(times, 50)), P99ms: ms(percentile(times, 99)),
		CPUms: ms(cpu) / float64(len(times)), Outcome: outcome}
}

// cpuTime returns the user and system time process pid has used, from /proc/pid/stat (in
// clock ticks of 10 ms); zero when pid is 0.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		log.Fatalf("--pid: %v", err)
	}
	// Fields after the command name (which may hold spaces) start after the last ')'.
	fields := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	var utime, stime int64
	fmt.Sscan(fields[11], &utime)
	fmt.Sscan(fields[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (p*len(sorted) + 99) / 100
	return sorted[max(rank, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// post sends one request and reads the whole response: what the timing covers.
func post(client *http.Client, url string, body []byte) ([]byte, error) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// summarise describes a response: "N logs" or "error CODE".
func summarise(resp []byte) string {
	var msg struct {
		Result []json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(resp, &msg); err != nil {
		return "undecodable: " + err.Error()
	}
	if msg.Error != nil {
		return fmt.Sprintf("error %d", msg.Error.Code)
	}
	return fmt.Sprintf("%d logs", len(msg.Result))
}

func call(client *http.Client, url, method string, params []any, out any) error {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		return err
	}
	return json.Unmarshal(msg.Result, out)
}

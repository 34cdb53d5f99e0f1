package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// heavyCode expands memory to 1.5 MiB (PUSH3 0x180000 MLOAD POP), then loops until its gas
// runs out (JUMPDEST PUSH1 6 JUMP); heavyAddr is where state overrides put it.
const (
	heavyCode = "0x6218000051505b600656"
	heavyAddr = "0x000000000000000000000000000000000000c0de"
)

// TestEVMFlood sends 512 concurrent heavy eth_calls over real sockets (the issue measured
// eth_chainId's p99 at 3–5 s and 785 MB more memory during such a flood). Each gets a JSON-RPC
// answer at once or in turn: a result, -32005 "server busy" beyond the running and queued
// limits, or a timeout; and eth_chainId answers while the flood lasts. Speed is measured by
// scripts/bench/evmflood (docs/benchmarks.md), not here.
func TestEVMFlood(t *testing.T) {
	o := testOptions(t.TempDir())
	o.API.GasCap = 10_000_000 // a tenth of a second per call or so, to keep the test short
	o.EVMConcurrency, o.EVMQueue = 2, 8
	tn := startTestNode(t, o)
	const calls = 512
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"eth_call","params":[{"to":%q},"latest",{%q:{"code":%q}}]}`, heavyAddr, heavyAddr, heavyCode)
	wantBusy := "server busy: 2 EVM calls running and 8 queued, retry later"

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: calls}}
	defer client.CloseIdleConnections()
	var (
		mu      sync.Mutex
		answers = map[string]int{}
		busyMsg string
		left    atomic.Int64 // flood calls not answered yet
		wg      sync.WaitGroup
	)
	left.Store(calls)
	start := time.Now()
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer left.Add(-1)
			kind, msg := rpcAnswerMessage(client, tn.preURL, body)
			mu.Lock()
			defer mu.Unlock()
			switch kind {
			case "":
				t.Errorf("no JSON-RPC answer: %s", msg)
			case "busy":
				busyMsg = msg
				answers[kind]++
			case "result", "timeout":
				answers[kind]++
			case `error -32000 "out of gas"`: // the call ran: it loops until its gas runs out
				answers["result"]++
			default:
				t.Errorf("unexpected answer %s", kind)
			}
		}()
	}
	// eth_chainId, one at a time on its own connection, for as long as the flood lasts.
	probe := &http.Client{Transport: &http.Transport{}}
	during := 0
	for left.Load() > 0 {
		kind, err := rpcAnswer(probe, tn.preURL, `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
		if err != nil || kind != "result" {
			t.Fatalf("eth_chainId during the flood: %s %v", kind, err)
		}
		if left.Load() > 0 {
			during++
		}
	}
	wg.Wait()
	t.Logf("flood took %v", time.Since(start))
	t.Logf("answers: %v; eth_chainId answered %d times during the flood", answers, during)
	if answers["busy"] == 0 || answers["result"] == 0 {
		t.Fatalf("answers %v: want results and busy errors", answers)
	}
	if during == 0 {
		t.Fatal("eth_chainId never answered while the flood lasted")
	}
	if busyMsg != wantBusy {
		t.Fatalf("busy message %q, want %q", busyMsg, wantBusy)
	}
}

// rpcAnswer posts body and names the answer: "result", "busy" (-32005), "timeout" (-32002 or
// "execution aborted"), or the error.
func rpcAnswer(c *http.Client, url, body string) (string, error) {
	kind, msg := rpcAnswerMessage(c, url, body)
	if kind == "" {
		return "", fmt.Errorf("%s", msg)
	}
	return kind, nil
}

func rpcAnswerMessage(c *http.Client, url, body string) (kind, message string) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return "", err.Error()
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err.Error()
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &msg); err != nil || msg.JSONRPC != "2.0" || len(msg.ID) == 0 {
		return "", fmt.Sprintf("not a JSON-RPC answer (HTTP %d): %.200s", resp.StatusCode, out)
	}
	switch {
	case msg.Error == nil && msg.Result != nil:
		return "result", ""
	case msg.Error == nil:
		return "", fmt.Sprintf("neither result nor error: %.200s", out)
	case msg.Error.Code == -32005:
		return "busy", msg.Error.Message
	case msg.Error.Code == -32002 || strings.HasPrefix(msg.Error.Message, "execution aborted"):
		return "timeout", msg.Error.Message
	}
	return fmt.Sprintf("error %d %q", msg.Error.Code, msg.Error.Message), msg.Error.Message
}

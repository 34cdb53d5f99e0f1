package main

import (
	"context"
	"io"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// bigInit is init code that deploys 25,000 zero bytes, above EIP-170's 24,576:
// PUSH2 25000 PUSH1 0 RETURN.
var bigInit = common.FromHex("0x6161a86000f3")

const bigCodeSize = 25_000

// TestCodeSizeLimit deploys a 25,000-byte contract on dev chains with and without the
// code-size flags: eth_call and eth_estimateGas of the deployment agree with the sealed
// block, which refuses it with EIP-170's message unless the limit is lifted.
func TestCodeSizeLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		lifted bool
	}{
		{"default", nil, false},
		{"limit=24576", []string{"--code-size-limit", "24576"}, false},
		{"disabled", []string{"--disable-code-size-limit"}, true},
		{"limit=30000", []string{"--code-size-limit", "30000"}, true},
		{"l1/disabled", []string{"--chain-type", "l1", "--disable-code-size-limit"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testCodeSizeLimit(t, tc.args, tc.lifted)
		})
	}
}

func testCodeSizeLimit(t *testing.T, args []string, lifted bool) {
	ctx := context.Background()
	o, err := parseDev(args, io.Discard, io.Discard)
	if err != nil {
		t.Fatalf("parse %v: %v", args, err)
	}
	o.DataDir = t.TempDir()
	o.HTTPPort, o.PreconfPort, o.feed.Port = 0, 0, 0
	o.blockTime, o.preconfInterval = 0, 0
	tn := startTestNode(t, o)
	key := testOptionsAccounts(t)[0]
	from := addressOf(key)
	call := map[string]any{"from": from, "data": hexutil.Bytes(bigInit), "gas": hexutil.Uint64(6_000_000)}
	const refusal = "max code size exceeded: code size 25000 limit 24576"

	for _, ep := range []struct {
		name string
		cl   interface {
			CallContext(context.Context, any, string, ...any) error
		}
	}{{"standard", tn.stdRaw}, {"pre-confirmed", tn.preRaw}} {
		var code hexutil.Bytes
		err := ep.cl.CallContext(ctx, &code, "eth_call", call, "latest")
		var est hexutil.Uint64
		eerr := ep.cl.CallContext(ctx, &est, "eth_estimateGas", call, "latest")
		var trace struct {
			Failed      bool
			ReturnValue string
		}
		terr := ep.cl.CallContext(ctx, &trace, "debug_traceCall", call, "latest", map[string]any{"disableStorage": true, "disableMemory": true, "disableStack": true})
		if terr != nil {
			t.Fatalf("%s: debug_traceCall of the deployment: %v", ep.name, terr)
		}
		if lifted {
			if err != nil || len(code) != bigCodeSize {
				t.Fatalf("%s: eth_call of the deployment: %d bytes, %v; want %d bytes", ep.name, len(code), err, bigCodeSize)
			}
			if eerr != nil || est < 5_000_000 {
				t.Fatalf("%s: eth_estimateGas of the deployment: %d, %v; want above 5,000,000", ep.name, est, eerr)
			}
			if trace.Failed {
				t.Fatalf("%s: debug_traceCall of the deployment failed", ep.name)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), refusal) {
			t.Fatalf("%s: eth_call of the deployment: %v; want %q", ep.name, err, refusal)
		}
		if eerr == nil || !strings.Contains(eerr.Error(), refusal) {
			t.Fatalf("%s: eth_estimateGas of the deployment: %d, %v; want %q", ep.name, est, eerr, refusal)
		}
		if !trace.Failed {
			t.Fatalf("%s: debug_traceCall of the deployment succeeded under EIP-170", ep.name)
		}
	}

	chainID, err := tn.std.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := tn.pre.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	tx := signTx(t, key, chainID, nonce, nil, new(big.Int), 6_000_000, bigInit)
	if err := tn.pre.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	tn.preconfirm(t)
	tn.seal(t)
	rcpt, err := tn.std.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatalf("receipt of the deployment: %v", err)
	}
	want := types.ReceiptStatusFailed
	if lifted {
		want = types.ReceiptStatusSuccessful
	}
	if rcpt.Status != want {
		t.Fatalf("deployment sealed with status %d, want %d", rcpt.Status, want)
	}
	code, err := tn.std.CodeAt(ctx, crypto.CreateAddress(from, nonce), nil)
	if err != nil {
		t.Fatal(err)
	}
	if lifted != (len(code) == bigCodeSize) || !lifted && len(code) != 0 {
		t.Fatalf("deployed code: %d bytes (lifted %v)", len(code), lifted)
	}
}

// TestCodeSizeFlags checks what the flags refuse: a limit below EIP-170's on dev, either
// flag on follow (a replica runs its network's rules).
func TestCodeSizeFlags(t *testing.T) {
	if _, err := parseDev([]string{"--code-size-limit", "1000"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "below EIP-170") {
		t.Fatalf("dev --code-size-limit 1000: %v, want a refusal", err)
	}
	for _, args := range [][]string{{"--disable-code-size-limit"}, {"--code-size-limit", "30000"}} {
		if err := runFollow(append(args, "--upstream", "http://127.0.0.1:1"), io.Discard, io.Discard); err != errUsage {
			t.Fatalf("follow %v: %v, want a usage error", args, err)
		}
	}
}

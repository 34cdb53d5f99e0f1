package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// randomBundle generates one eth_simulateV1 request from r: one to three blocks (some with
// number or time gaps and block overrides), state overrides (balances, nonces, contract code,
// storage), and calls that transfer value, emit logs, revert, panic, hit an invalid opcode,
// forward value through nested calls or self-destruct; with or without validation and
// traceTransfers.
func randomBundle(r *rand.Rand) string {
	lower := func(a common.Address) string { return strings.ToLower(a.Hex()) }
	c1, c2 := "0xc200000000000000000000000000000000000001", "0xc200000000000000000000000000000000000002"
	targets := []string{lower(emptyAddr), lower(logAddr), lower(revertAddr), lower(panicAddr), lower(invalidAddr), lower(proxyAddr), lower(envAddr), c1, c2, lower(poorAddr)}
	validation := r.IntN(3) == 0
	var blocks []string
	// number and time follow the simulator's defaults (+1, +12 s) unless overridden; overrides
	// keep them increasing (gaps included) so that most bundles run rather than fail the order
	// checks, which the fixtures and simRequests cover.
	number, time, timed := uint64(0), uint64(0x70000000), false // later than any test chain head
	for range 1 + r.IntN(3) {
		var overrides []string
		step := uint64(1)
		if r.IntN(3) == 0 {
			step += uint64(r.IntN(4))
			overrides = append(overrides, fmt.Sprintf(`"number":"0x%x"`, number+step))
		}
		number += step
		time += 12 * step // gap-filling blocks take 12 s each
		if r.IntN(3) == 0 || timed {
			timed = true // once a time is set, later blocks set theirs too: the default may be smaller
			time += uint64(r.IntN(30))
			overrides = append(overrides, fmt.Sprintf(`"time":"0x%x"`, time))
		}
		if r.IntN(4) == 0 {
			overrides = append(overrides, `"feeRecipient":"`+c2+`"`)
		}
		if r.IntN(4) == 0 && !validation {
			overrides = append(overrides, fmt.Sprintf(`"baseFeePerGas":"0x%x"`, r.IntN(1000)))
		}
		if r.IntN(5) == 0 {
			overrides = append(overrides, fmt.Sprintf(`"prevRandao":"0x%064x"`, r.Uint64()))
		}
		state := []string{}
		if r.IntN(2) == 0 {
			code := []string{hexOf(selfdestructCode), hexOf(forwarderCode), hexOf(outerCode(common.HexToAddress(c2))), hexOf(innerRevertCode)}[r.IntN(4)]
			state = append(state, fmt.Sprintf(`"%s":{"code":"%s","balance":"0x%x"}`, c1, code, r.IntN(1000)))
		}
		if r.IntN(3) == 0 {
			state = append(state, fmt.Sprintf(`"%s":{"balance":"0x%x","nonce":"0x%x","stateDiff":{"0x%064x":"0x%064x"}}`, c2, r.IntN(1<<20), r.IntN(5), r.IntN(3), r.Uint64()))
		}
		var calls []string
		for range r.IntN(5) {
			from := lower(richAddr)
			if r.IntN(6) == 0 && !validation {
				from = c2 // little balance: transfers may fail the request (-38014)
			}
			to := targets[r.IntN(len(targets))]
			call := fmt.Sprintf(`"from":"%s","to":"%s"`, from, to)
			if to == lower(invalidAddr) { // an invalid opcode burns all gas: keep the shared budget
				call += `,"gas":"0x30000"`
			}
			if r.IntN(2) == 0 {
				call += fmt.Sprintf(`,"value":"0x%x"`, r.IntN(100))
			}
			if validation || (r.IntN(3) == 0 && from != c2) {
				call += `,"maxFeePerGas":"0x174876e800","maxPriorityFeePerGas":"0x1"`
			}
			if r.IntN(4) == 0 && to != lower(invalidAddr) {
				call += fmt.Sprintf(`,"gas":"0x%x"`, 25000+r.IntN(100000))
			}
			if r.IntN(4) == 0 {
				call += fmt.Sprintf(`,"input":"0x%08x"`, r.Uint32())
			}
			calls = append(calls, "{"+call+"}")
		}
		blocks = append(blocks, fmt.Sprintf(`{"blockOverrides":{%s},"stateOverrides":{%s},"calls":[%s]}`,
			strings.Join(overrides, ","), strings.Join(state, ","), strings.Join(calls, ",")))
	}
	return fmt.Sprintf(`{"validation":%v,"traceTransfers":%v,"returnFullTransactions":%v,"blockStateCalls":[%s]}`,
		validation, r.IntN(2) == 0, r.IntN(3) == 0, strings.Join(blocks, ","))
}

// TestGethSimulateRandomBundles compares generated bundles, field by field, with go-ethereum's
// in-process node: results, or error codes and messages, must be identical.
func TestGethSimulateRandomBundles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an in-process geth node")
	}
	geth := newGethOracle(t)
	chain := newTestChain(t, 0)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11)) // fixed seed: failures reproduce
	prepared := preparedRuns.Load()
	defer func() {
		// simOutcome also runs each bundle on a prepared Base; some must have taken its state.
		if n := preparedRuns.Load() - prepared; n == 0 && !t.Failed() {
			t.Error("no bundle ran on a prepared base's state")
		} else {
			t.Logf("%d bundles ran on a prepared base's state too", n)
		}
	}()
	for i := range 60 {
		req := randomBundle(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			want := gethOutcome(ctx, geth.rpc, "eth_simulateV1", json.RawMessage(req), "latest")
			got := simOutcome(ctx, t, chain.env(t), req)
			if got.Code != want.Code || got.Message != want.Message {
				t.Fatalf("request %s\nerror:\n got %v\nwant %v", req, got, want)
			}
			if want.Code != 0 {
				return
			}
			var g, w any
			if err := json.Unmarshal([]byte(got.Result), &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(want.Result), &w); err != nil {
				t.Fatal(err)
			}
			renumberLogs(w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("request %s\nresult differs at %s", req, firstDiff(g, w, "$"))
			}
		})
	}
}

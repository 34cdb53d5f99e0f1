package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// A chain without pre-confirmations (`flashrpc dev --network base-mainnet`, Base since Denim)
// publishes nothing between two blocks: what keeps its cadence is the sealed block, so the
// interval to measure is between two newHeads notifications of the standard endpoint. A
// notification is sent once the block is written and durable, so the interval includes the
// seal's chain write; the chain's own millisecond time (timestampMs, Tms) says whether the
// chain keeps pace with the clock: Tms grows by exactly 200 per block, so arrival − Tms stays
// flat while every deadline is met and grows by a slot for every slot the sequencer misses.

// newHeadsWatch subscribes to newHeads at wsURL and records each sealed block as one whole-block
// event: when its notification arrived, its gas used and its timestampMs (0 before Denim). The
// transactions of each block are counted when a window asks for them (countTxs), over c, so that
// the subscription's reader does nothing but record.
func newHeadsWatch(wsURL string, c *client) *feedWatch {
	f := &feedWatch{countTxs: c.userTxs}
	ctx := context.Background()
	rc, err := gethrpc.DialWebsocket(ctx, wsURL, "")
	if err != nil {
		log.Fatalf("newHeads %s: %v", wsURL, err)
	}
	heads := make(chan json.RawMessage, 1024)
	sub, err := rc.EthSubscribe(ctx, heads, "newHeads")
	if err != nil {
		log.Fatalf("newHeads %s: %v", wsURL, err)
	}
	go func() {
		for {
			select {
			case err := <-sub.Err():
				fmt.Fprintln(os.Stderr, "newHeads:", err)
				return
			case raw := <-heads:
				now := time.Now()
				var h struct {
					Number      hexutil.Uint64  `json:"number"`
					GasUsed     hexutil.Uint64  `json:"gasUsed"`
					TimestampMs *hexutil.Uint64 `json:"timestampMs"`
				}
				if err := json.Unmarshal(raw, &h); err != nil {
					fmt.Fprintln(os.Stderr, "newHeads:", err)
					continue
				}
				e := feedEvent{at: now, block: uint64(h.Number), index: 1, txs: -1, gas: uint64(h.GasUsed), whole: true}
				if h.TimestampMs != nil {
					e.tms = uint64(*h.TimestampMs)
				}
				f.mu.Lock()
				f.events = append(f.events, e)
				f.mu.Unlock()
			}
		}
	}()
	return f
}

// userTxs returns the transactions of sealed block n other than its deposits: an OP Stack dev
// block opens with the L1-attributes deposit, and a Denim block (denim set) with the BaseTime
// deposit after it; the benchmark queues no other deposits.
func (c *client) userTxs(n uint64, denim bool) (int, error) {
	raw, err := c.call("eth_getBlockTransactionCountByNumber", hexutil.Uint64(n))
	if err != nil {
		return 0, err
	}
	var count hexutil.Uint64
	if err := json.Unmarshal(raw, &count); err != nil {
		return 0, err
	}
	deposits := 1
	if denim {
		deposits = 2
	}
	return max(0, int(count)-deposits), nil
}

// lagStats returns, for the whole-block events of a window that carry a millisecond time, how
// late each notification arrived after its block's timestampMs: the median, the largest and the
// drift (the last block's lag minus the first's; a slot a missed deadline).
func lagStats(events []feedEvent) (p50, largest, drift time.Duration) {
	var lags []time.Duration
	for _, e := range events {
		if e.tms > 0 {
			lags = append(lags, e.at.Sub(time.UnixMilli(int64(e.tms))))
		}
	}
	if len(lags) == 0 {
		return 0, 0, 0
	}
	drift = lags[len(lags)-1] - lags[0]
	sorted := append([]time.Duration(nil), lags...)
	slices.Sort(sorted)
	return sorted[len(sorted)/2], sorted[len(sorted)-1], drift
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// subscription is one eth_subscribe kept open, on a connection of its own: it counts what it
// receives, and reconnects (counting a failure) when its connection or subscription ends.
type subscription struct {
	name      string // <where>_<kind>, a column of the CSV
	url       string
	kind      string
	delivered atomic.Int64 // notifications since the start
	failures  atomic.Int64 // dials, subscriptions or connections that failed
}

// startSubscribers subscribes to every kind: through HAProxy's pre-confirmed frontend (the
// replicas: newHeads, logs, pendingLogs, newFlashblocks, newFlashblockTransactions,
// newPendingTransactions), its standard one (newHeads, logs, newPendingTransactions) and the
// primary itself (newFlashblocks, pendingLogs, newHeads).
func startSubscribers(ctx context.Context, cl *cluster) []*subscription {
	var subs []*subscription
	add := func(where, url string, kinds ...string) {
		for _, k := range kinds {
			subs = append(subs, &subscription{name: where + "_" + k, url: url, kind: k})
		}
	}
	add("lbpre", cl.ws(cl.lbPort+1), "newHeads", "logs", "pendingLogs", "newFlashblocks", "newFlashblockTransactions", "newPendingTransactions")
	add("lbstd", cl.ws(cl.lbPort), "newHeads", "logs", "newPendingTransactions")
	add("primarypre", cl.ws(cl.primaryPort+1), "newFlashblocks", "pendingLogs")
	add("primarystd", cl.ws(cl.primaryPort), "newHeads")
	for _, s := range subs {
		go s.run(ctx)
	}
	return subs
}

// run keeps the subscription open until ctx ends.
func (s *subscription) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.once(ctx); err != nil && ctx.Err() == nil {
			s.failures.Add(1)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// once subscribes and counts notifications until the subscription or ctx ends.
func (s *subscription) once(ctx context.Context) error {
	c, err := gethrpc.DialWebsocket(ctx, s.url, "")
	if err != nil {
		return err
	}
	defer c.Close()
	ch := make(chan json.RawMessage, 1024)
	args := []any{s.kind}
	if s.kind == "logs" || s.kind == "pendingLogs" {
		args = append(args, map[string]any{})
	}
	sub, err := c.EthSubscribe(ctx, ch, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", s.name, err)
	}
	defer sub.Unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-sub.Err():
			return fmt.Errorf("%s: %w", s.name, err)
		case <-ch:
			s.delivered.Add(1)
		}
	}
}

package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// New heads by subscription: eth_subscribe("newHeads") over the upstream's WebSocket, for a
// replica that follows the upstream as it seals instead of asking for its head again and
// again.

// Head is a block an upstream announced as its new head.
type Head struct {
	Number uint64
	Hash   common.Hash
}

// HeadSubscription is a newHeads subscription on one WebSocket connection. Next and Close may
// be called from different goroutines.
type HeadSubscription struct {
	url    string
	client *rpc.Client
	sub    *rpc.ClientSubscription
	heads  chan headJSON
}

type headJSON struct {
	Number hexutil.Uint64 `json:"number"`
	Hash   common.Hash    `json:"hash"`
}

// WebSocketURL returns the WebSocket URL of an HTTP JSON-RPC URL on the same host, port and
// path (ws for http, wss for https), as geth, reth and flashrpc serve both on one port; ""
// when u is not an HTTP(S) URL.
func WebSocketURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	switch p.Scheme {
	case "http":
		p.Scheme = "ws"
	case "https":
		p.Scheme = "wss"
	case "ws", "wss":
	default:
		return ""
	}
	return p.String()
}

// SubscribeHeads dials wsURL and subscribes to its new heads. It fails when the upstream
// serves no WebSocket there or refuses the subscription.
func SubscribeHeads(ctx context.Context, wsURL string) (*HeadSubscription, error) {
	c, err := rpc.DialWebsocket(ctx, wsURL, "")
	if err != nil {
		return nil, &UpstreamError{URL: wsURL, Method: "eth_subscribe", Reason: "no WebSocket: " + err.Error(), Err: err}
	}
	s := &HeadSubscription{url: wsURL, client: c, heads: make(chan headJSON, 16)}
	if s.sub, err = c.Subscribe(ctx, "eth", s.heads, "newHeads"); err != nil {
		c.Close()
		return nil, &UpstreamError{URL: wsURL, Method: "eth_subscribe", Reason: "newHeads refused: " + err.Error(), Err: err}
	}
	return s, nil
}

// Next waits for the next head. It fails when the connection drops, the upstream ends the
// subscription, or ctx ends.
func (s *HeadSubscription) Next(ctx context.Context) (Head, error) {
	select {
	case h := <-s.heads:
		return Head{Number: uint64(h.Number), Hash: h.Hash}, nil
	case err := <-s.sub.Err():
		if err == nil {
			err = errors.New("subscription closed")
		}
		return Head{}, &UpstreamError{URL: s.url, Method: "eth_subscribe", Reason: fmt.Sprintf("newHeads ended: %v", err), Err: err}
	case <-ctx.Done():
		return Head{}, ctx.Err()
	}
}

// Close ends the subscription and closes the connection.
func (s *HeadSubscription) Close() {
	s.sub.Unsubscribe()
	s.client.Close()
}

package main

import (
	"flag"

	"github.com/flashrpc/flashrpc/internal/node"
)

// defaultFeedPort is the flashblocks feed's port unless --feed.port says otherwise.
const defaultFeedPort = 8548

// registerFeed registers the flashblocks feed flags (dev's feed, follow's republished one),
// which fill in f.
func registerFeed(fs *flag.FlagSet, f *node.Feed) {
	fs.StringVar(&f.Addr, "feed.addr", "127.0.0.1", "interface of the flashblocks feed (WebSocket, Base's FlashblocksPayloadV1)")
	fs.IntVar(&f.Port, "feed.port", defaultFeedPort, "port of the flashblocks feed; -1 = no feed")
	fs.BoolVar(&f.Brotli, "feed.brotli", false, "send the feed's messages brotli-compressed in binary frames instead of JSON text frames")
}

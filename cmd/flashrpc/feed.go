package main

import (
	"flag"

	"github.com/flashrpc/flashrpc/internal/node"
)

// defaultFeedPort is the flashblocks feed's port unless --feed.port says otherwise.
const defaultFeedPort = 8548

// feedFlags are the dev command's flashblocks feed flags.
type feedFlags struct {
	addr   string
	port   int
	brotli bool
}

func (f *feedFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "feed.addr", "127.0.0.1", "interface of the flashblocks feed (WebSocket, Base's FlashblocksPayloadV1)")
	fs.IntVar(&f.port, "feed.port", defaultFeedPort, "port of the flashblocks feed; -1 = no feed")
	fs.BoolVar(&f.brotli, "feed.brotli", false, "send the feed's messages brotli-compressed in binary frames instead of JSON text frames")
}

// config returns the feed's node configuration.
func (f *feedFlags) config() node.Feed {
	return node.Feed{Addr: f.addr, Port: f.port, Brotli: f.brotli}
}

package flashblocks

import (
	"context"
	"fmt"

	"github.com/coder/websocket"
)

// Client reads a flashblocks feed: Base's streams, a flashrpc dev node's --feed.port, or any
// producer of FlashblocksPayloadV1 over WebSocket, in JSON text or brotli binary frames. It is
// used by one goroutine at a time. It does not reconnect.
type Client struct {
	ws *websocket.Conn
}

// Dial connects to a feed at url (ws:// or wss://).
func Dial(ctx context.Context, url string) (*Client, error) {
	ws, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, fmt.Errorf("dial flashblocks feed %s: %w", url, err)
	}
	ws.SetReadLimit(MaxMessageSize)
	return &Client{ws: ws}, nil
}

// Next waits for the next message and decodes it. A message that does not decode is an
// error; the connection stays usable. If ctx ends first, the connection is closed (the
// WebSocket library cannot abandon a read half-way).
func (c *Client) Next(ctx context.Context) (*Payload, error) {
	msg, err := c.NextRaw(ctx)
	if err != nil {
		return nil, err
	}
	return Decode(msg)
}

// NextRaw waits for the next message and returns it as received (JSON or brotli). The bytes
// belong to the caller.
func (c *Client) NextRaw(ctx context.Context) ([]byte, error) {
	_, msg, err := c.ws.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read flashblocks feed: %w", err)
	}
	return msg, nil
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.ws.Close(websocket.StatusNormalClosure, "")
}

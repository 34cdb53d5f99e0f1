package flashblocks_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
)

// syncBuffer is a log destination tests can read while the publisher writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startPublisher(t *testing.T, cfg flashblocks.PublisherConfig) (*flashblocks.Publisher, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := flashblocks.NewPublisher(cfg)
	go pub.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		pub.Shutdown(ctx)
	})
	return pub, "ws://" + ln.Addr().String()
}

func payload(block uint64, index uint64, data []byte) *flashblocks.Payload {
	p := &flashblocks.Payload{
		PayloadID: flashblocks.PayloadID{byte(block)},
		Index:     index,
		Diff:      flashblocks.Diff{GasUsed: hexutil.Uint64(index), BlockHash: common.Hash{byte(block), byte(index)}},
		Metadata:  flashblocks.Metadata{BlockNumber: block},
	}
	if data != nil {
		p.Diff.Transactions = []hexutil.Bytes{data}
	}
	if index == 0 {
		p.Base = &flashblocks.Base{BlockNumber: hexutil.Uint64(block), BaseFeePerGas: (*hexutil.Big)(common.Big1)}
	}
	return p
}

// waitConsumers waits until the publisher counts n consumers (a connection is registered by
// the server goroutine after the client's dial returns).
func waitConsumers(t *testing.T, pub *flashblocks.Publisher, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); pub.Consumers() != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d consumers, want %d", pub.Consumers(), n)
		}
	}
}

// TestPublisherEncodings publishes a block's payloads to a JSON feed and a brotli feed; each
// consumer decodes them in order, and a consumer joining mid-block gets the block from index 0.
func TestPublisherEncodings(t *testing.T) {
	t.Parallel()
	for _, compressed := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "brotli"}[compressed], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pub, url := startPublisher(t, flashblocks.PublisherConfig{Brotli: compressed})
			early, err := flashblocks.Dial(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer early.Close()
			waitConsumers(t, pub, 1)
			for i := range uint64(3) {
				if err := pub.Publish(payload(5, i, []byte{byte(i)})); err != nil {
					t.Fatal(err)
				}
			}
			late, err := flashblocks.Dial(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer late.Close()
			waitConsumers(t, pub, 2)
			pub.Publish(payload(5, 3, nil))
			pub.Publish(payload(6, 0, nil)) // the next block
			for name, c := range map[string]*flashblocks.Client{"early": early, "late": late} {
				for i, want := range []struct{ block, index uint64 }{{5, 0}, {5, 1}, {5, 2}, {5, 3}, {6, 0}} {
					raw, err := c.NextRaw(ctx)
					if err != nil {
						t.Fatalf("%s, message %d: %v", name, i, err)
					}
					if isText := raw[0] == '{'; isText == compressed {
						t.Fatalf("%s: message %d is JSON text %v, want %v", name, i, isText, !compressed)
					}
					p, err := flashblocks.Decode(raw)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if p.Metadata.BlockNumber != want.block || p.Index != want.index {
						t.Fatalf("%s: message %d is block %d index %d, want %d/%d", name, i, p.Metadata.BlockNumber, p.Index, want.block, want.index)
					}
				}
			}
		})
	}
}

// TestPublisherSlowConsumer connects a consumer that never reads next to one that reads
// everything: the slow one is disconnected with a logged reason, the fast one receives every
// payload, and Publish never waits.
func TestPublisherSlowConsumer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	logs := new(syncBuffer)
	pub, url := startPublisher(t, flashblocks.PublisherConfig{QueueSize: 4, WriteTimeout: time.Minute, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	slow, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.CloseNow()
	waitConsumers(t, pub, 1)
	fast, err := flashblocks.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	waitConsumers(t, pub, 2)

	// Big payloads fill the slow consumer's socket buffers, then its queue. The fast consumer
	// reads each payload before the next is published, so its queue never holds more than one.
	data := make([]byte, 256<<10)
	const most = 400 // 200 MiB of hex: far more than any socket buffers
	published := 0
	for ; published < most && pub.Consumers() == 2; published++ {
		if err := pub.Publish(payload(1, uint64(published), data)); err != nil {
			t.Fatal(err)
		}
		p, err := fast.Next(ctx)
		if err != nil {
			t.Fatalf("fast consumer, payload %d: %v", published, err)
		}
		if p.Index != uint64(published) {
			t.Fatalf("fast consumer got index %d, want %d", p.Index, published)
		}
	}
	if pub.Consumers() != 1 {
		t.Fatalf("slow consumer still connected after %d payloads", published)
	}
	if !strings.Contains(logs.String(), "reason=\"slow consumer\"") {
		t.Fatalf("no slow-consumer reason logged:\n%s", logs.String())
	}
	// The fast consumer keeps going.
	pub.Publish(payload(1, uint64(published), nil))
	if p, err := fast.Next(ctx); err != nil || p.Index != uint64(published) {
		t.Fatalf("after the disconnect: %v, %v", p, err)
	}
}

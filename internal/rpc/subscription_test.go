package rpc

import (
	"encoding/json"
	"regexp"
	"testing"
)

func TestHexQuantity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []byte
		want string
	}{
		{[]byte{0, 0}, "0x0"},
		{[]byte{0, 1}, "0x1"},
		{[]byte{0x0a, 0xbc}, "0xabc"},
		{[]byte{0xff, 0x00}, "0xff00"},
	}
	for _, tt := range tests {
		if got := hexQuantity(tt.in); got != tt.want {
			t.Errorf("hexQuantity(%x) = %s, want %s", tt.in, got, tt.want)
		}
	}
	quantity := regexp.MustCompile(`^0x(0|[1-9a-f][0-9a-f]{0,31})$`)
	seen := make(map[string]bool)
	for range 100 {
		id := randomID()
		if !quantity.MatchString(id) || seen[id] {
			t.Fatalf("bad or repeated ID %q", id)
		}
		seen[id] = true
	}
}

// BenchmarkNotify measures Notify of a pre-encoded result on an active subscription:
// encoding the notification and queueing it for the writer.
func BenchmarkNotify(b *testing.B) {
	srv := NewServer(Config{}, Service{})
	c := &wsConn{srv: srv, quit: make(chan struct{})}
	c.q.wake = make(chan struct{}, 1)
	sub := &Subscription{id: randomID(), conn: c, done: make(chan struct{}), active: true}
	header := json.RawMessage(blockJSON)
	b.ReportAllocs()
	for b.Loop() {
		if !sub.Notify(header) {
			b.Fatal("Notify failed")
		}
		// What the writer does after writing.
		b := c.q.msgs[0]
		c.q.msgs = c.q.msgs[:0]
		c.written(int64(len(b.b)))
		srv.putBuf(b)
	}
}

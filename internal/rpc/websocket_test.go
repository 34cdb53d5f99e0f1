package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsCall sends msg and returns the next message received.
func wsCall(t testing.TB, c *websocket.Conn, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatalf("write: %v", err)
	}
	return wsRead(t, c)
}

// wsRead returns the next message received.
func wsRead(t testing.TB, c *websocket.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return string(b)
}

// TestWebSocketSlowConsumer checks that a client that stops reading is disconnected when
// its backlog reaches the ceiling (four times WSSendQueueBytes), however quickly, without
// ever blocking Notify or other connections, and that the disconnect is counted.
func TestWebSocketSlowConsumer(t *testing.T) {
	t.Parallel()
	rec := new(obsRecorder)
	cfg := testConfig()
	cfg.Observer = rec
	cfg.WSSendQueueBytes = 1 << 20
	cfg.WSSlowConsumerTimeout = time.Hour // only the ceiling can cut it here
	ts := startServer(t, cfg)
	slow, other := dialWS(t, ts.url), dialWS(t, ts.url)
	if got, want := wsCall(t, slow, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["manual"]}`), `{"jsonrpc":"2.0","id":1,"result":"0x1"}`; got != want {
		t.Fatalf("subscribe: got %s, want %s", got, want)
	}
	sub := ts.svc.sub("0x1")

	// The client reads nothing from here on. Notify until the backlog passes the ceiling;
	// socket buffers hold a few MB, so that takes at most a few hundred 64 KB notifications.
	payload := json.RawMessage(`"` + strings.Repeat("x", 64<<10) + `"`)
	queued := make(chan int, 1)
	go func() {
		n := 0
		for n < 100_000 && sub.Notify(payload) {
			n++
		}
		queued <- n
	}()
	select {
	case n := <-queued:
		if n == 100_000 {
			t.Fatal("Notify never reported a slow consumer")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Notify blocked")
	}
	select {
	case <-sub.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("subscription not ended after slow-consumer disconnect")
	}
	if sub.Notify(1) {
		t.Error("Notify after disconnect reported true")
	}
	if !strings.Contains(ts.logs.String(), "reason=\"slow consumer\"") {
		t.Errorf("log does not name the slow consumer:\n%s", ts.logs.String())
	}
	if _, _, _, slowN := rec.snapshot(); slowN != 1 {
		t.Errorf("slow consumers counted: %d, want 1", slowN)
	}
	// Other connections are served as before.
	if got, want := wsCall(t, other, `{"jsonrpc":"2.0","id":2,"method":"test_nil"}`), `{"jsonrpc":"2.0","id":2,"result":null}`; got != want {
		t.Errorf("other connection: got %s, want %s", got, want)
	}
	// The slow client finds its connection closed after what was already sent.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		if _, _, err := slow.Read(ctx); err != nil {
			if ctx.Err() != nil {
				t.Fatal("slow connection still open")
			}
			break
		}
	}
}

// backlog returns the bytes a subscription's connection has queued and not yet written.
func backlog(sub *Subscription) int64 {
	sub.conn.q.mu.Lock()
	defer sub.conn.q.mu.Unlock()
	return sub.conn.q.bytes
}

// TestWebSocketSlowConsumerTimeout: a client that stops reading is disconnected once its
// backlog has stayed over WSSendQueueBytes for WSSlowConsumerTimeout, with no further
// notification to notice it, and the disconnect is counted.
func TestWebSocketSlowConsumerTimeout(t *testing.T) {
	t.Parallel()
	rec := new(obsRecorder)
	cfg := testConfig()
	cfg.Observer = rec
	cfg.WSSendQueueBytes = 1 << 20
	cfg.WSSlowConsumerTimeout = 200 * time.Millisecond
	ts := startServer(t, cfg)
	slow := dialWS(t, ts.url)
	if got, want := wsCall(t, slow, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["manual"]}`), `{"jsonrpc":"2.0","id":1,"result":"0x1"}`; got != want {
		t.Fatalf("subscribe: got %s, want %s", got, want)
	}
	sub := ts.svc.sub("0x1")
	// 64 KB each: socket buffers take a few MB, then the backlog passes 1 MiB. Keep it at
	// 2 MiB, under the ceiling of 4 MiB, notifying only when the writer has brought it
	// below; once the socket is full it stays there with no notification.
	payload := json.RawMessage(`"` + strings.Repeat("x", 64<<10) + `"`)
	deadline := time.After(20 * time.Second)
	for ended := false; !ended; {
		select {
		case <-sub.Done():
			ended = true
		case <-deadline:
			t.Fatalf("subscription not ended; backlog %d bytes", backlog(sub))
		default:
			if backlog(sub) >= 2<<20 {
				time.Sleep(5 * time.Millisecond)
			} else if !sub.Notify(payload) {
				<-sub.Done() // refused: the connection has stopped (the log says why)
			}
		}
	}
	if !strings.Contains(ts.logs.String(), "bytes unread for over 200ms") {
		t.Errorf("log does not name the time over the budget:\n%s", ts.logs.String())
	}
	if !strings.Contains(ts.logs.String(), "reason=\"slow consumer\"") {
		t.Errorf("log does not name the slow consumer:\n%s", ts.logs.String())
	}
	if _, _, _, slowN := rec.snapshot(); slowN != 1 {
		t.Errorf("slow consumers counted: %d, want 1", slowN)
	}
}

// TestWebSocketBurst: a client that reads gets a burst of 10,000 notifications queued at
// once, three times the byte budget (under the ceiling of four), whole and in order: many
// notifications at once are not a slow consumer.
func TestWebSocketBurst(t *testing.T) {
	t.Parallel()
	rec := new(obsRecorder)
	cfg := testConfig()
	cfg.Observer = rec
	cfg.WSSendQueueBytes = 2 << 20
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	if got, want := wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["manual"]}`), `{"jsonrpc":"2.0","id":1,"result":"0x1"}`; got != want {
		t.Fatalf("subscribe: got %s, want %s", got, want)
	}
	sub := ts.svc.sub("0x1")
	// About 600 bytes each, like a log: 6 MB in all.
	const n = 10_000
	filler := strings.Repeat("ab", 260)
	for i := range n {
		if !sub.Notify(json.RawMessage(fmt.Sprintf(`{"i":%d,"data":"%s"}`, i, filler))) {
			t.Fatalf("Notify %d refused", i)
		}
	}
	for i := range n {
		want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"0x1","result":{"i":%d,"data":"%s"}}}`, i, filler)
		if got := wsRead(t, c); got != want {
			t.Fatalf("notification %d: got %.100s", i, got)
		}
	}
	if got, want := wsCall(t, c, `{"jsonrpc":"2.0","id":2,"method":"test_nil"}`), `{"jsonrpc":"2.0","id":2,"result":null}`; got != want {
		t.Errorf("after the burst: got %s, want %s", got, want)
	}
	if _, _, _, slowN := rec.snapshot(); slowN != 0 {
		t.Errorf("slow consumers counted: %d, want 0", slowN)
	}
}

// TestWebSocketNotifyRace checks that notifications sent from another goroutine while
// eth_subscribe is being answered never overtake the response, and keep their order.
func TestWebSocketNotifyRace(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	c := dialWS(t, ts.url)
	const n = 200
	for round := range 5 {
		id := fmt.Sprintf("0x%x", round+1)
		got := wsCall(t, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_subscribe","params":["flood",%d]}`, round, n))
		if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, round, id); got != want {
			t.Fatalf("round %d: first message %s, want %s", round, got, want)
		}
		for i := 1; i <= n; i++ {
			want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"%s","result":%d}}`, id, i)
			if got := wsRead(t, c); got != want {
				t.Fatalf("round %d: got %s, want %s", round, got, want)
			}
		}
	}
}

// TestWebSocketShutdown checks that Shutdown closes WebSocket connections (which
// http.Server.Shutdown does not) and ends their subscriptions.
func TestWebSocketShutdown(t *testing.T) {
	t.Parallel()
	ts := startServer(t, testConfig())
	c := dialWS(t, ts.url)
	wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["manual"]}`)
	sub := ts.svc.sub("0x1")

	// The client must read to take part in the close handshake.
	readErr := make(chan error, 1)
	go func() {
		_, _, err := c.Read(context.Background())
		readErr <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-sub.Done():
	default:
		t.Error("subscription still open after Shutdown returned")
	}
	if err := <-readErr; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("client read error %v, want close status 1001", err)
	}
	if _, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http"), nil); err == nil {
		t.Error("dial after Shutdown succeeded")
	}
}

// TestWebSocketShutdownMounted checks that Shutdown also closes connections accepted
// through ServeHTTP on an http.Server the Server does not run.
func TestWebSocketShutdownMounted(t *testing.T) {
	t.Parallel()
	svc := newTestService()
	defer svc.unblock()
	srv := newServer(testConfig(), svc.service(), sequentialIDs())
	hs := http.Server{Handler: srv}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	defer hs.Close()
	c := dialWS(t, "http://"+ln.Addr().String()+"/")
	wsCall(t, c, `{"jsonrpc":"2.0","id":1,"method":"test_nil"}`)
	go c.Read(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	srv.mu.Lock()
	open := len(srv.conns)
	srv.mu.Unlock()
	if open != 0 {
		t.Errorf("%d connections still open", open)
	}
}

// TestWebSocketConcurrentCalls checks that a slow call does not hold up later calls on
// the same connection: they are answered first.
func TestWebSocketConcurrentCalls(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.RequestTimeout = -1
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"test_stuck"}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := wsCall(t, c, `{"jsonrpc":"2.0","id":2,"method":"test_nil"}`), `{"jsonrpc":"2.0","id":2,"result":null}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	ts.svc.unblock()
	if got, want := wsRead(t, c), `{"jsonrpc":"2.0","id":1,"result":"released"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestWebSocketInFlight checks that WSInFlight bounds the calls running per connection:
// with a limit of one, calls are answered in order.
func TestWebSocketInFlight(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.RequestTimeout = -1
	cfg.WSInFlight = 1
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, msg := range []string{`{"jsonrpc":"2.0","id":1,"method":"test_stuck"}`, `{"jsonrpc":"2.0","id":2,"method":"test_nil"}`} {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	ts.svc.unblock()
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":"released"}`, `{"jsonrpc":"2.0","id":2,"result":null}`} {
		if got := wsRead(t, c); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestWebSocketReadLimit checks that a message over WSReadLimit closes the connection with
// status 1009 and a reason that names the limit.
func TestWebSocketReadLimit(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.WSReadLimit = 1024
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	big := `{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["` + strings.Repeat("x", 2000) + `"]}`
	if err := c.Write(ctx, websocket.MessageText, []byte(big)); err != nil {
		t.Fatal(err)
	}
	_, _, err := c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusMessageTooBig || ce.Reason != "message too big: over the read limit of 1024 bytes" {
		t.Errorf("read error %v, want close status 1009 naming the limit", err)
	}
}

// TestWebSocketHeldBytes pipelines large messages whose calls do not return: the calls
// that run may hold at most WSReadLimit bytes of messages (one message always fits), so
// the reader stops after the first and the rest wait in TCP buffers, not in memory.
func TestWebSocketHeldBytes(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.WSReadLimit = 100 << 10
	cfg.RequestTimeout = -1
	ts := startServer(t, cfg)
	c := dialWS(t, ts.url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const n = 4
	for id := range n {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"test_stuck","params":["%s"]}`, id, strings.Repeat("x", 60<<10))
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	for ts.svc.stuck.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for a second call to start, if it could
	if got := ts.svc.stuck.Load(); got != 1 {
		t.Errorf("%d calls of 60 KiB messages run under a 100 KiB budget, want 1", got)
	}
	ts.svc.unblock()
	for range n {
		if got := wsRead(t, c); !strings.Contains(got, `"result":"released"`) {
			t.Errorf("got %s", got)
		}
	}
}

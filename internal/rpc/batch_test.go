package rpc

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// ones returns a batch "[1,1,…,1]" of n bytes.
func ones(n int) []byte {
	b := "[" + strings.Repeat("1,", (n-3)/2) + "1]"
	return []byte(b + strings.Repeat(" ", n-len(b)))
}

// allocated returns the bytes the process allocated while f ran. The tests that use it are
// not parallel, so the figure is mostly f's.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBatchTooLargeMemory sends the largest batch the body limit lets through, 5 MiB of
// [1,1,…] (2.6 million items, 2,621 times the item limit), over HTTP and over WebSocket
// (32 MiB there, the read limit), and checks that refusing it allocates little more than
// the body itself. Before parsing stopped at the item limit every item became an 80-byte
// request first: 1.2 GB for the HTTP body, 7.3 GB for the WebSocket message.
func TestBatchTooLargeMemory(t *testing.T) {
	srv := newServer(Config{}, newTestService().service(), sequentialIDs())
	want := `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch too large","data":{"limit":1000}}}]`

	t.Run("http", func(t *testing.T) {
		body := ones(DefaultBodyLimit - 1)
		rec := httptest.NewRecorder()
		n := allocated(func() {
			req := httptest.NewRequest(http.MethodPost, "http://localhost/", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			srv.ServeHTTP(rec, req)
		})
		if got := rec.Body.String(); got != want {
			t.Fatalf("got %.200s, want %s", got, want)
		}
		t.Logf("refusing a %d-byte batch allocated %d bytes", len(body), n)
		// The body is read into one buffer of its size; the rest is small change.
		if limit := uint64(DefaultBodyLimit + 4<<20); n > limit {
			t.Errorf("refusing a %d-byte batch allocated %d bytes, want at most %d", len(body), n, limit)
		}
	})

	t.Run("websocket", func(t *testing.T) {
		ts := startServer(t, Config{})
		c := dialWS(t, ts.url)
		msg := ones(DefaultWSReadLimit) // at the limit: a power of two, as large as allowed
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var got []byte
		n := allocated(func() {
			if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
				t.Fatal(err)
			}
			var err error
			if _, got, err = c.Read(ctx); err != nil {
				t.Fatal(err)
			}
		})
		if string(got) != want {
			t.Fatalf("got %.200s, want %s", got, want)
		}
		t.Logf("refusing a %d-byte batch allocated %d bytes", len(msg), n)
		// The message is read into a buffer that doubles up to its size (2x in all),
		// and is not copied once more to find its end.
		if limit := uint64(5 * DefaultWSReadLimit / 2); n > limit {
			t.Errorf("refusing a %d-byte batch allocated %d bytes, want at most %d", len(msg), n, limit)
		}
	})
}

// TestManyParamsMemory sends one call whose params are 5 MiB of [1,1,…]: the method sees
// maxParams+1 of them and refuses them as too many, without the server splitting the
// other 2.6 million (which took 240 MB).
func TestManyParamsMemory(t *testing.T) {
	srv := newServer(Config{}, newTestService().service(), sequentialIDs())
	body := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"test_len","params":`), ones(DefaultBodyLimit-100)...)
	body = append(body, '}')
	rec := httptest.NewRecorder()
	n := allocated(func() {
		req := httptest.NewRequest(http.MethodPost, "http://localhost/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		srv.ServeHTTP(rec, req)
	})
	if got, want := rec.Body.String(), `{"jsonrpc":"2.0","id":1,"result":65}`; got != want {
		t.Fatalf("got %.200s, want %s", got, want)
	}
	if limit := uint64(DefaultBodyLimit + 4<<20); n > limit {
		t.Errorf("a call with %d-byte params allocated %d bytes, want at most %d", len(body), n, limit)
	}
}

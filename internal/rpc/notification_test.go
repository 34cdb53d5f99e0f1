package rpc

import "testing"

// TestNotificationBuffersStaySmall checks that a notification never gets a buffer that a large
// response grew, and that a notification buffer that grew large is not kept: the buffers that
// many queued notifications hold stay small whatever the responses before them were.
func TestNotificationBuffersStaySmall(t *testing.T) {
	srv := NewServer(Config{}, Service{})
	for range 200 {
		resp := srv.getBuf()
		resp.b = append(resp.b, make([]byte, 256<<10)...) // an eth_getLogs answer
		srv.putBuf(resp)

		note := srv.getNoteBuf()
		if c := cap(note.b); c > maxPooledNote {
			t.Fatalf("a notification got a buffer of %d bytes, over %d", c, maxPooledNote)
		}
		note.b = append(note.b, make([]byte, 2*maxPooledNote)...) // a large notification
		srv.putBuf(note)
	}
}

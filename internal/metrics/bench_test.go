package metrics

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// BenchmarkServerLoopback is the metrics A/B of the request path in one process: a
// JSON-RPC server on loopback answering a pre-encoded result (as the hot reads are), with
// metrics off and on, one keep-alive connection. Run with -count N: the two sub-benchmarks
// alternate, so load from others hits both alike.
func BenchmarkServerLoopback(b *testing.B) {
	result := json.RawMessage(`{"number":"0x1b4","hash":"0xdc0818cf78f21a8e70579cb46a43643f78291264dda342ae31049421c82d21ae","gasUsed":"0x0"}`)
	svc := rpc.Service{Methods: map[string]rpc.Method{
		"eth_getBlockByNumber": func(ctx context.Context, p rpc.Params) (any, error) { return result, nil },
	}}
	body := `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}`
	req := []byte("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		cfg := rpc.Config{}
		if on {
			name = "metrics=on"
			cfg.Observer = New(prometheus.NewRegistry()).Endpoint("standard")
		}
		b.Run(name, func(b *testing.B) {
			srv := rpc.NewServer(cfg, svc)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Shutdown(context.Background())
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			defer nc.Close()
			br := bufio.NewReader(nc)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := nc.Write(req); err != nil {
					b.Fatal(err)
				}
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					b.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(got), `"result":{"number":"0x1b4"`) {
					b.Fatalf("answer %s", got)
				}
			}
		})
	}
}

package node

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	gethrpc "github.com/ethereum/go-ethereum/rpc"

	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// testConfig returns a dev node's configuration on loopback ports 0 in manual mode (sealed
// and pre-confirmed only on request), without a feed.
func testConfig(dataDir string) DevConfig {
	return DevConfig{
		Server: Server{
			DataDir: dataDir, HTTPAddr: "127.0.0.1", LogsIndex: true,
			TxPool: txpool.DefaultConfig, EVMConcurrency: 2, EVMQueue: 16, FiltersMax: 16,
		},
		Feed:      Feed{Addr: "127.0.0.1", Port: -1},
		ChainType: networks.OPStack,
		ChainID:   1337,
		Accounts:  2,
	}
}

// startTestDev starts a dev node and serves its endpoints until the test ends.
func startTestDev(t *testing.T, cfg DevConfig) *Dev {
	t.Helper()
	n, err := StartDev(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.Endpoints().Serve()
	t.Cleanup(func() { stopDev(t, n) })
	return n
}

// stopDev shuts n's endpoints down and closes it.
func stopDev(t *testing.T, n *Dev) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := errors.Join(n.Endpoints().Shutdown(ctx), n.Close()); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// dial returns a client of the endpoint.
func dial(t *testing.T, ep *Endpoint) *gethrpc.Client {
	t.Helper()
	c, err := gethrpc.Dial(ep.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// blockNumber returns the endpoint's eth_blockNumber.
func blockNumber(t *testing.T, c *gethrpc.Client) uint64 {
	t.Helper()
	var n string
	if err := c.Call(&n, "eth_blockNumber"); err != nil {
		t.Fatalf("eth_blockNumber: %v", err)
	}
	v, err := strconv.ParseUint(n, 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// seal seals a block through the endpoint (dev_seal).
func seal(t *testing.T, c *gethrpc.Client) {
	t.Helper()
	var res map[string]any
	if err := c.Call(&res, "dev_seal"); err != nil {
		t.Fatalf("dev_seal: %v", err)
	}
}

// freePort returns a loopback port nothing listens on (a moment ago).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// takePort listens on a loopback port until the test ends and returns it.
func takePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

// wantFree fails unless each port can be listened on: what a failed start opened is closed.
func wantFree(t *testing.T, ports ...int) {
	t.Helper()
	for _, p := range ports {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Errorf("port %d is still taken after the failed start: %v", p, err)
			continue
		}
		ln.Close()
	}
}

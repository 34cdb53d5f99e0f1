package node

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// portsConfig gives cfg fixed loopback ports: a metrics listener, the standard endpoint and
// the feed on free ports, the pre-confirmed endpoint on preconf. It returns the free ones.
func portsConfig(t *testing.T, cfg *Server, feed *Feed, preconf int) []int {
	t.Helper()
	metrics, std, fd := freePort(t), freePort(t), freePort(t)
	cfg.Metrics = net.JoinHostPort("127.0.0.1", strconv.Itoa(metrics))
	cfg.HTTPPort, cfg.PreconfPort = std, preconf
	feed.Addr, feed.Port = "127.0.0.1", fd
	return []int{metrics, std, fd}
}

// followConfig returns the configuration of a replica of up in dataDir.
func followConfig(up *Dev, dataDir string) FollowConfig {
	dev := testConfig(dataDir)
	return FollowConfig{
		Server: dev.Server, Feed: Feed{Port: -1},
		Upstream: up.Endpoints()[0].URL(), UpstreamWS: "off", Poll: 20 * time.Millisecond, MaxLag: 2,
		Genesis: filepath.Join(up.Chain().DataDir(), GenesisFileName),
	}
}

// TestStartPortTaken starts each mode with its pre-confirmed endpoint's port taken: the start
// fails with an error naming the port, the sockets it had opened (metrics, the standard
// endpoint, the feed) are closed, and the data directory opens again.
func TestStartPortTaken(t *testing.T) {
	up := startTestDev(t, testConfig(t.TempDir()))
	stored := t.TempDir()
	n, err := StartDev(testConfig(stored))
	if err != nil {
		t.Fatal(err)
	}
	stopDev(t, n)

	starts := map[string]func(t *testing.T, dataDir string, taken int) ([]int, func() error, error){
		"dev": func(t *testing.T, dataDir string, taken int) ([]int, func() error, error) {
			cfg := testConfig(dataDir)
			free := portsConfig(t, &cfg.Server, &cfg.Feed, taken)
			n, err := StartDev(cfg)
			if err != nil {
				return free, nil, err
			}
			return free, n.Close, nil
		},
		"serve": func(t *testing.T, _ string, taken int) ([]int, func() error, error) {
			cfg := testConfig(stored).Server
			free := portsConfig(t, &cfg, new(Feed), taken)
			n, err := StartServe(cfg)
			if err != nil {
				return free[:2], nil, err
			}
			return free[:2], n.Close, nil
		},
		"follow": func(t *testing.T, dataDir string, taken int) ([]int, func() error, error) {
			cfg := followConfig(up, dataDir)
			free := portsConfig(t, &cfg.Server, &cfg.Feed, taken)
			n, err := StartFollow(cfg)
			if err != nil {
				return free, nil, err
			}
			return free, n.Close, nil
		},
	}
	for _, mode := range []string{"dev", "serve", "follow"} {
		t.Run(mode, func(t *testing.T) {
			dataDir := t.TempDir()
			taken := takePort(t)
			free, closeNode, err := starts[mode](t, dataDir, taken)
			if err == nil {
				closeNode()
				t.Fatalf("started with port %d taken", taken)
			}
			if !strings.Contains(err.Error(), strconv.Itoa(taken)) {
				t.Fatalf("start error %q does not name port %d", err, taken)
			}
			wantFree(t, free...)
			// Nothing holds the data directory: the node starts on it.
			free, closeNode, err = starts[mode](t, dataDir, freePort(t))
			if err != nil {
				t.Fatalf("start after the failed one: %v", err)
			}
			if err := closeNode(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStartUpstreamUnreachable starts a replica and a fork of an upstream nothing listens
// on: the start fails with an error naming it and leaves nothing running.
func TestStartUpstreamUnreachable(t *testing.T) {
	up := startTestDev(t, testConfig(t.TempDir()))
	dead := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	t.Run("follow", func(t *testing.T) {
		dataDir := t.TempDir()
		cfg := followConfig(up, dataDir)
		cfg.Upstream = dead
		free := portsConfig(t, &cfg.Server, &cfg.Feed, freePort(t))
		n, err := StartFollow(cfg)
		if err == nil {
			n.Close()
			t.Fatal("a replica of an unreachable upstream started")
		}
		if !strings.Contains(err.Error(), dead) {
			t.Fatalf("start error %q does not name %s", err, dead)
		}
		wantFree(t, append(free, cfg.PreconfPort)...)
		cfg.Upstream = up.Endpoints()[0].URL()
		if n, err = StartFollow(cfg); err != nil {
			t.Fatalf("start after the failed one: %v", err)
		}
		n.Close()
	})
	t.Run("fork", func(t *testing.T) {
		cfg := testConfig(t.TempDir())
		cfg.Fork = Fork{URL: dead}
		free := portsConfig(t, &cfg.Server, &cfg.Feed, freePort(t))
		n, err := StartDev(cfg)
		if err == nil {
			n.Close()
			t.Fatal("a fork of an unreachable upstream started")
		}
		if !strings.Contains(err.Error(), dead) {
			t.Fatalf("start error %q does not name %s", err, dead)
		}
		wantFree(t, append(free, cfg.PreconfPort)...)
	})
}

package node

import (
	"strings"
	"testing"
	"time"

	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/networks"
)

// TestResolveChain: the chain type's checks, and the settings a network gives a dev chain
// before anything starts (its kind, its cadence and feed format where not given; Base's
// networks keep the cadence given, which Denim replaces once the chain is open).
func TestResolveChain(t *testing.T) {
	t.Parallel()
	const given = 3 * time.Second
	for _, tc := range []struct {
		name    string
		cfg     func(*DevConfig)
		wantErr []string
		kind    networks.Kind
		cadence cadence
		format  flashblocks.Format
	}{
		{name: "default", cfg: func(*DevConfig) {}, kind: networks.OPStack, cadence: cadence{given, given}},
		{name: "l1", cfg: func(c *DevConfig) { c.ChainType = networks.Ethereum }, kind: networks.Ethereum, cadence: cadence{given, given}},
		{name: "unknown type", cfg: func(c *DevConfig) { c.ChainType = "rollup" }, wantErr: []string{`--chain-type "rollup"`, `"op"`, `"l1"`}},
		{name: "empty type given", cfg: func(c *DevConfig) { c.ChainType, c.Explicit.ChainType = "", true }, wantErr: []string{`--chain-type ""`, `"op"`, `"l1"`}},
		{name: "l1 with L1 fee", cfg: func(c *DevConfig) { c.ChainType, c.Explicit.L1BaseFee = networks.Ethereum, true }, wantErr: []string{"--l1.base-fee", "OP Stack chains only"}},
		{name: "mainnet with L1 blob fee", cfg: func(c *DevConfig) { c.Network, c.Explicit.L1BlobBaseFee = "mainnet", true }, wantErr: []string{"--l1.blob-base-fee", "OP Stack chains only"}},
		{name: "unknown network", cfg: func(c *DevConfig) { c.Network = "no-such-chain" }, wantErr: []string{"no such network", "flashrpc networks"}},
		{name: "contradicted kind", cfg: func(c *DevConfig) {
			c.Network, c.ChainType, c.Explicit.ChainType = "op-mainnet", networks.Ethereum, true
		}, wantErr: []string{"--chain-type l1 contradicts --network op-mainnet", "an OP Stack chain"}},
		{name: "op-mainnet", cfg: func(c *DevConfig) { c.Network = "op-mainnet" }, kind: networks.OPStack, cadence: cadence{2 * time.Second, 250 * time.Millisecond}, format: flashblocks.FormatSubblocks},
		{name: "op-mainnet given", cfg: func(c *DevConfig) {
			c.Network = "op-mainnet"
			c.Explicit.BlockTime, c.Explicit.PreconfInterval, c.Explicit.FeedFormat = true, true, true
		}, kind: networks.OPStack, cadence: cadence{given, given}},
		{name: "unichain-mainnet", cfg: func(c *DevConfig) { c.Network = "unichain-mainnet" }, kind: networks.OPStack, cadence: cadence{time.Second, 200 * time.Millisecond}},
		{name: "base-mainnet", cfg: func(c *DevConfig) { c.Network = "base-mainnet" }, kind: networks.OPStack, cadence: cadence{given, given}},
		{name: "mainnet", cfg: func(c *DevConfig) { c.Network = "mainnet" }, kind: networks.Ethereum, cadence: cadence{12 * time.Second, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := DevConfig{BlockTime: given, PreconfInterval: given}
			tc.cfg(&cfg)
			err := resolveChain(&cfg)
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("accepted: %+v, want an error naming %q", cfg, tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := cadence{cfg.BlockTime, cfg.PreconfInterval}
			if cfg.ChainType != tc.kind || got != tc.cadence || cfg.Feed.Format != tc.format {
				t.Fatalf("kind %s, cadence %+v, feed %s; want %s, %+v, %s", cfg.ChainType, got, cfg.Feed.Format, tc.kind, tc.cadence, tc.format)
			}
		})
	}
}

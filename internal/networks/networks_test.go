package networks

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

func TestForkRules(t *testing.T) {
	t.Parallel()
	on := func(name string, at *uint64, time uint64) bool { return at != nil && *at <= time }
	tests := []struct {
		name     string
		upstream uint64
		chainID  uint64
		kind     Kind
		number   uint64
		time     uint64
		wantKind Kind
		wantErr  string
		check    func(t *testing.T, cfg *params.ChainConfig)
	}{
		{name: "base mainnet before jovian", upstream: 8453, chainID: 8453, number: 30_000_000, time: 1750000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if !on("isthmus", cfg.IsthmusTime, 1750000000) || cfg.JovianTime != nil {
					t.Errorf("isthmus %v jovian %v: want isthmus on and jovian off", cfg.IsthmusTime, cfg.JovianTime)
				}
				if !cfg.IsOptimism() || cfg.PragueTime == nil || *cfg.PragueTime != *cfg.IsthmusTime {
					t.Errorf("want an OP config with Prague = Isthmus")
				}
			}},
		{name: "base mainnet after jovian", upstream: 8453, chainID: 8453, number: 40_000_000, time: 1770000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.JovianTime == nil || *cfg.JovianTime != 1764691201 {
					t.Errorf("jovian %v, want 1764691201", cfg.JovianTime)
				}
			}},
		{name: "base sepolia", upstream: 84532, chainID: 84532, number: 1, time: 1770000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.JovianTime == nil || *cfg.JovianTime != 1763568001 {
					t.Errorf("jovian %v, want 1763568001", cfg.JovianTime)
				}
			}},
		{name: "op mainnet from the registry", upstream: 10, chainID: 10, number: 140_000_000, time: 1770000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.IsthmusTime == nil {
					t.Errorf("isthmus off, want on")
				}
			}},
		{name: "base mainnet after azul", upstream: 8453, chainID: 8453, number: 45_000_000, time: 1780000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.OsakaTime == nil || *cfg.OsakaTime != 1779991200 || cfg.KarstTime != nil {
					t.Errorf("osaka %v karst %v: want Azul's osaka 1779991200 and no karst", cfg.OsakaTime, cfg.KarstTime)
				}
			}},
		{name: "base mainnet before azul", upstream: 8453, chainID: 8453, number: 44_000_000, time: 1779991199, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.OsakaTime != nil {
					t.Errorf("osaka %v before azul, want off", *cfg.OsakaTime)
				}
			}},
		{name: "op mainnet after karst", upstream: 10, chainID: 10, number: 150_000_000, time: 1783526401, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.KarstTime == nil || cfg.OsakaTime == nil || *cfg.OsakaTime != *cfg.KarstTime {
					t.Errorf("karst %v osaka %v: want both at karst_time", cfg.KarstTime, cfg.OsakaTime)
				}
			}},
		{name: "op mainnet before karst", upstream: 10, chainID: 10, number: 150_000_000, time: 1783526400, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.KarstTime != nil || cfg.OsakaTime != nil {
					t.Errorf("karst %v osaka %v: want both off", cfg.KarstTime, cfg.OsakaTime)
				}
			}},
		{name: "ethereum mainnet before osaka", upstream: 1, chainID: 1, number: 22_000_000, time: 1750000000, wantKind: Ethereum,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if !on("prague", cfg.PragueTime, 1750000000) || cfg.OsakaTime != nil || cfg.BPO1Time != nil {
					t.Errorf("prague %v osaka %v bpo1 %v: want prague on, osaka and bpo1 off", cfg.PragueTime, cfg.OsakaTime, cfg.BPO1Time)
				}
				if cfg.LondonBlock == nil {
					t.Errorf("london off")
				}
			}},
		{name: "ethereum mainnet, old block", upstream: 1, chainID: 1, number: 12_000_000, time: 1616000000, wantKind: Ethereum,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.LondonBlock != nil || cfg.BerlinBlock != nil || cfg.IstanbulBlock == nil {
					t.Errorf("london %v berlin %v istanbul %v: want only istanbul", cfg.LondonBlock, cfg.BerlinBlock, cfg.IstanbulBlock)
				}
			}},
		{name: "unknown chain: current ethereum", upstream: 31337, chainID: 31337, number: 300, time: 1770000000, wantKind: Ethereum,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.BPO2Time == nil || *cfg.BPO2Time != 0 {
					t.Errorf("bpo2 %v, want 0", cfg.BPO2Time)
				}
			}},
		{name: "another local chain id", upstream: 8453, chainID: 1337, number: 1, time: 1770000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if cfg.ChainID.Uint64() != 1337 {
					t.Errorf("chain id %d, want 1337", cfg.ChainID)
				}
			}},
		{name: "kind mismatch", upstream: 8453, chainID: 8453, kind: Ethereum, wantErr: "not --chain-type l1"},
		{name: "unknown op chain: flashrpc's dev chain rules", upstream: 999999, chainID: 999999, kind: OPStack, number: 5, time: 1770000000, wantKind: OPStack,
			check: func(t *testing.T, cfg *params.ChainConfig) {
				if !cfg.IsOptimism() || cfg.JovianTime == nil || *cfg.JovianTime != 0 || cfg.ChainID.Uint64() != 999999 {
					t.Errorf("optimism %v jovian %v chain %d: want an OP config with Jovian at 0 and chain id 999999", cfg.IsOptimism(), cfg.JovianTime, cfg.ChainID)
				}
			}},
		{name: "bad kind", upstream: 999999, chainID: 999999, kind: "x", wantErr: "unknown --chain-type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, n, err := ForkRules(tt.upstream, tt.chainID, tt.kind, tt.number, tt.time)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n.Kind != tt.wantKind {
				t.Errorf("kind %s, want %s", n.Kind, tt.wantKind)
			}
			tt.check(t, cfg)
		})
	}
}

// TestForkRulesCopies checks that ForkRules does not change the network's own configuration.
func TestForkRulesCopies(t *testing.T) {
	t.Parallel()
	if _, _, err := ForkRules(1, 1, "", 1, 1); err != nil {
		t.Fatal(err)
	}
	if params.MainnetChainConfig.OsakaTime == nil || params.MainnetChainConfig.LondonBlock == nil {
		t.Fatal("ForkRules changed go-ethereum's MainnetChainConfig")
	}
}

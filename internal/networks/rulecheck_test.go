package networks

import (
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

// TestRuleCheckAcrossBlocks checks that one RuleCheck, derived once, answers for every block
// of a chain's life as a check derived for that block alone would have: the forks of the
// configuration, Karst without Osaka, Base's forks without a field and a genesis file without
// Azul, each before and from its activation, checked in one pass over increasing times.
func TestRuleCheckAcrossBlocks(t *testing.T) {
	t.Parallel()
	base := mustLookup(t, params.BaseMainnetChainID)
	baseNoAzul := copyConfig(base.Config)
	baseNoAzul.OsakaTime = nil
	karstNoOsaka := copyConfig(mustLookup(t, 10).Config)
	karstNoOsaka.OsakaTime = nil
	lagoon := mustLookup(t, 420120009)
	type block struct {
		number, time uint64
		wantFork     string
	}
	tests := []struct {
		name   string
		cfg    *params.ChainConfig
		blocks []block
	}{
		{"base", base.Config, []block{{39_999_999, 1782410399, ""}, {40_000_000, 1782410400, "beryl"}, {40_000_001, 1795000000, "beryl"}}},
		{"base file without azul", baseNoAzul, []block{{1, 1779991199, ""}, {2, 1779991200, "azul"}, {3, 1782410400, "beryl"}}},
		{"karst without osaka", karstNoOsaka, []block{{1, 1783526400, ""}, {2, 1783526401, "karst"}}},
		{"registry lagoon", lagoon.Config, []block{{100, 1749149999, ""}, {123, 1749150000, "lagoon"}}},
		{"dev chain", DevOPStack(params.BaseMainnetChainID), []block{{1, 0, ""}, {2, 1795000000, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rc := NewRuleCheck(tt.cfg)
			for _, b := range tt.blocks {
				got, want := rc.Check(b.number, b.time), CheckRules(copyConfig(tt.cfg), b.number, b.time)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("block %d time %d: derived once %v, derived for the block %v", b.number, b.time, got, want)
				}
				checkRefusal(t, got, b.wantFork, forkTime(got), b.number, b.time)
			}
		})
	}
}

// forkTime returns the activation time of a refusal's fork, 0 without a refusal.
func forkTime(err error) uint64 {
	if nr, ok := err.(*NotRunError); ok && nr.Fork.Time != nil {
		return *nr.Fork.Time
	}
	return 0
}

// TestRuleCheckAllocations checks that checking a block that runs allocates nothing: the
// configuration is read once, when the check is derived.
func TestRuleCheckAllocations(t *testing.T) {
	for _, id := range []uint64{params.BaseMainnetChainID, 10, 1} {
		rc := NewRuleCheck(mustLookup(t, id).Config)
		var err error
		allocs := testing.AllocsPerRun(100, func() { err = rc.Check(30_000_000, 1_760_000_000) })
		if err != nil {
			t.Fatalf("chain %d: %v", id, err)
		}
		if allocs != 0 {
			t.Errorf("chain %d: %v allocations per block, want 0", id, allocs)
		}
	}
}

// BenchmarkCheckRules times the refusal check of one block of Base mainnet that runs: derived
// for the block (CheckRules, what every block paid before) and derived once (RuleCheck.Check,
// what a replica and an import pay per block).
func BenchmarkCheckRules(b *testing.B) {
	cfg := mustLookup(b, params.BaseMainnetChainID).Config
	const number, time = 40_000_000, 1782410399
	b.Run("derive=per-block", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := CheckRules(cfg, number, time); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("derive=once", func(b *testing.B) {
		rc := NewRuleCheck(cfg)
		b.ReportAllocs()
		for b.Loop() {
			if err := rc.Check(number, time); err != nil {
				b.Fatal(err)
			}
		}
	})
}

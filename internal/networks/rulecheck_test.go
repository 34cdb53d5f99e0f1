package networks

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

// checkRulesPerBlock is the refusal check as it was before RuleCheck: everything read from
// the configuration for the block. The tests compare RuleCheck with it, an algorithm of
// its own (CheckRules is RuleCheck now).
func checkRulesPerBlock(cfg *params.ChainConfig, number, time uint64) error {
	if err := checkForks(configForks(cfg), number, time); err != nil {
		return err
	}
	if cfg.IsOptimism() && cfg.KarstTime != nil && (cfg.OsakaTime == nil || *cfg.OsakaTime != *cfg.KarstTime) &&
		(cfg.IsOptimismKarst(time) || cfg.IsOsaka(new(big.Int).SetUint64(number), time)) {
		f := Fork{Name: "karst", Time: clone(cfg.KarstTime), Runs: true}
		return &NotRunError{Fork: f, Number: number, Time: time,
			Reason: "the chain configuration does not run Osaka from the same time (osakaTime must equal karstTime: flashrpc runs Karst as Osaka on L2)"}
	}
	if cfg.ChainID == nil || !cfg.ChainID.IsUint64() {
		return nil
	}
	n, ok := Lookup(cfg.ChainID.Uint64())
	if !ok || n.Kind != OPStack || !sameOPSchedule(cfg, n.Config) {
		return nil
	}
	if err := checkForks(n.Later, number, time); err != nil {
		return err
	}
	have := map[string]bool{}
	for _, f := range configForks(cfg) {
		have[f.Name] = f.activeAt(number, time)
	}
	later := map[string]bool{}
	for _, f := range n.Later {
		later[f.Name] = true
	}
	for _, f := range n.Forks() {
		if f.Time == nil || !f.Runs || !f.activeAt(number, time) {
			continue
		}
		if present := have[f.Name] || (later[f.Name] && have["osaka"]); !present {
			return &NotRunError{Fork: f, Number: number, Time: time,
				Reason: fmt.Sprintf("%s runs it, but the chain configuration does not schedule it by then", n.ID)}
		}
	}
	return nil
}

// TestRuleCheckAcrossBlocks checks that one RuleCheck, derived once, answers for every block
// of a chain's life as the check read from the configuration for that block alone
// (checkRulesPerBlock) does: the forks of the configuration, Karst without Osaka, Base's
// forks without a field and a genesis file without Azul, each before and from its
// activation, checked in one pass over increasing times.
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
				got, want := rc.Check(b.number, b.time), checkRulesPerBlock(tt.cfg, b.number, b.time)
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

// TestRuleCheckConfigChanged checks that a RuleCheck answers from the configuration as it
// was when derived: a Karst without Osaka removed afterwards is still refused.
func TestRuleCheckConfigChanged(t *testing.T) {
	t.Parallel()
	cfg := copyConfig(mustLookup(t, 10).Config)
	cfg.OsakaTime = nil
	rc := NewRuleCheck(cfg)
	cfg.KarstTime = nil
	checkRefusal(t, rc.Check(2, 1783526401), "karst", 1783526401, 2, 1783526401)
}

// TestRuleCheckAllocations checks that checking a block that runs allocates nothing: the
// configuration is read once, when the check is derived.
func TestRuleCheckAllocations(t *testing.T) {
	karstNoOsaka := copyConfig(mustLookup(t, 10).Config)
	karstNoOsaka.OsakaTime = nil
	configs := map[string]*params.ChainConfig{"karst without osaka": karstNoOsaka}
	for _, id := range []uint64{params.BaseMainnetChainID, 10, 1} {
		configs[fmt.Sprint("chain ", id)] = mustLookup(t, id).Config
	}
	for name, cfg := range configs {
		rc := NewRuleCheck(cfg)
		var err error
		allocs := testing.AllocsPerRun(100, func() { err = rc.Check(30_000_000, 1_760_000_000) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if allocs != 0 {
			t.Errorf("%s: %v allocations per block, want 0", name, allocs)
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

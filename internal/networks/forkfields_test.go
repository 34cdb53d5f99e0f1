package networks

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

// TestForkFields: every fork field of a configuration is found once, named by its JSON key,
// and points into the configuration.
func TestForkFields(t *testing.T) {
	t.Parallel()
	cfg := &params.ChainConfig{}
	fields := forkFields(cfg)
	byName := map[string]forkField{}
	for _, f := range fields {
		if _, dup := byName[f.name]; dup || (f.block == nil) == (f.time == nil) {
			t.Fatalf("field %q: listed twice or not one of block and time", f.name)
		}
		byName[f.name] = f
	}
	for _, name := range []string{"homestead", "daoFork", "mergeNetsplit", "bedrock"} {
		if f, ok := byName[name]; !ok || f.block == nil {
			t.Fatalf("block field %q: %+v, %v", name, f, ok)
		}
	}
	for _, name := range []string{"shanghai", "osaka", "bpo1", "regolith", "karst", "lagoon"} {
		if f, ok := byName[name]; !ok || f.time == nil {
			t.Fatalf("time field %q: %+v, %v", name, f, ok)
		}
	}
	if fields[0].name != "homestead" {
		t.Fatalf("first field %q, want homestead (the configuration's order)", fields[0].name)
	}
	*byName["cancun"].time, *byName["london"].block = genesis(), big.NewInt(7)
	if cfg.CancunTime == nil || *cfg.CancunTime != 0 || cfg.LondonBlock == nil || cfg.LondonBlock.Uint64() != 7 {
		t.Fatalf("set through the fields: cancun %v, london %v; want 0 and 7", cfg.CancunTime, cfg.LondonBlock)
	}
}

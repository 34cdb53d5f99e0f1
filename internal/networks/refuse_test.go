package networks

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

// TestCheckRules checks the refusal of a block at which a fork flashrpc does not run is
// active: by a configuration field (lagoonTime), by a known network's fork without one
// (Base's Denim), and Karst without Osaka; and that the forks flashrpc runs pass.
func TestCheckRules(t *testing.T) {
	t.Parallel()
	rehearsal := mustLookup(t, 420120009) // registry chain with lagoon_time 1749150000
	opMainnet := mustLookup(t, 10)
	base := mustLookup(t, params.BaseMainnetChainID)

	karstNoOsaka := copyConfig(opMainnet.Config)
	karstNoOsaka.OsakaTime = nil
	devOnBaseID := DevOPStack(params.BaseMainnetChainID) // a dev chain that took Base's chain id
	// Genesis files older than the forks: Base's without Azul, OP Mainnet's without Karst.
	baseNoAzul := copyConfig(base.Config)
	baseNoAzul.OsakaTime = nil
	opNoKarst := copyConfig(opMainnet.Config)
	opNoKarst.OsakaTime, opNoKarst.KarstTime = nil, nil

	tests := []struct {
		name         string
		cfg          *params.ChainConfig
		number, time uint64
		wantFork     string // "" : no refusal
		wantAt       uint64
	}{
		{"registry lagoon before", rehearsal.Config, 100, 1749149999, "", 0},
		{"registry lagoon at", rehearsal.Config, 123, 1749150000, "lagoon", 1749150000},
		{"registry lagoon after", rehearsal.Config, 124, 1749150012, "lagoon", 1749150000},
		{"op mainnet after karst", opMainnet.Config, 150_000_000, 1790000000, "", 0},
		{"karst without osaka, before", karstNoOsaka, 150_000_000, 1783526400, "", 0},
		{"karst without osaka, after", karstNoOsaka, 150_000_000, 1783526401, "karst", 1783526401},
		{"base before beryl", base.Config, 40_000_000, 1782410399, "", 0},
		{"base at beryl", base.Config, 40_000_000, 1782410400, "beryl", 1782410400},
		{"base after denim", base.Config, 40_000_000, 1795000000, "beryl", 1782410400},
		{"dev chain with base's id", devOnBaseID, 5, 1795000000, "", 0},
		{"base file without azul, before it", baseNoAzul, 40_000_000, 1779991199, "", 0},
		{"base file without azul, after it", baseNoAzul, 40_000_000, 1779991200, "azul", 1779991200},
		{"op file without karst, before it", opNoKarst, 150_000_000, 1783526400, "", 0},
		{"op file without karst, after it", opNoKarst, 150_000_000, 1783526401, "karst", 1783526401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckRules(tt.cfg, tt.number, tt.time)
			checkRefusal(t, err, tt.wantFork, tt.wantAt, tt.number, tt.time)
		})
	}
}

// TestNetworkCheckRules checks the refusal by a network's whole schedule, as a fork checks
// the block it continues.
func TestNetworkCheckRules(t *testing.T) {
	t.Parallel()
	base := mustLookup(t, baseSepoliaChainID)
	checkRefusal(t, base.CheckRules(30_000_000, 1792605599), "beryl", 1781805600, 30_000_000, 1792605599)
	if err := base.CheckRules(30_000_000, 1781805599); err != nil {
		t.Errorf("base sepolia after azul, before beryl: %v", err)
	}
	err := mustLookup(t, 420120010).CheckRules(123, 1749150012)
	checkRefusal(t, err, "lagoon", 1749150000, 123, 1749150012)
	want := "fork lagoon (activation 1749150000) is active at block 123 (time 1749150012): flashrpc does not run its rules; refusing to execute"
	if err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if err := mustLookup(t, 1).CheckRules(23_000_000, 1790000000); err != nil {
		t.Errorf("ethereum mainnet after osaka: %v", err)
	}
}

// TestCheckRulesUnknownField checks that a fork field flashrpc does not list as run is
// refused from its activation: go-ethereum's Amsterdam here, any field a later release adds.
func TestCheckRulesUnknownField(t *testing.T) {
	t.Parallel()
	cfg := CurrentEthereum(1337)
	cfg.AmsterdamTime = at(1000)
	checkRefusal(t, CheckRules(cfg, 7, 1000), "amsterdam", 1000, 7, 1000)
	if err := CheckRules(cfg, 6, 999); err != nil {
		t.Errorf("before amsterdam: %v", err)
	}
	cfg.MuirGlacierBlock = big.NewInt(0)
	if err := CheckRules(cfg, 6, 999); err != nil {
		t.Errorf("block forks run: %v", err)
	}
}

func checkRefusal(t *testing.T, err error, fork string, at, number, time uint64) {
	t.Helper()
	if fork == "" {
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		return
	}
	var nr *NotRunError
	if !errors.As(err, &nr) {
		t.Fatalf("err %v, want a *NotRunError for %s", err, fork)
	}
	if nr.Fork.Name != fork || nr.Fork.Time == nil || *nr.Fork.Time != at || nr.Number != number || nr.Time != time {
		t.Fatalf("refused %+v at block %d time %d, want fork %s at %d, block %d time %d", nr.Fork, nr.Number, nr.Time, fork, at, number, time)
	}
}

func mustLookup(t testing.TB, chainID uint64) Network {
	t.Helper()
	n, ok := Lookup(chainID)
	if !ok {
		t.Fatalf("chain %d unknown", chainID)
	}
	return n
}

// TestRegistryKarst checks that a registry chain that schedules Karst runs Osaka from Karst's
// time (withKarst), and one that does not, none.
func TestRegistryKarst(t *testing.T) {
	t.Parallel()
	for _, n := range All() {
		if n.Kind != OPStack || n.Later != nil {
			continue
		}
		cfg := n.Config
		switch {
		case cfg.KarstTime == nil && cfg.OsakaTime != nil:
			t.Errorf("%s: osaka %d without karst", n.ID, *cfg.OsakaTime)
		case cfg.KarstTime != nil && (cfg.OsakaTime == nil || *cfg.OsakaTime != *cfg.KarstTime):
			t.Errorf("%s: karst %d, osaka %v: want osaka = karst", n.ID, *cfg.KarstTime, cfg.OsakaTime)
		}
		if err := cfg.CheckConfigForkOrder(); err != nil {
			t.Errorf("%s: %v", n.ID, err)
		}
	}
	op := mustLookup(t, 10).Config
	if op.IsOsaka(big.NewInt(150_000_000), 1783526400) || !op.IsOsaka(big.NewInt(150_000_000), 1783526401) {
		t.Error("op mainnet: osaka not from karst_time 1783526401")
	}
	if !op.IsOptimismKarst(1783526401) {
		t.Error("op mainnet: karst off")
	}
	// A genesis file's configuration (karstTime, no osakaTime) gets the same rules.
	file := copyConfig(op)
	file.OsakaTime = nil
	got := WithKarst(file)
	if got.OsakaTime == nil || *got.OsakaTime != 1783526401 || file.OsakaTime != nil {
		t.Errorf("WithKarst: osaka %v (the argument's %v), want 1783526401 on a copy", got.OsakaTime, file.OsakaTime)
	}
	if dev := DevOPStack(1); WithKarst(dev) != dev {
		t.Error("WithKarst changed a configuration without karst")
	}
}

// TestDenimTime checks that Base's Denim times are the schedule's and run, that a block of
// live Base at Denim's activation is refused all the same (Beryl, not run, came first), that a
// local chain as of then runs Denim from genesis and of before then at its time, and that a
// network without Denim has none.
func TestDenimTime(t *testing.T) {
	for _, c := range []struct {
		name string
		want uint64
	}{{"base-mainnet", 1793901600}, {"base-sepolia", 1792605600}} {
		n, ok := LookupName(c.name)
		if !ok {
			t.Fatalf("%s unknown", c.name)
		}
		at, runs := n.DenimTime()
		if at == nil || *at != c.want || !runs {
			t.Fatalf("%s: Denim at %v, runs %v; want %d, run", c.name, at, runs, c.want)
		}
		var notRun *NotRunError
		if err := n.CheckRules(0, c.want); !errors.As(err, &notRun) || notRun.Fork.Name != "beryl" {
			t.Fatalf("%s: a block at Denim's activation: %v, want refused for beryl", c.name, err)
		}
		if d := n.LocalDenim(c.want); d == nil || *d != 0 {
			t.Fatalf("%s: a local chain as of Denim runs it from %v, want 0", c.name, d)
		}
		if d := n.LocalDenim(c.want - 1); d == nil || *d != c.want {
			t.Fatalf("%s: a local chain as of before Denim runs it from %v, want %d", c.name, d, c.want)
		}
	}
	op, ok := LookupName("op-mainnet")
	if !ok {
		t.Fatal("op-mainnet unknown")
	}
	if at, _ := op.DenimTime(); at != nil || op.LocalDenim(1795000000) != nil {
		t.Fatalf("op-mainnet has Denim at %v", at)
	}
}

package networks

import (
	"math/big"
	"testing"
)

// TestRulesAsOf checks a local chain with a network's rules as of a time: op-mainnet after
// Karst runs Karst (and Osaka) from genesis, before Karst at Karst's time; Ethereum mainnet is
// merged at genesis with Osaka on; Base after Beryl is refused (flashrpc does not run it).
func TestRulesAsOf(t *testing.T) {
	t.Parallel()
	op := mustLookup(t, 10)
	after, err := op.RulesAsOf(1337, 1790000000)
	if err != nil {
		t.Fatal(err)
	}
	if after.ChainID.Uint64() != 1337 || !after.IsOptimismKarst(0) || !after.IsOsaka(big.NewInt(0), 0) || !after.IsOptimismBedrock(big.NewInt(0)) {
		t.Errorf("op mainnet after karst: chain %d karst %v osaka %v: want chain 1337, karst and osaka at genesis", after.ChainID, after.KarstTime, after.OsakaTime)
	}
	if err := CheckRules(after, 1, 1); err != nil {
		t.Errorf("op mainnet after karst, local block 1: %v", err)
	}
	before, err := op.RulesAsOf(1337, 1783526400)
	if err != nil {
		t.Fatal(err)
	}
	if before.IsOptimismKarst(1783526400) || !before.IsOptimismKarst(1783526401) || !before.IsOptimismJovian(0) {
		t.Errorf("op mainnet before karst: karst %v jovian %v: want jovian at genesis, karst at 1783526401", *before.KarstTime, *before.JovianTime)
	}
	if op.GasLimit != 30_000_000 {
		t.Errorf("op mainnet's genesis gas limit %d, want the registry's 30000000", op.GasLimit)
	}
	if op.Config.ChainID.Uint64() != 10 || *op.Config.KarstTime != 1783526401 {
		t.Error("RulesAsOf changed the network's configuration")
	}
	l1, err := mustLookup(t, 1).RulesAsOf(1337, 1790000000)
	if err != nil {
		t.Fatal(err)
	}
	if l1.TerminalTotalDifficulty.Sign() != 0 || !l1.IsOsaka(big.NewInt(0), 0) || l1.DAOForkBlock != nil || l1.LondonBlock.Sign() != 0 {
		t.Errorf("ethereum mainnet: ttd %v osaka %v dao %v london %v: want merged at genesis with osaka, no dao fork", l1.TerminalTotalDifficulty, l1.OsakaTime, l1.DAOForkBlock, l1.LondonBlock)
	}
	// Beryl and Cobalt are left out of a local chain (their LocalEffect); Lagoon is not.
	if _, err := mustLookup(t, 8453).RulesAsOf(1337, 1795000000); err != nil {
		t.Errorf("base mainnet after denim: %v", err)
	}
	lagoon, _ := LookupName("rehearsal-0-bn-0-rehearsal-0-bn")
	if _, err := lagoon.RulesAsOf(1337, 1790000000); err == nil {
		t.Error("a registry chain after lagoon: no refusal")
	}
	if _, err := mustLookup(t, 8453).RulesAsOf(1337, 1780000000); err != nil {
		t.Errorf("base mainnet after azul, before beryl: %v", err)
	}
}

package networks

import (
	"errors"
	"strings"
	"testing"
)

// TestLocalRules: Base's networks as of late 2026 give a local chain its rules through Azul
// (Osaka from genesis), Denim from genesis, and name Beryl and Cobalt as left out with what
// the chain lacks; a registry chain with Lagoon, which flashrpc does not run and no local
// chain goes without, is refused naming it (the cause a *NotRunError); OP Mainnet's rules as
// of the same time have Karst from genesis.
func TestLocalRules(t *testing.T) {
	const now = 1795000000 // 2026-11-18, after Base's Denim and the registry's Karst
	base, _ := LookupName("base-mainnet")
	cfg, err := base.LocalRules(8453, now)
	if err != nil || cfg.OsakaTime == nil || *cfg.OsakaTime != 0 || cfg.KarstTime != nil || cfg.ChainID.Uint64() != 8453 {
		t.Fatalf("base-mainnet: %v, config %v", err, cfg)
	}
	if d := base.LocalDenim(now); d == nil || *d != 0 {
		t.Fatalf("base-mainnet: Denim from %v, want genesis", d)
	}
	var omitted []string
	for _, f := range base.LocalOmits(now) {
		omitted = append(omitted, f.Name)
		if f.Runs || f.LocalEffect == "" || f.Time == nil {
			t.Errorf("omitted fork %+v: want not run, with its effect and time", f)
		}
	}
	if strings.Join(omitted, ",") != "beryl,cobalt" {
		t.Fatalf("base-mainnet omits %v, want beryl and cobalt", omitted)
	}
	sepolia, _ := LookupName("base-sepolia")
	if omits := sepolia.LocalOmits(now); len(omits) != 1 || omits[0].Name != "beryl" {
		t.Fatalf("base-sepolia omits %v, want beryl", omits)
	}
	if omits := base.LocalOmits(1780000000); len(omits) != 0 {
		t.Fatalf("base-mainnet before Beryl omits %v", omits)
	}

	lagoon, _ := LookupName("rehearsal-0-bn-0-rehearsal-0-bn")
	_, err = lagoon.LocalRules(1337, now)
	var notRun *NotRunError
	if !errors.As(err, &notRun) || !strings.Contains(err.Error(), "lagoon (2025-06-05)") || !strings.Contains(err.Error(), "flashrpc networks") {
		t.Fatalf("a chain with lagoon: %v, want a refusal naming it, wrapping a *NotRunError", err)
	}
	op, _ := LookupName("op-mainnet")
	cfg, err = op.LocalRules(1337, now)
	if err != nil || cfg.KarstTime == nil || *cfg.KarstTime != 0 || cfg.OsakaTime == nil || *cfg.OsakaTime != 0 {
		t.Fatalf("op-mainnet: %v, karst %v", err, cfg)
	}
	if err := UnknownNameError("nope"); !strings.Contains(err.Error(), "op-mainnet") || !strings.Contains(err.Error(), "flashrpc networks") {
		t.Fatalf("unknown name: %v", err)
	}
}

// TestAgrees: a chain started with a network's rules as of a time agrees with it, also when a
// fork scheduled later has since passed; another network's, or the dev chain's, does not.
func TestAgrees(t *testing.T) {
	op, _ := LookupName("op-mainnet")
	before, err := op.RulesAsOf(1337, 1780000000) // before Karst: karst keeps its time
	if err != nil {
		t.Fatal(err)
	}
	after, err := op.RulesAsOf(1337, 1795000000)
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Agrees(before); err != nil {
		t.Fatalf("before Karst: %v", err)
	}
	if err := op.Agrees(after); err != nil {
		t.Fatalf("after Karst: %v", err)
	}
	if err := op.Agrees(DevOPStack(1337)); err == nil || !strings.Contains(err.Error(), "karst") {
		t.Fatalf("the dev chain's rules agree with op-mainnet: %v", err)
	}
	mainnet, _ := LookupName("mainnet")
	if err := mainnet.Agrees(after); err == nil || !strings.Contains(err.Error(), "OP Stack") {
		t.Fatalf("an OP Stack chain agrees with mainnet: %v", err)
	}
}

package networks

import (
	"errors"
	"strings"
	"testing"
)

// TestLocalRules: Base's networks as of late 2026 are refused naming the forks flashrpc lacks
// (Beryl first) and what to run instead (the cause a *NotRunError); OP Mainnet's rules as of
// the same time have Karst from genesis.
func TestLocalRules(t *testing.T) {
	const now = 1795000000 // 2026-11-18, after Base's Denim and the registry's Karst
	base, _ := LookupName("base-mainnet")
	_, err := base.LocalRules(1337, now)
	var notRun *NotRunError
	if !errors.As(err, &notRun) {
		t.Fatalf("base-mainnet: %v, want a refusal wrapping a *NotRunError", err)
	}
	for _, want := range []string{"beryl (2026-06-25)", "--network op-mainnet", "`flashrpc dev`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q: %v", want, err)
		}
	}
	op, _ := LookupName("op-mainnet")
	cfg, err := op.LocalRules(1337, now)
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

package networks

import (
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"
)

// TestDevOPStack checks the OP Stack dev chain's configuration: a valid OP Stack schedule
// with every OP fork through Jovian and Azul (Osaka) at genesis, and Karst off.
func TestDevOPStack(t *testing.T) {
	t.Parallel()
	cfg := DevOPStack(8453)
	if err := cfg.CheckConfigForkOrder(); err != nil {
		t.Fatalf("fork order: %v", err)
	}
	if err := cfg.CheckOptimismValidity(); err != nil {
		t.Fatalf("OP validity: %v", err)
	}
	for name, active := range map[string]bool{
		"Bedrock": cfg.IsOptimismBedrock(common.Big0), "Regolith": cfg.IsOptimismRegolith(0), "Canyon": cfg.IsOptimismCanyon(0),
		"Ecotone": cfg.IsOptimismEcotone(0), "Fjord": cfg.IsOptimismFjord(0), "Granite": cfg.IsOptimismGranite(0),
		"Holocene": cfg.IsOptimismHolocene(0), "Isthmus": cfg.IsOptimismIsthmus(0), "Jovian": cfg.IsOptimismJovian(0),
	} {
		if !active {
			t.Errorf("%s is not active at genesis", name)
		}
	}
	if cfg.IsOptimismKarst(1 << 40) {
		t.Error("Karst is active: it is not a Base fork")
	}
	if !cfg.IsOsaka(common.Big0, 0) {
		t.Error("Osaka is not active at genesis: Azul, Base's fork, is Osaka on L2")
	}
}

// forkSchedule returns every fork field of cfg (a *big.Int ...Block or *uint64 ...Time
// field) by name, written as "block N", "time T" or "off", and the terminal total difficulty.
func forkSchedule(cfg *params.ChainConfig) map[string]string {
	s := map[string]string{"TerminalTotalDifficulty": fmt.Sprint(cfg.TerminalTotalDifficulty)}
	v := reflect.ValueOf(cfg).Elem()
	for i := range v.NumField() {
		f, field := v.Type().Field(i), v.Field(i)
		switch {
		case strings.HasSuffix(f.Name, "Block") && f.Type == reflect.TypeFor[*big.Int]():
			s[f.Name] = "off"
			if b := field.Interface().(*big.Int); b != nil {
				s[f.Name] = "block " + b.String()
			}
		case strings.HasSuffix(f.Name, "Time") && f.Type == reflect.TypeFor[*uint64]():
			s[f.Name] = "off"
			if t := field.Interface().(*uint64); t != nil {
				s[f.Name] = fmt.Sprint("time ", *t)
			}
		}
	}
	return s
}

// TestSchedulesAgree pins that the configurations flashrpc builds itself, the Ethereum dev
// chain's, current Ethereum's (an unknown upstream's), the OP Stack dev chain's and Base's,
// agree on the Ethereum forks they share, and differ only where a difference is written
// down here.
func TestSchedulesAgree(t *testing.T) {
	t.Parallel()
	base, _ := Lookup(params.BaseMainnetChainID)
	baseSepolia, _ := Lookup(baseSepoliaChainID)
	configs := map[string]*params.ChainConfig{
		"dev ethereum":     DevEthereum(1337),
		"current ethereum": CurrentEthereum(1337),
		"dev op stack":     DevOPStack(1337),
		"base":             base.Config,
		"base sepolia":     baseSepolia.Config,
	}
	schedules := map[string]map[string]string{}
	for name, cfg := range configs {
		if cfg == nil {
			t.Fatalf("%s: no configuration", name)
		}
		schedules[name] = forkSchedule(cfg)
	}

	// Before the merge: every block fork at block 0 and merged at genesis, on every chain.
	preMerge := []string{"HomesteadBlock", "EIP150Block", "EIP155Block", "EIP158Block", "ByzantiumBlock",
		"ConstantinopleBlock", "PetersburgBlock", "IstanbulBlock", "MuirGlacierBlock", "BerlinBlock",
		"LondonBlock", "ArrowGlacierBlock", "GrayGlacierBlock", "MergeNetsplitBlock"}
	for name, s := range schedules {
		for _, fork := range preMerge {
			if s[fork] != "block 0" {
				t.Errorf("%s: %s %s, want block 0", name, fork, s[fork])
			}
		}
		if s["TerminalTotalDifficulty"] != "0" {
			t.Errorf("%s: terminal total difficulty %s, want 0", name, s["TerminalTotalDifficulty"])
		}
		if s["DAOForkBlock"] != "off" {
			t.Errorf("%s: DAO fork %s, want off", name, s["DAOForkBlock"])
		}
	}

	// The Ethereum dev chain is current Ethereum but for the blob-parameter-only forks.
	devLacks := map[string]bool{"BPO1Time": true, "BPO2Time": true}
	dev, current := schedules["dev ethereum"], schedules["current ethereum"]
	for fork, want := range current {
		switch got := dev[fork]; {
		case devLacks[fork] && got != "off":
			t.Errorf("dev ethereum: %s %s, want off", fork, got)
		case !devLacks[fork] && got != want:
			t.Errorf("dev ethereum: %s %s, current ethereum %s", fork, got, want)
		}
	}
	devBlobs, currentBlobs := configs["dev ethereum"].BlobScheduleConfig, configs["current ethereum"].BlobScheduleConfig
	if devBlobs.Cancun != currentBlobs.Cancun || devBlobs.Prague != currentBlobs.Prague || devBlobs.Osaka != currentBlobs.Osaka {
		t.Errorf("dev ethereum's blob schedule %+v, current ethereum's %+v", devBlobs, currentBlobs)
	}
	if devBlobs.BPO1 != nil || devBlobs.BPO2 != nil {
		t.Errorf("dev ethereum's blob schedule has BPO1 %v, BPO2 %v: want neither", devBlobs.BPO1, devBlobs.BPO2)
	}

	// On OP Stack chains each Ethereum fork comes with its OP fork, and the two dev chains
	// run the same Ethereum forks through Osaka (Azul on the OP Stack dev chain).
	implied := map[string]string{"ShanghaiTime": "CanyonTime", "CancunTime": "EcotoneTime", "PragueTime": "IsthmusTime"}
	for _, name := range []string{"dev op stack", "base", "base sepolia"} {
		s := schedules[name]
		for eth, op := range implied {
			if s[eth] != s[op] {
				t.Errorf("%s: %s %s, %s %s: want them together", name, eth, s[eth], op, s[op])
			}
		}
		if s["BedrockBlock"] != "block 0" || s["RegolithTime"] != "time 0" {
			t.Errorf("%s: bedrock %s, regolith %s: want both at genesis", name, s["BedrockBlock"], s["RegolithTime"])
		}
		for _, fork := range []string{"BPO1Time", "BPO2Time", "KarstTime"} {
			if s[fork] != "off" {
				t.Errorf("%s: %s %s, want off", name, fork, s[fork])
			}
		}
		if configs[name].BlobScheduleConfig != nil {
			t.Errorf("%s has a blob schedule: OP Stack chains have no blobs", name)
		}
	}
	for _, fork := range []string{"ShanghaiTime", "CancunTime", "PragueTime", "OsakaTime"} {
		if got, want := schedules["dev op stack"][fork], dev[fork]; got != want {
			t.Errorf("dev op stack: %s %s, dev ethereum %s", fork, got, want)
		}
	}

	// Base runs the OP forks the OP Stack dev chain runs, Azul (Osaka) included, at Azul's
	// times (networks-2026.md §3).
	azul := map[string]string{"base": "time 1779991200", "base sepolia": "time 1776708000"}
	for fork, at := range schedules["dev op stack"] {
		for _, name := range []string{"base", "base sepolia"} {
			got := schedules[name][fork]
			switch {
			case fork == "OsakaTime":
				if got != azul[name] {
					t.Errorf("%s: %s %s, want Azul's %s", name, fork, got, azul[name])
				}
			case (at == "off") != (got == "off"):
				t.Errorf("%s: %s %s, dev op stack %s: want both on or both off", name, fork, got, at)
			}
		}
	}
}

// TestConfigsAreTheCallers checks that each call returns a configuration of its own: a
// caller that changes one does not change the next.
func TestConfigsAreTheCallers(t *testing.T) {
	t.Parallel()
	for name, build := range map[string]func(uint64) *params.ChainConfig{
		"dev ethereum": DevEthereum, "current ethereum": CurrentEthereum, "dev op stack": DevOPStack,
	} {
		a := build(1)
		*a.ShanghaiTime = 99
		a.LondonBlock.SetUint64(99)
		if b := build(1); *b.ShanghaiTime != 0 || b.LondonBlock.Sign() != 0 {
			t.Errorf("%s: a change to one configuration shows in the next", name)
		}
		if c := build(1); c.ShanghaiTime == c.CancunTime {
			t.Errorf("%s: Shanghai and Cancun share their time", name)
		}
	}
}

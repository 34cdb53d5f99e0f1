package networks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodedNetwork is a network as `flashrpc networks --json` writes it, decoded with
// decisions.md's field names only.
type decodedNetwork struct {
	Name    string `json:"name"`
	ChainID uint64 `json:"chainId"`
	Kind    string `json:"kind"`
	Source  string `json:"source"`
	Forks   []struct {
		Name  string  `json:"name"`
		Block *uint64 `json:"block"`
		Time  *uint64 `json:"time"`
		Runs  *bool   `json:"runs"`
	} `json:"forks"`
	BlockTime       string `json:"blockTime"`
	PreconfInterval string `json:"preconfInterval"`
	FeedFormat      string `json:"feedFormat"`
}

// listed returns the JSON listing of All, decoded by name; every entry must carry every
// field of decisions.md's shape and nothing else.
func listed(t *testing.T) map[string]decodedNetwork {
	t.Helper()
	raw, err := json.Marshal(All())
	if err != nil {
		t.Fatal(err)
	}
	var generic []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	want := []string{"name", "chainId", "kind", "source", "forks", "blockTime", "preconfInterval", "feedFormat"}
	for _, g := range generic {
		if len(g) != len(want) {
			t.Fatalf("entry %s has fields %v, want exactly %v", g["name"], keys(g), want)
		}
		for _, k := range want {
			if _, ok := g[k]; !ok {
				t.Fatalf("entry %s lacks %q", g["name"], k)
			}
		}
	}
	var list []decodedNetwork
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&list); err != nil {
		t.Fatal(err)
	}
	out := map[string]decodedNetwork{}
	for _, n := range list {
		if _, dup := out[n.Name]; dup {
			t.Fatalf("network %s listed twice", n.Name)
		}
		for _, f := range n.Forks {
			if (f.Block == nil) == (f.Time == nil) || f.Runs == nil {
				t.Fatalf("%s: fork %s has block %v, time %v, runs %v: want one of block and time, and runs", n.Name, f.Name, f.Block, f.Time, f.Runs)
			}
		}
		out[n.Name] = n
	}
	return out
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// fork returns n's fork name as (time, runs); ok false when n does not list it.
func (n decodedNetwork) fork(name string) (time uint64, runs, ok bool) {
	for _, f := range n.Forks {
		if f.Name == name && f.Time != nil {
			return *f.Time, *f.Runs, true
		}
	}
	return 0, false, false
}

// TestListing checks `flashrpc networks --json`: every known network once, in decisions.md's
// shape, with the forks, cadences and feeds the issue names.
func TestListing(t *testing.T) {
	t.Parallel()
	nets := listed(t)
	for _, name := range []string{"mainnet", "sepolia", "holesky", "hoodi", "base-mainnet", "base-sepolia", "op-mainnet", "unichain-sepolia", "worldchain-mainnet"} {
		if _, ok := nets[name]; !ok {
			t.Errorf("%s is not listed", name)
		}
	}
	if len(nets) != 4+2+len(registry()) {
		t.Errorf("%d networks listed, want 4 Ethereum, 2 Base and the registry's %d", len(nets), len(registry()))
	}
	type forkWant struct {
		network, fork string
		time          uint64
		runs          bool
	}
	for _, w := range []forkWant{
		{"op-mainnet", "karst", 1783526401, true},
		{"op-sepolia", "karst", 1781712001, true},
		{"unichain-mainnet", "karst", 1783526401, true},
		{"base-mainnet", "azul", 1779991200, true},
		{"base-mainnet", "beryl", 1782410400, false},
		{"base-mainnet", "cobalt", 1790791200, false},
		{"base-mainnet", "denim", 1793901600, true},
		{"base-sepolia", "azul", 1776708000, true},
		{"base-sepolia", "beryl", 1781805600, false},
		{"base-sepolia", "denim", 1792605600, true},
		{"rehearsal-0-bn-0-rehearsal-0-bn", "lagoon", 1749150000, false},
		{"mainnet", "osaka", osakaOf(t, 1), true},
	} {
		at, runs, ok := nets[w.network].fork(w.fork)
		if !ok || at != w.time || runs != w.runs {
			t.Errorf("%s: %s at %d runs %v (listed %v), want at %d runs %v", w.network, w.fork, at, runs, ok, w.time, w.runs)
		}
	}
	if _, _, ok := nets["base-mainnet"].fork("karst"); ok {
		t.Error("base-mainnet lists karst: it is not a Base fork")
	}
	cadence := []struct{ network, block, preconf, feed, kind string }{
		{"op-mainnet", "2s", "250ms", "subblocks", "op"},
		{"op-sepolia", "2s", "250ms", "subblocks", "op"},
		{"unichain-mainnet", "1s", "200ms", "base", "op"},
		{"unichain-sepolia", "1s", "200ms", "base", "op"},
		{"base-mainnet", "200ms", "0s", "none", "op"},
		{"ink-mainnet", "1s", "0s", "none", "op"},
		{"mainnet", "12s", "0s", "none", "l1"},
	}
	for _, c := range cadence {
		n := nets[c.network]
		if n.BlockTime != c.block || n.PreconfInterval != c.preconf || n.FeedFormat != c.feed || n.Kind != c.kind {
			t.Errorf("%s: block %s preconf %s feed %s kind %s, want %s %s %s %s", c.network, n.BlockTime, n.PreconfInterval, n.FeedFormat, n.Kind, c.block, c.preconf, c.feed, c.kind)
		}
	}
	if n := nets["op-mainnet"]; n.ChainID != 10 || !strings.HasPrefix(n.Source, "op-geth superchain registry ") || len(n.Source) != len("op-geth superchain registry ")+40 {
		t.Errorf("op-mainnet: chain id %d source %q, want 10 and the registry with its commit", n.ChainID, n.Source)
	}
	if n := nets["base-sepolia"]; n.ChainID != 84532 || !strings.HasPrefix(n.Source, "flashrpc data") {
		t.Errorf("base-sepolia: chain id %d source %q, want 84532 and flashrpc's data", n.ChainID, n.Source)
	}
}

// osakaOf returns go-ethereum's Osaka time of the Ethereum network with chainID.
func osakaOf(t *testing.T, chainID uint64) uint64 {
	t.Helper()
	n, ok := Lookup(chainID)
	if !ok || n.Config.OsakaTime == nil {
		t.Fatalf("chain %d: no Osaka time", chainID)
	}
	return *n.Config.OsakaTime
}

// TestWriteTable checks the text listing: a header, one row per network, forks flashrpc does
// not run marked.
func TestWriteTable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	all := All()
	if err := WriteTable(&buf, all); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	if len(lines) != len(all)+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("%d lines, header %q: want a header and %d rows", len(lines), lines[0], len(all))
	}
	var base string
	for _, l := range lines {
		if strings.HasPrefix(l, "base-mainnet ") {
			base = l
		}
	}
	for _, want := range []string{"8453", "200ms", "azul@1779991200,", "cobalt@1790791200 (not run),", "denim@1793901600"} {
		if !strings.Contains(base, want) {
			t.Errorf("base-mainnet row %q lacks %q", base, want)
		}
	}
	if strings.Contains(base, "denim@1793901600 (not run)") {
		t.Errorf("base-mainnet row %q: denim not run", base)
	}
}

// TestLookupName checks --network NAME: every listed name finds its network, by chain id too.
func TestLookupName(t *testing.T) {
	t.Parallel()
	for _, n := range All() {
		got, ok := LookupName(n.ID)
		if !ok || got.ChainID != n.ChainID {
			t.Errorf("LookupName(%q): chain %d (%v), want %d", n.ID, got.ChainID, ok, n.ChainID)
		}
		if byID, ok := Lookup(n.ChainID); !ok || byID.ID != n.ID {
			t.Errorf("Lookup(%d): %q (%v), want %q", n.ChainID, byID.ID, ok, n.ID)
		}
	}
	if _, ok := LookupName("op-mainnett"); ok {
		t.Error("LookupName found a network for a name none has")
	}
}

// TestForUpstream checks how fork and follow pick a network: the upstream's chain id decides
// when it is known, and a --network that disagrees is refused naming both; an upstream no
// network has runs the named network's rules.
func TestForUpstream(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		upstream uint64
		name     string
		want     string // network ID; "" : none
		wantErr  string
	}{
		{10, "", "op-mainnet", ""},
		{10, "op-mainnet", "op-mainnet", ""},
		{10, "base-mainnet", "", "--network base-mainnet (chain id 8453) disagrees with the upstream, whose chain id 10 is op-mainnet"},
		{1337, "op-mainnet", "op-mainnet", ""},
		{1337, "", "", ""},
		{1337, "no-such-net", "", "no such network"},
	} {
		n, known, err := ForUpstream(c.upstream, c.name)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("upstream %d --network %q: err %v, want %q", c.upstream, c.name, err, c.wantErr)
			}
		case err != nil || known != (c.want != "") || n.ID != c.want:
			t.Errorf("upstream %d --network %q: %q (known %v, err %v), want %q", c.upstream, c.name, n.ID, known, err, c.want)
		}
	}
}

package node

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/core"

	"github.com/flashrpc/flashrpc/internal/networks"
)

// GenesisFileName is where a dev node writes its chain's genesis in the data directory, for
// replicas (`flashrpc follow --genesis`) and other tools.
const GenesisFileName = "genesis.json"

// A genesis file is go-ethereum's genesis JSON. go-ethereum's chain configuration has no field
// for Denim, so its activation time is written where base/base's genesis parsing reads it:
// config.base.denim (base/base crates/common/rpc-types/src/genesis.rs, UpgradeInfo, the
// Base upgrade times under the "base" key of the genesis config's extra fields).
type genesisBase struct {
	Base *baseUpgrades `json:"base,omitempty"`
}

// baseUpgrades is config.base: the Base upgrade times flashrpc reads and writes.
type baseUpgrades struct {
	Denim *uint64 `json:"denim,omitempty"`
}

// readGenesisFile reads the genesis file at path (follow --genesis, import): the genesis, with
// Karst as flashrpc runs it (networks.WithKarst), and the chain's Denim time from
// config.base.denim (nil: the chain does not run Denim).
func readGenesisFile(path string) (*core.Genesis, *uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	g := new(core.Genesis)
	if err := json.Unmarshal(data, g); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var extra struct {
		Config genesisBase `json:"config"`
	}
	if err := json.Unmarshal(data, &extra); err != nil {
		return nil, nil, fmt.Errorf("%s: config.base: %w", path, err)
	}
	g.Config = networks.WithKarst(g.Config)
	var denim *uint64
	if b := extra.Config.Base; b != nil {
		denim = b.Denim
	}
	return g, denim, nil
}

// marshalGenesis returns g as a genesis file holds it, with the Denim time denim (nil: none)
// as config.base.denim.
func marshalGenesis(g *core.Genesis, denim *uint64) ([]byte, error) {
	data, err := json.Marshal(g)
	if err != nil || denim == nil {
		return data, err
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, err
	}
	var config map[string]json.RawMessage
	if err := json.Unmarshal(file["config"], &config); err != nil {
		return nil, err
	}
	if config["base"], err = json.Marshal(baseUpgrades{Denim: denim}); err != nil {
		return nil, err
	}
	if file["config"], err = json.Marshal(config); err != nil {
		return nil, err
	}
	return json.Marshal(file)
}

// writeGenesisFile writes g, with the Denim time denim, to dir/genesis.json, atomically; an
// existing file is kept. A failure is logged, not fatal: the chain itself is in the database.
func writeGenesisFile(dir string, g *core.Genesis, denim *uint64, created bool, logger *slog.Logger) {
	path := filepath.Join(dir, GenesisFileName)
	if _, err := os.Stat(path); err == nil {
		return
	}
	data, err := marshalGenesis(g, denim)
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, data, 0o644); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		logger.Warn("cannot write the chain's genesis file", "path", path, "err", err)
		return
	}
	if !created {
		logger.Info("wrote the stored chain's genesis file", "path", path)
	}
}

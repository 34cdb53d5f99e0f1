package networks

import (
	"math/big"

	"github.com/ethereum/go-ethereum/params"
)

// This file is where flashrpc writes a fork schedule: which fork a chain runs from which
// block or time. Every configuration flashrpc builds itself (its dev chains, the rules of an
// unknown upstream, Base's networks) is made by ethereumConfig or opConfig from the two
// schedules below; a fork flashrpc learns to run gets its field here and nowhere else.

// ethereumForks says when a chain runs each of Ethereum's time-scheduled forks, in Unix
// seconds; nil means never, 0 from genesis. The block-scheduled forks before the merge are
// not in it: every chain flashrpc builds runs them from block 0 (mergedAtGenesis).
type ethereumForks struct {
	shanghai, cancun, prague, osaka, bpo1, bpo2 *uint64
}

// opForks says when an OP Stack chain runs each OP fork after Regolith, in Unix seconds; nil
// means never, 0 from genesis. Bedrock (block 0) and Regolith (genesis) are not in it: every
// OP Stack chain flashrpc builds starts with them. Delta changed only the consensus layer and
// has no field. Karst, the registry chains' fork, is not scheduled on a chain flashrpc
// builds itself: the registry's configurations carry it (Lookup).
type opForks struct {
	canyon, ecotone, fjord, granite, holocene, isthmus, jovian *uint64
	// azul is Base's own fork: Osaka's EVM on L2. op-geth runs it as Osaka (OsakaTime);
	// oprollup.PrecompileOverrides adds the precompiles op-geth does not switch.
	azul *uint64
}

// at returns a schedule entry for time t.
func at(t uint64) *uint64 { return &t }

// genesis returns a schedule entry for a fork active from a chain's first block.
func genesis() *uint64 { return at(0) }

// DevEthereum returns the configuration of flashrpc's Ethereum dev chain (--chain-type l1):
// every Ethereum fork through Osaka from genesis, merged from the start, with the blob
// schedule of Cancun, Prague and Osaka. Ethereum's later forks that only raise the blob
// limits (BPO1, BPO2, which [CurrentEthereum] runs) stay off, so the dev chain's blob limits
// and blob base fee are Osaka's. The result is the caller's.
func DevEthereum(chainID uint64) *params.ChainConfig {
	return ethereumConfig(chainID, ethereumForks{shanghai: genesis(), cancun: genesis(), prague: genesis(), osaka: genesis()})
}

// CurrentEthereum returns the configuration of an Ethereum chain flashrpc does not know:
// every fork Ethereum mainnet runs today (through BPO2) active from block 0, merged from the
// start, with mainnet's blob schedule. The result is the caller's.
func CurrentEthereum(chainID uint64) *params.ChainConfig {
	return ethereumConfig(chainID, ethereumForks{
		shanghai: genesis(), cancun: genesis(), prague: genesis(), osaka: genesis(), bpo1: genesis(), bpo2: genesis(),
	})
}

// DevOPStack returns the configuration of flashrpc's OP Stack dev chain (--chain-type op),
// with Base's fee settings and its forks through Azul: Bedrock from block 0 and every OP fork
// through Jovian active at genesis, with the Ethereum forks they imply (London = Bedrock,
// Shanghai = Canyon, Cancun = Ecotone, Prague = Isthmus), and Azul, Base's own fork, which is Osaka on L2
// (oprollup installs Osaka's precompiles over op-geth's Jovian ones). op-geth's Karst is
// not a Base fork and stays off. It is also the rules of an OP Stack chain flashrpc does
// not know. The result is the caller's.
func DevOPStack(chainID uint64) *params.ChainConfig {
	return opConfig(chainID, opForks{
		canyon: genesis(), ecotone: genesis(), fjord: genesis(), granite: genesis(),
		holocene: genesis(), isthmus: genesis(), jovian: genesis(), azul: genesis(),
	}, baseMainnetElasticity)
}

// mergedAtGenesis returns the configuration of chain chainID with every block-scheduled
// Ethereum fork (Homestead through Gray Glacier) at block 0, merged from the start
// (terminal total difficulty 0), and no later fork.
func mergedAtGenesis(chainID uint64) *params.ChainConfig {
	return &params.ChainConfig{
		ChainID:                 new(big.Int).SetUint64(chainID),
		HomesteadBlock:          big.NewInt(0),
		EIP150Block:             big.NewInt(0),
		EIP155Block:             big.NewInt(0),
		EIP158Block:             big.NewInt(0),
		ByzantiumBlock:          big.NewInt(0),
		ConstantinopleBlock:     big.NewInt(0),
		PetersburgBlock:         big.NewInt(0),
		IstanbulBlock:           big.NewInt(0),
		MuirGlacierBlock:        big.NewInt(0),
		BerlinBlock:             big.NewInt(0),
		LondonBlock:             big.NewInt(0),
		ArrowGlacierBlock:       big.NewInt(0),
		GrayGlacierBlock:        big.NewInt(0),
		MergeNetsplitBlock:      big.NewInt(0),
		TerminalTotalDifficulty: big.NewInt(0),
	}
}

// set writes the schedule into cfg. Each field gets a pointer of its own.
func (f ethereumForks) set(cfg *params.ChainConfig) {
	cfg.ShanghaiTime = clone(f.shanghai)
	cfg.CancunTime = clone(f.cancun)
	cfg.PragueTime = clone(f.prague)
	cfg.OsakaTime = clone(f.osaka)
	cfg.BPO1Time = clone(f.bpo1)
	cfg.BPO2Time = clone(f.bpo2)
}

// blobSchedule returns the blob parameters of every fork the schedule runs that has them
// (mainnet's, go-ethereum's defaults), nil when it runs none.
func (f ethereumForks) blobSchedule() *params.BlobScheduleConfig {
	if f.cancun == nil {
		return nil
	}
	s := &params.BlobScheduleConfig{Cancun: params.DefaultCancunBlobConfig}
	if f.prague != nil {
		s.Prague = params.DefaultPragueBlobConfig
	}
	if f.osaka != nil {
		s.Osaka = params.DefaultOsakaBlobConfig
	}
	if f.bpo1 != nil {
		s.BPO1 = params.DefaultBPO1BlobConfig
	}
	if f.bpo2 != nil {
		s.BPO2 = params.DefaultBPO2BlobConfig
	}
	return s
}

// ethereum returns the Ethereum forks the OP forks bring: Shanghai with Canyon, Cancun with
// Ecotone, Prague with Isthmus, Osaka with Azul.
func (f opForks) ethereum() ethereumForks {
	return ethereumForks{shanghai: f.canyon, cancun: f.ecotone, prague: f.isthmus, osaka: f.azul}
}

// ethereumConfig returns the configuration of an Ethereum chain merged at genesis that runs
// the time-scheduled forks of f, with their blob parameters.
func ethereumConfig(chainID uint64, f ethereumForks) *params.ChainConfig {
	cfg := mergedAtGenesis(chainID)
	f.set(cfg)
	cfg.BlobScheduleConfig = f.blobSchedule()
	return cfg
}

// opConfig returns the configuration of an OP Stack chain: merged at genesis, Bedrock at
// block 0 and Regolith at genesis, the OP forks of f with the Ethereum forks they bring, and
// no blob schedule (OP Stack chains have no blobs; op-geth refuses one). Its EIP-1559
// parameters before Holocene are elasticity and the OP Stack's denominators (50, and 250
// from Canyon on); from Holocene on every block's extraData carries the ones in force.
func opConfig(chainID uint64, f opForks, elasticity uint64) *params.ChainConfig {
	cfg := mergedAtGenesis(chainID)
	f.ethereum().set(cfg)
	cfg.BedrockBlock = big.NewInt(0)
	cfg.RegolithTime = genesis()
	cfg.CanyonTime = clone(f.canyon)
	cfg.EcotoneTime = clone(f.ecotone)
	cfg.FjordTime = clone(f.fjord)
	cfg.GraniteTime = clone(f.granite)
	cfg.HoloceneTime = clone(f.holocene)
	cfg.IsthmusTime = clone(f.isthmus)
	cfg.JovianTime = clone(f.jovian)
	denominatorCanyon := uint64(opEIP1559DenominatorCanyon)
	cfg.Optimism = &params.OptimismConfig{
		EIP1559Elasticity:        elasticity,
		EIP1559Denominator:       opEIP1559Denominator,
		EIP1559DenominatorCanyon: &denominatorCanyon,
	}
	return cfg
}

// The OP Stack's EIP-1559 base fee change denominators before Holocene: before Canyon and
// from Canyon on.
const (
	opEIP1559Denominator       = 50
	opEIP1559DenominatorCanyon = 250
)

// clone returns a pointer of its own to *t, nil for nil.
func clone(t *uint64) *uint64 {
	if t == nil {
		return nil
	}
	return at(*t)
}

package devapi

import (
	"context"
	"crypto/ecdsa"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/devaccounts"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Backend is the dev chain the methods drive. Every field must be set.
type Backend struct {
	Chain     *chain.Chain
	Preconf   *preconf.Preconf
	Pool      *txpool.Pool
	Sequencer *sequencer.Sequencer
}

// Config configures the dev methods.
type Config struct {
	// Accounts are the dev accounts, in the order eth_accounts lists them; their keys sign
	// eth_sendTransaction, eth_sign, personal_sign and eth_signTypedData_v4. The slice is
	// kept.
	Accounts []devaccounts.Account
	// Refork, when set, replaces the chain by a new fork of url at block (nil: the upstream's
	// latest; url "": the current fork's upstream), for anvil_reset with forking options and a
	// plain anvil_reset of a fork. Without it such a reset is refused.
	Refork func(ctx context.Context, url string, block *int64) error
	// HardhatIntervalMining makes evm_setIntervalMining take Hardhat's milliseconds and leave
	// automine as it is; by default it is anvil's: seconds, and automine off (the same as
	// anvil_setIntervalMining). The two nodes give one method two units: flashrpc answers as
	// the node it presents itself as (flashrpc dev sets it when --client-version names
	// HardhatNetwork).
	HardhatIntervalMining bool
}

// API serves the dev methods of both endpoints. It is safe for concurrent use.
type API struct {
	cfg    Config
	b      Backend
	config *params.ChainConfig
	keys   map[common.Address]*ecdsa.PrivateKey

	mu           sync.Mutex              // guards the fields below; never held while calling the sequencer
	impersonated map[common.Address]bool // anvil_impersonateAccount
	autoImp      bool                    // anvil_autoImpersonateAccount(true)
	snapshots    map[uint64]snapshot     // evm_snapshot, by id
	nextSnapshot uint64                  // the last id given
}

// New returns the dev methods over b.
func New(cfg Config, b Backend) *API {
	keys := make(map[common.Address]*ecdsa.PrivateKey, len(cfg.Accounts))
	for _, acc := range cfg.Accounts {
		keys[acc.Address] = acc.Key
	}
	return &API{cfg: cfg, b: b, config: b.Chain.Config(), keys: keys, impersonated: make(map[common.Address]bool), snapshots: make(map[uint64]snapshot)}
}

// Register adds the dev methods to t, one endpoint's method table, replacing what it has
// under their names (eth_accounts). eth_sendTransaction calls t's eth_getTransactionCount,
// eth_estimateGas and eth_maxPriorityFeePerGas, so t must hold them. Each method declares
// what it reads (core.Reads): none takes a block, transaction or state parameter, so none is
// routed to an upstream; those that read the sealed head's or the block in progress's state
// say so (head), the others act on the local dev chain or its pool (nothing).
func (a *API) Register(t *core.Table) {
	own := t.Methods() // the endpoint's methods eth_sendTransaction fills a transaction with
	t.Add("eth_accounts", a.accounts, noChainData)
	t.Add("eth_sendTransaction", func(ctx context.Context, p rpc.Params) (any, error) {
		return a.sendTransaction(ctx, p, own)
	}, readsHead)
	t.Add("eth_signTransaction", func(ctx context.Context, p rpc.Params) (any, error) {
		return a.signTransaction(ctx, p, own)
	}, readsHead)
	t.Add("eth_sign", a.ethSign, noChainData)
	t.Add("personal_sign", a.personalSign, noChainData)
	t.Add("eth_signTypedData_v4", a.signTypedDataV4, noChainData)
	for _, ns := range []string{"anvil_", "hardhat_"} {
		t.Add(ns+"impersonateAccount", a.impersonateAccount, noChainData)
		t.Add(ns+"stopImpersonatingAccount", a.stopImpersonatingAccount, noChainData)
	}
	t.Add("anvil_autoImpersonateAccount", a.autoImpersonateAccount, noChainData)
	t.Add("hardhat_autoImpersonateAccount", a.autoImpersonateAccount, noChainData)
	for _, ns := range []string{"anvil_", "hardhat_"} {
		t.Add(ns+"setBalance", a.setBalance, noChainData)
		t.Add(ns+"setCode", a.setCode, noChainData)
		t.Add(ns+"setNonce", a.setNonce, noChainData)
		t.Add(ns+"setStorageAt", a.setStorageAt, noChainData)
		t.Add(ns+"dropTransaction", a.dropTransaction, noChainData)
		t.Add(ns+"setNextBlockBaseFeePerGas", a.setNextBlockBaseFeePerGas, noChainData)
		t.Add(ns+"setCoinbase", a.setCoinbase, noChainData)
		t.Add(ns+"mine", a.mine, noChainData)
		t.Add(ns+"reset", a.reset, readsHead)
	}
	t.Add("anvil_dumpState", a.dumpState, readsHead) // the sealed head's state
	t.Add("anvil_loadState", a.loadState, noChainData)
	t.Add("hardhat_setPrevRandao", a.setPrevRandao, noChainData)
	t.Add("evm_setBlockGasLimit", a.setBlockGasLimit, noChainData)
	t.Add("evm_mine", a.evmMine, noChainData)
	t.Add("evm_snapshot", a.evmSnapshot, readsHead) // the sealed head
	t.Add("evm_revert", a.evmRevert, noChainData)
	t.Add("evm_increaseTime", a.increaseTime, noChainData)
	t.Add("anvil_increaseTime", a.increaseTime, noChainData)
	t.Add("evm_setNextBlockTimestamp", a.setNextBlockTimestamp, noChainData)
	t.Add("anvil_setNextBlockTimestamp", a.setNextBlockTimestamp, noChainData)
	t.Add("evm_setAutomine", a.setAutomine, noChainData)
	t.Add("evm_getAutomine", a.getAutomine, noChainData)
	t.Add("anvil_getAutomine", a.getAutomine, noChainData)
	t.Add("hardhat_getAutomine", a.getAutomine, noChainData)
	if a.cfg.HardhatIntervalMining {
		t.Add("evm_setIntervalMining", a.setIntervalMiningMs, noChainData)
	} else {
		t.Add("evm_setIntervalMining", a.setIntervalMiningSeconds, noChainData) // anvil's
	}
	t.Add("anvil_setIntervalMining", a.setIntervalMiningSeconds, noChainData)
	t.Add("dev_preconfirm", a.devPreconfirm, noChainData) // dev.go
	t.Add("dev_seal", a.devSeal, noChainData)
	if a.config.IsOptimism() {
		t.Add("dev_deposit", a.devDeposit, noChainData) // deposit.go
	}
	t.Add("txpool_status", a.txpoolStatus, noChainData)
	t.Add("txpool_content", a.txpoolContent, noChainData)
	t.Add("txpool_contentFrom", a.txpoolContentFrom, noChainData)
	t.Add("txpool_inspect", a.txpoolInspect, noChainData)
}

// What the dev methods read (core.Reads): the sealed head or the block in progress, which are
// always local, or no chain data.
var (
	readsHead   = core.Reads{Kind: core.ReadsHead}
	noChainData = core.Reads{Kind: core.ReadsNothing}
)

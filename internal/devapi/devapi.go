package devapi

import (
	"context"
	"crypto/ecdsa"
	"maps"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/params"

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

// Register adds the dev methods to m, one endpoint's method table, replacing what it has
// under their names (eth_accounts). eth_sendTransaction calls m's eth_getTransactionCount,
// eth_estimateGas and eth_maxPriorityFeePerGas, so m must hold them.
func (a *API) Register(m map[string]rpc.Method) {
	own := maps.Clone(m) // the endpoint's methods eth_sendTransaction fills a transaction with
	m["eth_accounts"] = a.accounts
	m["eth_sendTransaction"] = func(ctx context.Context, p rpc.Params) (any, error) {
		return a.sendTransaction(ctx, p, own)
	}
	m["eth_signTransaction"] = func(ctx context.Context, p rpc.Params) (any, error) {
		return a.signTransaction(ctx, p, own)
	}
	m["eth_sign"] = a.ethSign
	m["personal_sign"] = a.personalSign
	m["eth_signTypedData_v4"] = a.signTypedDataV4
	for _, ns := range []string{"anvil_", "hardhat_"} {
		m[ns+"impersonateAccount"] = a.impersonateAccount
		m[ns+"stopImpersonatingAccount"] = a.stopImpersonatingAccount
	}
	m["anvil_autoImpersonateAccount"] = a.autoImpersonateAccount
	m["hardhat_autoImpersonateAccount"] = a.autoImpersonateAccount
	for _, ns := range []string{"anvil_", "hardhat_"} {
		m[ns+"setBalance"] = a.setBalance
		m[ns+"setCode"] = a.setCode
		m[ns+"setNonce"] = a.setNonce
		m[ns+"setStorageAt"] = a.setStorageAt
		m[ns+"dropTransaction"] = a.dropTransaction
		m[ns+"setNextBlockBaseFeePerGas"] = a.setNextBlockBaseFeePerGas
		m[ns+"setCoinbase"] = a.setCoinbase
		m[ns+"mine"] = a.mine
		m[ns+"reset"] = a.reset
	}
	m["anvil_dumpState"] = a.dumpState
	m["anvil_loadState"] = a.loadState
	m["hardhat_setPrevRandao"] = a.setPrevRandao
	m["evm_setBlockGasLimit"] = a.setBlockGasLimit
	m["evm_mine"] = a.evmMine
	m["evm_snapshot"] = a.evmSnapshot
	m["evm_revert"] = a.evmRevert
	m["evm_increaseTime"] = a.increaseTime
	m["anvil_increaseTime"] = a.increaseTime
	m["evm_setNextBlockTimestamp"] = a.setNextBlockTimestamp
	m["anvil_setNextBlockTimestamp"] = a.setNextBlockTimestamp
	m["evm_setAutomine"] = a.setAutomine
	m["evm_getAutomine"] = a.getAutomine
	m["anvil_getAutomine"] = a.getAutomine
	m["hardhat_getAutomine"] = a.getAutomine
	m["evm_setIntervalMining"] = a.setIntervalMiningSeconds // anvil's
	if a.cfg.HardhatIntervalMining {
		m["evm_setIntervalMining"] = a.setIntervalMiningMs
	}
	m["anvil_setIntervalMining"] = a.setIntervalMiningSeconds
	m["dev_preconfirm"] = a.devPreconfirm // dev.go
	m["dev_seal"] = a.devSeal
	if a.config.IsOptimism() {
		m["dev_deposit"] = a.devDeposit // deposit.go
	}
	m["txpool_status"] = a.txpoolStatus
	m["txpool_content"] = a.txpoolContent
	m["txpool_contentFrom"] = a.txpoolContentFrom
	m["txpool_inspect"] = a.txpoolInspect
}

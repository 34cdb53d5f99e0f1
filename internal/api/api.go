package api

import (
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/exec/simulate"
	"github.com/flashrpc/flashrpc/internal/logs"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/recent"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/sequencer"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Defaults of Config's limits, go-ethereum's where it has one.
const (
	DefaultGasCap        = 50_000_000
	DefaultEVMTimeout    = 5 * time.Second
	DefaultLogsMaxResult = 10_000
	DefaultLogsMaxRange  = 1_000_000
	DefaultLogsTimeout   = 10 * time.Second
)

// Config is one endpoint's configuration.
type Config struct {
	// Pending makes this the pre-confirmed endpoint: `pending` is the block in progress and the
	// pre-confirmation methods exist. Otherwise `pending` is the sealed head.
	Pending bool
	// Dev adds the dev_ methods (dev_preconfirm, dev_seal, and on an OP Stack chain
	// dev_deposit); Backend.Sequencer must be set.
	Dev bool
	// ClientVersion is web3_clientVersion's answer.
	ClientVersion string
	// GasCap bounds the gas of eth_call and eth_estimateGas and is the shared budget of one
	// eth_simulateV1; zero means unlimited (the command's default is DefaultGasCap).
	GasCap uint64
	// EVMTimeout bounds one eth_call, eth_estimateGas or eth_simulateV1; zero means no limit
	// beyond the request timeout (the command's default is DefaultEVMTimeout).
	EVMTimeout time.Duration
	// LogsMaxResults is the most logs eth_getLogs returns before it refuses with -32005;
	// zero means DefaultLogsMaxResult.
	LogsMaxResults int
	// LogsMaxRange is the widest block range eth_getLogs accepts (-32602 beyond); zero means
	// DefaultLogsMaxRange.
	LogsMaxRange uint64
	// LogsTimeout bounds one eth_getLogs; past it the answer is -32005 "query timeout
	// exceeded" naming the blocks searched in time. Zero means DefaultLogsTimeout.
	LogsTimeout time.Duration
	// SimLimits bound eth_simulateV1 requests; zero fields take go-ethereum's defaults (256
	// blocks, 5,000 calls per block, 10,000 calls). GasCap is the request's shared gas budget
	// and EVMTimeout its time limit.
	SimLimits simulate.Limits
	// FilterTimeout is how long a polling filter lives without being polled; zero means
	// DefaultFilterTimeout (go-ethereum's 5 minutes).
	FilterTimeout time.Duration
	// FilterMaxBytes bounds the changes, in bytes of JSON, one polling filter holds between
	// polls (a filter that would hold more is removed); zero means DefaultFilterMaxBytes.
	FilterMaxBytes int
	// Now is the clock filter expiry reads; nil means time.Now.
	Now func() time.Time
	// TraceMaxLogBytes bounds the struct logs one transaction's trace collects (the
	// struct logger's "limit" option, which a request may lower); zero means no bound.
	TraceMaxLogBytes int
	// Logger receives warnings about failed subscriptions; nil discards.
	Logger *slog.Logger
	// Extend, when set, adds methods to the endpoint's table, or replaces some, after the
	// API's own are in it: the dev chain's dev methods (devapi.API.Register). It may keep the
	// table's methods and call them.
	Extend func(map[string]rpc.Method)
}

// Backend is what the API reads and drives.
type Backend struct {
	Chain *chain.Chain
	// Preconf holds the block in progress; nil when nothing is pre-confirmed (serve mode).
	Preconf *preconf.Preconf
	// Pool takes eth_sendRawTransaction's transactions.
	Pool *txpool.Pool
	// Sequencer drives dev_preconfirm and dev_seal; nil outside the dev chain.
	Sequencer *sequencer.Sequencer
	// Logs is the log index behind eth_getLogs; nil makes every query scan header blooms and
	// receipts.
	Logs *logs.Index
	// Filters bounds the polling filters of the node, shared by both endpoints; nil gives
	// each API its own, of DefaultFiltersMax.
	Filters *FilterSlots
	// EVM bounds the EVM work of eth_call, eth_estimateGas and eth_simulateV1, shared by
	// both endpoints; nil gives each API its own, of GOMAXPROCS running and
	// exec.DefaultEVMQueue waiting.
	EVM *exec.Limiter
	// Forward, when set, takes the signed transactions of eth_sendRawTransaction and its
	// Sync variant instead of Pool (a replica's sequencer; forward.go).
	Forward Forwarder
}

// API serves one endpoint. It is safe for concurrent use.
type API struct {
	cfg    Config
	chain  *chain.Chain
	config *params.ChainConfig
	pre    *preconf.Preconf
	pool   *txpool.Pool
	seq    *sequencer.Sequencer
	index  *logs.Index
	evm    *exec.Limiter
	fwd    Forwarder // nil: transactions go to pool
	log    *slog.Logger
	fork   *chain.Fork // fork mode: the upstream's blocks and state (fork.go); nil otherwise

	blocks    blockCache
	headState headState
	simBases  *recent.List[any, *simulate.Base] // prepared eth_simulateV1 bases (simbase.go)
	streams   *streams                          // subscriptions and sync-send waits (streams.go)
	filters   *filterTable                      // polling filters (filters.go)
}

// New returns the API of one endpoint.
func New(cfg Config, b Backend) *API {
	if cfg.LogsMaxResults == 0 {
		cfg.LogsMaxResults = DefaultLogsMaxResult
	}
	if cfg.LogsMaxRange == 0 {
		cfg.LogsMaxRange = DefaultLogsMaxRange
	}
	if cfg.LogsTimeout == 0 {
		cfg.LogsTimeout = DefaultLogsTimeout
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	evm := b.EVM
	if evm == nil {
		evm = exec.NewLimiter(0, exec.DefaultEVMQueue)
	}
	a := &API{cfg: cfg, chain: b.Chain, config: b.Chain.Config(), pre: b.Preconf, pool: b.Pool, seq: b.Sequencer, index: b.Logs, evm: evm, log: logger, fwd: b.Forward, simBases: newSimBases(), fork: b.Chain.Fork()}
	a.filters = newFilterTable(cfg, b.Filters)
	a.startStreams(b)
	return a
}

// Service returns the endpoint's method table.
func (a *API) Service() rpc.Service {
	m := map[string]rpc.Method{
		"web3_clientVersion":         a.clientVersion,
		"web3_sha3":                  a.sha3,
		"net_version":                a.netVersion,
		"net_listening":              a.netListening,
		"net_peerCount":              a.netPeerCount,
		"eth_chainId":                a.chainID,
		"eth_syncing":                a.syncing,
		"eth_accounts":               a.accounts,
		"eth_getTransactionByHash":   a.getTransactionByHash, // reads the pool, then its view
		"eth_call":                   a.call,                 // these three load their view
		"eth_estimateGas":            a.estimateGas,          // where they resolve the block
		"eth_sendRawTransaction":     a.sendRawTransaction,
		"eth_sendRawTransactionSync": a.sendRawTransactionSync,
	}
	for name, fn := range map[string]viewMethod{
		"eth_blockNumber":                         a.blockNumber,
		"eth_gasPrice":                            a.gasPrice,
		"eth_maxPriorityFeePerGas":                a.maxPriorityFeePerGas,
		"eth_feeHistory":                          a.feeHistory,
		"eth_blobBaseFee":                         a.blobBaseFee,
		"eth_getBlockByNumber":                    a.getBlockByNumber,
		"eth_getBlockByHash":                      a.getBlockByHash,
		"eth_getBlockTransactionCountByNumber":    a.getBlockTransactionCountByNumber,
		"eth_getBlockTransactionCountByHash":      a.getBlockTransactionCountByHash,
		"eth_getUncleCountByBlockNumber":          a.getUncleCountByBlockNumber,
		"eth_getUncleCountByBlockHash":            a.getUncleCountByBlockHash,
		"eth_getTransactionByBlockNumberAndIndex": a.getTransactionByBlockNumberAndIndex,
		"eth_getTransactionByBlockHashAndIndex":   a.getTransactionByBlockHashAndIndex,
		"eth_getTransactionReceipt":               a.getTransactionReceipt,
		"eth_getBlockReceipts":                    a.getBlockReceipts,
		"eth_getBalance":                          a.getBalance,
		"eth_getTransactionCount":                 a.getTransactionCount,
		"eth_getCode":                             a.getCode,
		"eth_getStorageAt":                        a.getStorageAt,
		"eth_getLogs":                             a.getLogs,
	} {
		m[name] = a.withView(fn)
	}
	if a.cfg.Pending {
		m["eth_simulateV1"] = a.simulateV1
	}
	a.addSurface(m) // surface.go
	if a.cfg.Dev && a.seq != nil {
		m["dev_preconfirm"] = a.devPreconfirm
		m["dev_seal"] = a.devSeal
		if a.config.IsOptimism() {
			m["dev_deposit"] = a.devDeposit // deposit.go
		}
	}
	if a.fork != nil {
		a.routeFork(m)
	}
	if a.cfg.Extend != nil {
		a.cfg.Extend(m)
	}
	kinds := map[string]rpc.SubscribeFunc{}
	a.streams.register(kinds)
	return rpc.Service{Methods: m, Subscriptions: kinds}
}

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
	// Upstream, when set, is the upstream chain Chain continues (fork mode, internal/fork):
	// every method is routed through it by what it reads (reads.go).
	Upstream Upstream
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
	index  *logs.Index
	evm    *exec.Limiter
	fwd    Forwarder // nil: transactions go to pool
	log    *slog.Logger
	up     Upstream // fork mode: Backend.Upstream (reads.go, fork.go); nil otherwise

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
	a := &API{cfg: cfg, chain: b.Chain, config: b.Chain.Config(), pre: b.Preconf, pool: b.Pool, index: b.Logs, evm: evm, log: logger, fwd: b.Forward, simBases: newSimBases(), up: b.Upstream}
	a.filters = newFilterTable(cfg, b.Filters)
	a.startStreams(b)
	return a
}

// Service returns the endpoint's method table. Every method is registered with what it reads
// (reads.go), by which Backend.Upstream routes it.
func (a *API) Service() rpc.Service {
	m := map[string]method{
		"web3_clientVersion":         {a.clientVersion, noChainData},
		"web3_sha3":                  {a.sha3, noChainData},
		"net_version":                {a.netVersion, noChainData},
		"net_listening":              {a.netListening, noChainData},
		"net_peerCount":              {a.netPeerCount, noChainData},
		"eth_chainId":                {a.chainID, noChainData},
		"eth_syncing":                {a.syncing, readsHead},
		"eth_accounts":               {a.accounts, noChainData},
		"eth_getTransactionByHash":   {a.getTransactionByHash, txAt(0)}, // reads the pool, then its view
		"eth_call":                   {a.call, stateAt(1)},              // these three load their view
		"eth_estimateGas":            {a.estimateGas, stateAt(1)},       // where they resolve the block
		"eth_sendRawTransaction":     {a.sendRawTransaction, noChainData},
		"eth_sendRawTransactionSync": {a.sendRawTransactionSync, noChainData},
	}
	for name, e := range map[string]viewEntry{
		"eth_blockNumber":                         {a.blockNumber, readsHead},
		"eth_gasPrice":                            {a.gasPrice, readsHead},
		"eth_maxPriorityFeePerGas":                {a.maxPriorityFeePerGas, readsHead},
		"eth_feeHistory":                          {a.feeHistory, blockNumberAt(1)},
		"eth_blobBaseFee":                         {a.blobBaseFee, readsHead},
		"eth_getBlockByNumber":                    {a.getBlockByNumber, blockNumberAt(0)},
		"eth_getBlockByHash":                      {a.getBlockByHash, blockHashAt(0)},
		"eth_getBlockTransactionCountByNumber":    {a.getBlockTransactionCountByNumber, blockNumberAt(0)},
		"eth_getBlockTransactionCountByHash":      {a.getBlockTransactionCountByHash, blockHashAt(0)},
		"eth_getUncleCountByBlockNumber":          {a.getUncleCountByBlockNumber, blockNumberAt(0)},
		"eth_getUncleCountByBlockHash":            {a.getUncleCountByBlockHash, blockHashAt(0)},
		"eth_getTransactionByBlockNumberAndIndex": {a.getTransactionByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getTransactionByBlockHashAndIndex":   {a.getTransactionByBlockHashAndIndex, blockHashAt(0)},
		"eth_getTransactionReceipt":               {a.getTransactionReceipt, txAt(0)},
		"eth_getBlockReceipts":                    {a.getBlockReceipts, blockAt(0)},
		"eth_getBalance":                          {a.getBalance, stateAt(1)},
		"eth_getTransactionCount":                 {a.getTransactionCount, stateAt(1)},
		"eth_getCode":                             {a.getCode, stateAt(1)},
		"eth_getStorageAt":                        {a.getStorageAt, stateAt(2)},
		"eth_getLogs":                             {a.getLogs, readsLogs},
	} {
		m[name] = method{a.withView(e.fn), e.reads}
	}
	if a.cfg.Pending {
		m["eth_simulateV1"] = method{a.simulateV1, stateAt(1)}
	}
	a.addSurface(m) // surface.go
	table := make(map[string]rpc.Method, len(m))
	for name, e := range m {
		table[name] = e.fn
		if a.up != nil {
			table[name] = a.up.Route(name, e.reads, e.fn, a.txLocal)
		}
	}
	if a.cfg.Extend != nil {
		a.cfg.Extend(table)
	}
	kinds := map[string]rpc.SubscribeFunc{}
	a.streams.register(kinds)
	return rpc.Service{Methods: table, Subscriptions: kinds}
}

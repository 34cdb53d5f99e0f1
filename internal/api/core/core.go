package core

import (
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/exec"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Config is what the concerns of one endpoint share of its configuration (api.Config).
type Config struct {
	// Pending makes this the pre-confirmed endpoint (api.Config.Pending).
	Pending bool
	// GasCap bounds the gas of one execution; zero means unlimited (api.Config.GasCap).
	GasCap uint64
	// EVMTimeout bounds one execution; zero means no limit beyond the request's
	// (api.Config.EVMTimeout).
	EVMTimeout time.Duration
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
}

// Backend is what the concerns of one endpoint read (api.Backend).
type Backend struct {
	Chain *chain.Chain
	// Preconf holds the block in progress; nil when nothing is pre-confirmed (serve mode).
	Preconf *preconf.Preconf
	// Pool holds the transactions waiting to be pre-confirmed; nil on a node without one.
	Pool *txpool.Pool
	// EVM bounds the EVM work of the execution methods; nil gives the endpoint its own, of
	// GOMAXPROCS running and exec.DefaultEVMQueue waiting.
	EVM *exec.Limiter
	// Upstream, when set, is the upstream chain Chain continues (fork mode).
	Upstream Upstream
}

// Core is what every concern of one endpoint shares: the chain and the block in progress it
// reads, the request's view (view.go), block resolution and state reads against it
// (resolve.go, headstate.go), the pre-encoded blocks, transactions and receipts both the
// reads and the events answer with (blockjson.go, txjson.go), the tip suggestion (tip.go) and
// the fork seam (fork.go). Each concern's API embeds the endpoint's one *Core. The exported
// fields are set by New and never modified; a Core is safe for concurrent use.
type Core struct {
	Pending     bool
	GasCap      uint64
	EVMTimeout  time.Duration
	Chain       *chain.Chain
	ChainConfig *params.ChainConfig
	Pre         *preconf.Preconf // nil in serve mode
	Pool        *txpool.Pool     // nil on a node without a pool
	EVM         *exec.Limiter
	Up          Upstream // fork mode: Backend.Upstream (fork.go); nil otherwise
	Log         *slog.Logger

	blocks    blockCache
	headState headState
}

// New returns the shared part of one endpoint over b.
func New(cfg Config, b Backend) *Core {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	evm := b.EVM
	if evm == nil {
		evm = exec.NewLimiter(0, exec.DefaultEVMQueue)
	}
	return &Core{Pending: cfg.Pending, GasCap: cfg.GasCap, EVMTimeout: cfg.EVMTimeout, Chain: b.Chain, ChainConfig: b.Chain.Config(),
		Pre: b.Preconf, Pool: b.Pool, EVM: evm, Up: b.Upstream, Log: logger}
}

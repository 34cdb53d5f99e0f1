package node

import (
	"log/slog"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/api"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/rpc"
	"github.com/flashrpc/flashrpc/internal/txpool"
)

// Server is the configuration every mode shares: where the chain lives, the two endpoints,
// their limits and the operations listener.
type Server struct {
	// DataDir is the chain's directory; "" means a temporary one, removed on Close.
	DataDir string
	// HTTPAddr is the interface both endpoints listen on; HTTPPort and PreconfPort are the
	// standard and pre-confirmed endpoints' ports (0: any free one).
	HTTPAddr    string
	HTTPPort    int
	PreconfPort int
	// DBCacheMB is the chain database's block cache in MB (0: the chain's default).
	DBCacheMB int
	// StateCacheMB is the memory for caching state, off the Go heap (chain.Config.StateCacheMB;
	// 0: go-ethereum's default).
	StateCacheMB int
	// StateScheme is how a chain with its own state stores it (chain.Config.StateScheme):
	// chain.SchemeHash (archive) or chain.SchemePath; "" means the datadir's, hash for a new
	// one. Dev and follow with local state use it; a fork and a remote-state replica are hash
	// only, serve and import take the datadir's.
	StateScheme string
	// StateHistory is how many recent blocks keep their state history under the path scheme
	// (chain.Config.StateHistory): nil means chain.DefaultStateHistory, 0 every block.
	StateHistory *uint64
	// LogsIndex keeps the log index behind eth_getLogs; false makes every query scan.
	LogsIndex bool
	// RPC holds each endpoint's transport limits; Logger, Observer and Pages are the node's
	// (per endpoint) and are ignored here.
	RPC rpc.Config
	// API holds both endpoints' API settings; Pending, Logger, Dev and Extend are the node's
	// and are ignored here.
	API api.Config
	// TxPool configures the transaction pool.
	TxPool txpool.Config
	// EVMConcurrency and EVMQueue bound the EVM requests running and waiting, both endpoints
	// together; FiltersMax the polling filters the node keeps.
	EVMConcurrency int
	EVMQueue       int
	FiltersMax     int
	// Metrics is the host:port of the metrics listener (GET /metrics); "" means no metrics.
	Metrics string
	// PProf also serves Go's profiler on the metrics listener.
	PProf bool
	// Logger receives the node's log lines; nil discards them.
	Logger *slog.Logger
}

// Feed configures the flashblocks feed a node publishes (the dev sequencer's
// pre-confirmations, or a replica's verified feed).
type Feed struct {
	// Addr and Port are where the feed listens; Port 0 picks a free port, -1 means no feed.
	Addr string
	Port int
	// Brotli sends brotli-compressed binary frames instead of JSON text frames.
	Brotli bool
	// Format is the wire format the dev sequencer's pre-confirmations are published in
	// (sequencer.FeedPayload): Base's, with roots (the zero value), or OP's subblocks. A
	// replica republishes each flashblock as it came, in its upstream's format.
	Format flashblocks.Format
}

// Fork names the upstream a dev chain continues (anvil's fork mode).
type Fork struct {
	// URL is the upstream's JSON-RPC URL; "" means no fork.
	URL string
	// Block is the upstream block to fork: nil means its latest, a negative value that many
	// blocks before it.
	Block *int64
	// UpstreamChainID, when set, is the upstream's chain id, taken without asking it.
	UpstreamChainID uint64
	// Retries and Backoff configure the retries of a failed upstream request.
	Retries int
	Backoff time.Duration
	// NoCache keeps what is read from the upstream in memory only.
	NoCache bool
	// Network is fork.Config.Network: it must name a known upstream's network, and names the
	// rules of an upstream whose chain id is no network's.
	Network string
}

// Explicit says which of a dev chain's settings were stated explicitly (on the command
// line): only those can conflict with a chain the data directory holds, or replace a fork's.
type Explicit struct {
	ChainType, ChainID, GasLimit, L1BaseFee, L1BlobBaseFee, Accounts bool
	// BlockTime and PreconfInterval: a chain that runs Denim seals every 200 ms and
	// pre-confirms nothing unless they were given (an interval given is refused); one named
	// after another network has the network's cadence unless they were given.
	BlockTime, PreconfInterval bool
	// FeedFormat: a chain named after a network publishes in the network's feed format unless
	// Feed.Format was given.
	FeedFormat bool
}

// DevConfig configures a dev node: its own sequencer on a new, stored or forked chain.
type DevConfig struct {
	Server
	// Feed publishes every pre-confirmation.
	Feed Feed
	// ChainType, ChainID and GasLimit shape a new chain (ChainType "": OP Stack; GasLimit 0:
	// the chain type's default). A stored chain keeps its own; one Explicit marks that contradicts it is an
	// error. With a fork, ChainID 0 means the upstream's, and an explicit ChainType selects
	// the rules of an upstream flashrpc does not know.
	ChainType networks.Kind
	ChainID   uint64
	GasLimit  uint64
	// Network names the network (networks.LookupName) whose rules a new chain runs as of its
	// creation (networks.Network.RulesAsOf), with its genesis gas limit unless GasLimit is set;
	// ChainType must then be the network's or empty. The network's block time,
	// pre-confirmation interval and feed format replace those not Explicit. With a fork it is
	// Fork.Network's default. "" runs the chain type's dev rules. A stored chain must be of
	// the network's kind.
	Network string
	// L1BaseFee and L1BlobBaseFee are the dev L1's fees of an OP Stack chain (nil: the
	// oprollup defaults; explicit on an Ethereum chain: an error); on a fork they replace the
	// fork block's only when explicit.
	L1BaseFee     *big.Int
	L1BlobBaseFee *big.Int
	// Explicit marks the settings above (and Accounts/Mnemonic) that were stated.
	Explicit Explicit
	// Accounts dev accounts are derived from Mnemonic ("": the well-known test mnemonic)
	// and funded.
	Accounts int
	Mnemonic string
	// BlockTime and PreconfInterval drive the sequencer's timer; 0 means only on request. A
	// chain that runs Denim (Base's networks) has no pre-confirmations: PreconfInterval must be
	// 0 there, and BlockTime is 200 ms unless Explicit.BlockTime.
	BlockTime       time.Duration
	PreconfInterval time.Duration
	// Fork, with a URL, makes the chain a fork of that upstream.
	Fork Fork
	// NoCodeSizeLimit lifts EIP-170's and EIP-3860's code-size limits on the chain, forked or
	// not (chain.Config.NoCodeSizeLimit; anvil's --disable-code-size-limit).
	NoCodeSizeLimit bool

	network *networks.Network   // Network's, resolved by StartDev
	rules   *params.ChainConfig // a new chain's rules as of now, with Network
	denim   *uint64             // a new chain's Denim time (Network's as of now), then the chain's
	omits   []networks.Fork     // the forks of Network a new chain runs without (networks.Network.LocalOmits)
}

// FollowConfig configures a replica of another sequencer.
type FollowConfig struct {
	Server
	// Feed republishes the verified flashblocks.
	Feed Feed
	// Upstream is the JSON-RPC URL blocks are fetched from; UpstreamWS announces its heads
	// ("": Upstream with the ws scheme; "off": poll only) and Poll is the polling interval.
	Upstream   string
	UpstreamWS string
	Poll       time.Duration
	// FeedURL is the sequencer's flashblocks feed ("": sealed blocks only, `pending` the next
	// block as forecast, as on a chain without pre-confirmations).
	FeedURL string
	// Sequencer takes the forwarded transactions ("": Upstream).
	Sequencer string
	// Genesis is the path of the chain's genesis file; "" means the one DataDir holds.
	Genesis string
	// RemoteState reads the state from the upstream at each sealed block instead of
	// replaying the chain (a remote-state replica).
	RemoteState bool
	// MaxLag is how many blocks the replica may be behind before /health answers 503.
	MaxLag uint64
	// Network names the network whose rules the replica runs (--network): the chain's
	// configuration (its genesis, or a known chain id's network) decides, and Network must
	// agree with it (networks.ForUpstream, networks.Network.Agrees). With RemoteState it is
	// fork.Config.Network.
	Network string
}

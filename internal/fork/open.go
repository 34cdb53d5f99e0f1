package fork

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/consensus/misc/eip4844"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/ethdb"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/triedb"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/remote"
)

// headersBelowFork is how many upstream headers below the fork block are cached at creation:
// as far back as BLOCKHASH reaches.
const headersBelowFork = 256

// forkExtraData marks the blocks a fork writes itself (the first forked block).
const forkExtraData = "flashrpc fork"

// Open opens (or creates) the chain in cfg.DataDir as a fork of the upstream fc names: an empty
// datadir is created from the upstream (cfg.Genesis is ignored), and a datadir that holds a
// fork resumes it. fc may be nil: a datadir that holds a fork resumes it with the stored URL,
// any other opens as a chain of its own. The network I/O of opening (creating the fork,
// checking the upstream on a resume) runs under ctx; ctx is not kept.
func Open(ctx context.Context, cfg chain.Config, fc *Config) (*chain.Chain, error) {
	cfg.OpenUpstream = func(db ethdb.Database, dir string, logger *slog.Logger) (chain.Upstream, error) {
		f, err := open(ctx, db, dir, fc, logger)
		if f == nil || err != nil {
			return nil, err // no typed nil in the interface
		}
		return f, nil
	}
	return chain.Open(cfg)
}

// open opens the fork in db: it creates it when the database is empty, resumes it otherwise.
// fc may be nil for a datadir that holds a fork (it resumes with the stored URL); nil, nil
// when the datadir holds none and fc is nil.
func open(ctx context.Context, db ethdb.Database, dir string, fc *Config, logger *slog.Logger) (*Upstream, error) {
	info, err := readInfo(db)
	if err != nil {
		return nil, fmt.Errorf("open chain: %w", err)
	}
	if info == nil && fc == nil {
		return nil, nil
	}
	if fc == nil {
		fc = &Config{URL: info.URL, Retries: -1, Replica: info.Replica}
		logger.Info("resuming the fork this datadir holds", "url", info.URL, "block", info.Number)
	}
	if info == nil || info.Created == 0 {
		if info == nil && rawdb.ReadCanonicalHash(db, 0) != (common.Hash{}) {
			return nil, fmt.Errorf("fork: %s holds a chain that is not a fork of %s: use another datadir", dir, fc.URL)
		}
		return createFork(ctx, db, fc, info, logger)
	}
	if err := checkResume(fc, info); err != nil {
		return nil, err
	}
	if err := checkStoredRules(db, info); err != nil {
		return nil, err
	}
	f := newFork(db, *info, fc, logger)
	if fc.UpstreamChainID == 0 {
		if err := f.checkUpstream(ctx, firstContactClient(fc, logger)); err != nil {
			return nil, err
		}
	} else {
		why := fc.Offline
		if why == "" {
			why = "--fork-chain-id"
		}
		logger.Info("fork: resuming the stored fork without asking the upstream", "why", why, "url", f.info.URL, "block", info.Number)
	}
	if fc.NoCache && fc.UpstreamChainID == 0 {
		// Nothing was kept: BLOCKHASH's headers are read again.
		if err := f.history.Headers(ctx, headersFrom(info.Number), info.Number-1); err != nil && info.Number > 0 {
			return nil, fmt.Errorf("fork: headers below block %d: %w", info.Number, err)
		}
	}
	return f, nil
}

// checkStoredRules refuses to resume a fork whose stored rules, at its fork block, include a
// fork flashrpc does not run: one written by a flashrpc that ran Karst with Jovian's EVM, or a
// network whose later fork it does not run is active at the fork block.
func checkStoredRules(db ethdb.Database, info *Info) error {
	config := rawdb.ReadChainConfig(db, rawdb.ReadCanonicalHash(db, 0))
	h := rawdb.ReadHeader(db, info.Hash, info.Number)
	if config == nil || h == nil {
		return fmt.Errorf("fork: this datadir lacks its chain configuration or block %d: use another datadir", info.Number)
	}
	if err := networks.CheckRules(config, info.Number, h.Time); err != nil {
		return fmt.Errorf("fork: the fork in this datadir (%s) cannot run: %w (use another datadir)", info.Network, err)
	}
	return nil
}

// checkResume refuses flags that contradict the fork a datadir holds.
func checkResume(fc *Config, info *Info) error {
	if fc.Block != nil && *fc.Block >= 0 && uint64(*fc.Block) != info.Number {
		return fmt.Errorf("fork: this datadir forked block %d of %s, not block %d (use another datadir, or leave out --fork-block-number)", info.Number, info.URL, *fc.Block)
	}
	if fc.UpstreamChainID != 0 && fc.UpstreamChainID != info.UpstreamChainID {
		return fmt.Errorf("fork: --fork-chain-id %d, but this datadir forked chain %d", fc.UpstreamChainID, info.UpstreamChainID)
	}
	if fc.Kind != "" && string(fc.Kind) != info.Kind {
		return fmt.Errorf("fork: --chain-type %s, but this datadir's fork of %s runs %s rules (%s)", fc.Kind, info.URL, kindName(info.Kind), info.Network)
	}
	if fc.Replica != info.Replica {
		what := "a dev fork"
		if info.Replica {
			what = "a remote-state replica"
		}
		return fmt.Errorf("fork: this datadir holds %s of %s; use another datadir", what, info.URL)
	}
	if fc.ChainID != 0 && fc.ChainID != info.ChainID {
		return fmt.Errorf("fork: --chain-id %d, but this datadir's fork runs chain id %d", fc.ChainID, info.ChainID)
	}
	return nil
}

// namedNetwork returns the network fc.Network names for an upstream with chain id upID and
// block 0 hash genesis, and whether its rules as of now replace the upstream's kind's: the
// upstream's chain id is no network's, or it is a local chain that took a live network's
// chain id (networks.IsLocalChain), whose default network is the one of that chain id. A name
// that disagrees with a known upstream, or contradicts --chain-type, is refused.
func namedNetwork(fc *Config, upID uint64, genesis common.Hash) (networks.Network, bool, error) {
	if networks.IsLocalChain(upID, genesis) {
		n, _ := networks.Lookup(upID)
		if fc.Network != "" {
			var ok bool
			if n, ok = networks.LookupName(fc.Network); !ok {
				return n, false, fmt.Errorf("fork: %w", networks.UnknownNameError(fc.Network))
			}
		}
		if fc.Kind != "" && fc.Kind != n.Kind {
			return n, false, fmt.Errorf("fork: --chain-type %s contradicts --network %s, an %s chain", fc.Kind, n.ID, kindName(string(n.Kind)))
		}
		return n, true, nil
	}
	if fc.Network == "" {
		return networks.Network{}, false, nil
	}
	n, _, err := networks.ForUpstream(upID, fc.Network)
	if err != nil {
		return n, false, fmt.Errorf("fork: %w", err)
	}
	if fc.Kind != "" && fc.Kind != n.Kind {
		return n, false, fmt.Errorf("fork: --chain-type %s contradicts --network %s, an %s chain", fc.Kind, n.ID, kindName(string(n.Kind)))
	}
	_, upKnown := networks.Lookup(upID)
	return n, !upKnown, nil
}

func kindName(kind string) string {
	if kind == string(networks.OPStack) {
		return "OP Stack"
	}
	return "Ethereum"
}

func headersFrom(n uint64) uint64 {
	if n < headersBelowFork {
		return 0
	}
	return n - headersBelowFork
}

// createFork writes a new fork into db: the fork record (incomplete), block N whole with the
// upstream's root node of its state when the upstream proves it, the 256 headers below N, and
// the first forked block N+1, which funds cfg.Funded; then, in one last batch, the genesis
// stand-in, the chain configuration, the canonical hashes and head markers, and the fork record
// marked complete. A creation cut short leaves an incomplete record and no canonical block 0,
// and the next start creates the fork again.
func createFork(ctx context.Context, db ethdb.Database, fc *Config, prev *Info, logger *slog.Logger) (*Upstream, error) {
	probe := remote.NewClient(remote.Config{URL: fc.URL, Retries: fc.Retries, Backoff: fc.Backoff, Timeout: fc.Timeout, Observer: fc.Observer, Logger: logger})
	upID := fc.UpstreamChainID
	if upID == 0 {
		id, err := firstContact(ctx, fc, logger)
		if err != nil {
			return nil, err
		}
		upID = id
	}
	number, err := forkNumber(ctx, probe, fc.Block)
	if err != nil {
		return nil, err
	}
	bN, err := probe.BlockByNumber(ctx, number)
	if err != nil {
		return nil, fmt.Errorf("fork: block %d: %w", number, err)
	}
	h0, err := probe.HeaderByNumber(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("fork: block 0: %w", err)
	}
	chainID := fc.ChainID
	if chainID == 0 {
		chainID = upID
	}
	kind := fc.Kind
	named, namesRules, err := namedNetwork(fc, upID, h0.Hash())
	if err != nil {
		return nil, err
	}
	if namesRules {
		kind = named.Kind
	}
	if kind == "" {
		kind = forkKind(upID, bN) // op.go
		if kind == "" && fc.Replica {
			if kind, err = replicaKind(ctx, probe, upID, number); err != nil {
				return nil, err
			}
		}
	}
	// Forks scheduled after N are turned off for a dev fork, whose local blocks carry wall-clock
	// times; a replica's blocks are the upstream's and keep its schedule.
	ruleNumber, ruleTime := number, bN.Time()
	if fc.Replica {
		ruleNumber, ruleTime = math.MaxUint64, math.MaxUint64
	}
	config, network, err := networks.ForkRules(upID, chainID, kind, ruleNumber, ruleTime)
	if err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	if namesRules {
		// A local upstream run with a network's rules: the fork runs them as of now.
		now := time.Now()
		if config, err = named.LocalRules(chainID, uint64(now.Unix())); err != nil {
			return nil, fmt.Errorf("fork: %w", err)
		}
		network = named
		network.Name = fmt.Sprintf("%s's rules as of %s", named.Name, now.UTC().Format(time.DateOnly))
		if networks.IsLocalChain(upID, h0.Hash()) {
			network.Name += fmt.Sprintf(" (a local chain with %s's chain id %d)", named.Name, upID)
		}
	}
	// No silent divergence: a fork (or replica) of a block at which the network runs a fork
	// flashrpc does not is refused, before anything is written. Rules as of now were checked
	// by LocalRules: their configuration says the rest.
	check := network.CheckRules
	if namesRules {
		check = func(number, time uint64) error { return networks.CheckRules(config, number, time) }
	}
	if err := check(number, bN.Time()); err != nil {
		return nil, fmt.Errorf("fork: %s: %w", network.Name, err)
	}
	denim := forkDenim(network, namesRules, uint64(time.Now().Unix()), fc.Replica, bN) // denim.go
	checkBlock := checkForkBlock
	if fc.Replica {
		checkBlock = checkReplicaBlock // replica.go: no local block continues N
	}
	if err := checkBlock(config, network, bN); err != nil {
		return nil, fmt.Errorf("fork: %w", err)
	}
	info := Info{
		URL: fc.URL, UpstreamChainID: upID, ChainID: chainID, Number: number, Hash: bN.Hash(),
		GenesisHash: h0.Hash(), Network: network.Name + " (" + network.Source + ")", Kind: string(network.Kind),
		Replica: fc.Replica,
	}
	f := newFork(db, info, fc, logger)
	f.denim = denim
	if prev != nil {
		// An earlier creation was cut short: drop what it recorded for block N+1.
		if err := f.rec.dropAbove(number); err != nil {
			return nil, err
		}
	}
	if err := f.saveInfo(db); err != nil { // incomplete (Created 0)
		return nil, err
	}
	batch := db.NewBatch()
	rawdb.WriteBlock(batch, bN)
	if err := batch.Write(); err != nil {
		return nil, err
	}
	// The upstream's root node of N under its hash makes BlockChain.HasState(N.Root) true, so
	// the chain can rewind to N itself (and BlockChain's checks of N as a parent pass).
	if node, err := probe.RootNode(ctx, number, bN.Root()); err == nil {
		rawdb.WriteLegacyTrieNode(db, bN.Root(), node)
		f.info.RootNode = true
	} else if fc.Replica {
		return nil, fmt.Errorf("fork: a remote-state replica needs an upstream that proves its state roots (eth_getProof): %w", err)
	} else {
		logger.Info("fork: the upstream does not prove its state root; the chain cannot be rewound below the first forked block", "reason", err)
	}
	if number > 0 {
		if err := f.history.Headers(ctx, headersFrom(number), number-1); err != nil {
			return nil, fmt.Errorf("fork: headers below block %d: %w", number, err)
		}
	}
	first := bN // a replica's head is N: the blocks after it are the upstream's
	if !fc.Replica {
		if first, err = f.writeFirstBlock(ctx, bN, config, fc); err != nil {
			return nil, fmt.Errorf("fork: first forked block: %w", err)
		}
	}
	genesis := genesisStandIn(h0)
	f.info.Created = time.Now().Unix()
	batch = db.NewBatch()
	rawdb.WriteBlock(batch, genesis)
	rawdb.WriteCanonicalHash(batch, genesis.Hash(), 0)
	rawdb.WriteChainConfig(batch, genesis.Hash(), config)
	rawdb.WriteCanonicalHash(batch, bN.Hash(), number)
	rawdb.WriteCanonicalHash(batch, first.Hash(), first.NumberU64())
	if first != bN { // N's transactions are the upstream's (asked there, with its receipts)
		rawdb.WriteTxLookupEntriesByBlock(batch, first)
	}
	rawdb.WriteHeadHeaderHash(batch, first.Hash())
	rawdb.WriteHeadFastBlockHash(batch, first.Hash())
	rawdb.WriteHeadBlockHash(batch, first.Hash())
	// Local blocks get their transaction lookup entries as they become the head; the tail
	// tells go-ethereum's indexer that there is nothing below to index (it would otherwise
	// walk every number down to 0).
	rawdb.WriteTxIndexTail(batch, 0)
	if err := chain.StoreDenim(batch, denim); err != nil {
		return nil, err
	}
	if err := f.putInfo(batch); err != nil {
		return nil, err
	}
	if err := batch.Write(); err != nil {
		return nil, err
	}
	if err := db.SyncKeyValue(); err != nil {
		return nil, err
	}
	logger.Info("fork created", "url", fc.URL, "chain", upID, "block", number, "hash", bN.Hash(), "rules", info.Network, "denim", denimString(denim), "requests", probe.Stats().Requests)
	return f, nil
}

// First contact with the upstream at start: few, short attempts, so that an upstream that is
// down or mistyped fails the start within seconds; the requests after it retry as configured.
const (
	firstContactRetries = 2
	firstContactBackoff = 500 * time.Millisecond
	firstContactTimeout = 5 * time.Second
)

// firstContactClient is the client of the first request to the upstream: at most
// firstContactRetries retries (fewer when fc has fewer), each failure logged as it happens.
func firstContactClient(fc *Config, logger *slog.Logger) *remote.Client {
	retries := firstContactRetries
	if fc.Retries >= 0 && fc.Retries < retries {
		retries = fc.Retries
	}
	backoff := firstContactBackoff
	if fc.Backoff > 0 && fc.Backoff < backoff {
		backoff = fc.Backoff
	}
	timeout := firstContactTimeout
	if fc.Timeout > 0 && fc.Timeout < timeout {
		timeout = fc.Timeout
	}
	return remote.NewClient(remote.Config{URL: fc.URL, Retries: retries, Backoff: backoff, Timeout: timeout, Observer: fc.Observer, Logger: logger})
}

// firstContact asks the upstream its chain id (firstContactClient).
func firstContact(ctx context.Context, fc *Config, logger *slog.Logger) (uint64, error) {
	id, err := firstContactClient(fc, logger).ChainID(ctx)
	if err != nil {
		return 0, fmt.Errorf("fork: cannot reach the upstream: %w", err)
	}
	return id, nil
}

// forkNumber resolves --fork-block-number against the upstream: nil is its latest block, a
// negative value that many blocks before it.
func forkNumber(ctx context.Context, c *remote.Client, block *int64) (uint64, error) {
	if block != nil && *block >= 0 {
		return uint64(*block), nil
	}
	latest, err := c.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("fork: cannot reach the upstream: %w", err)
	}
	if block == nil {
		return latest, nil
	}
	back := uint64(-*block)
	if back > latest {
		return 0, fmt.Errorf("fork: --fork-block-number %d reaches before block 0 (the upstream's latest is %d)", *block, latest)
	}
	return latest - back, nil
}

// genesisStandIn returns the block 0 the fork's database holds: the upstream's block 0 header,
// except on the Ethereum networks whose genesis go-ethereum maps to its built-in configuration
// (which would replace the fork's own rules when the chain opens): there a copy with marked
// extra data. The API answers block 0 from the upstream either way.
func genesisStandIn(h0 *types.Header) *types.Block {
	switch h0.Hash() {
	case params.MainnetGenesisHash, params.SepoliaGenesisHash, params.HoleskyGenesisHash, params.HoodiGenesisHash:
		h := types.CopyHeader(h0)
		h.Extra = []byte(forkExtraData + " genesis stand-in")
		return types.NewBlockWithHeader(h)
	}
	return types.NewBlockWithHeader(h0)
}

func (f *Upstream) saveInfo(db ethdb.KeyValueWriter) error {
	return f.putInfo(db)
}

func (f *Upstream) putInfo(w ethdb.KeyValueWriter) error {
	blob, err := json.Marshal(f.info)
	if err != nil {
		return err
	}
	return w.Put(append([]byte(forkPrefix), forkMetaKey...), blob)
}

// writeFirstBlock builds and writes block N+1 on the upstream's state at N: the protocol's
// pre-execution system calls, no transactions (on an OP Stack chain only its L1-attributes
// deposit, op.go), and the funded accounts' balances set as a genesis allocation would
// set them. It cannot be re-executed, so it is written, not inserted.
func (f *Upstream) writeFirstBlock(ctx context.Context, bN *types.Block, config *params.ChainConfig, fc *Config) (*types.Block, error) {
	parent := bN.Header()
	tdb := triedb.NewDatabase(f.db, triedb.HashDefaults)
	defer tdb.Close()
	// The fork's readers read this trie database until the BlockChain exists (Start).
	f.readers = newForkReaders()
	f.sdb = &stateDB{CachingDB: state.NewDatabase(tdb, state.NewCodeDB(f.db)), f: f}
	f.setRoot(types.EmptyRootHash, parent.Number.Uint64())
	cc := &creationContext{config: config, engine: chain.NewEngine(), parent: parent, fork: f}
	number := new(big.Int).Add(parent.Number, common.Big1)
	op := config.IsOptimism()
	var denim *uint64
	if op {
		denim = f.denim
	}
	// After a Denim block N: Tms(N) + 200 (five blocks share a second); else the clock.
	next, err := oprollup.NextDenimBlock(config, denim, parent, bN.Transactions(), max(uint64(time.Now().Unix()), parent.Time+1))
	if err != nil {
		return nil, err
	}
	t := next.Time
	header := &types.Header{
		ParentHash: parent.Hash(),
		Number:     number,
		GasLimit:   parent.GasLimit,
		Time:       t,
		Difficulty: new(big.Int),
		Extra:      []byte(forkExtraData),
		BaseFee:    eip1559.CalcBaseFee(config, parent, t),
	}
	// What the block reads, in one go: the system contracts (and their queues' head slots),
	// the fee recipient and the funded accounts.
	accounts := append([]common.Address{{}, params.BeaconRootsAddress, params.HistoryStorageAddress, params.WithdrawalQueueAddress, params.ConsolidationQueueAddress}, fc.Funded...)
	var slots []remote.SlotKey
	for _, q := range []common.Address{params.WithdrawalQueueAddress, params.ConsolidationQueueAddress} {
		for i := int64(0); i < 4; i++ {
			slots = append(slots, remote.SlotKey{Addr: q, Slot: common.BigToHash(big.NewInt(i))})
		}
	}
	var opening types.Transactions // an OP Stack block's deposits
	if op {
		l1, err := forkL1(bN)
		if err != nil {
			return nil, err
		}
		info := l1.Info(bN.Transactions(), t)
		opening = types.Transactions{info.DepositTx()}
		header.Coinbase, header.MixDigest = parent.Coinbase, info.Hash
		header.Extra = l1.ExtraData(config, t)
		accounts, slots = opFirstBlockReads()
		accounts = append(append(accounts, parent.Coinbase), fc.Funded...)
		if next.On {
			header.GasLimit, header.Extra = next.GasLimit, next.Extra
			opening = append(opening, oprollup.BaseTimeDeposit(number.Uint64(), next.Part))
			accounts, slots = append(accounts, baseTimeReads()...), append(slots, baseTimeSlots()...)
		}
	}
	if err := f.up.Fetch(ctx, accounts, slots); err != nil {
		return nil, err
	}
	st, err := f.forkBlockState(parent, config, number.Uint64(), t)
	if err != nil {
		return nil, err
	}
	if config.IsCancun(number, t) {
		excess := eip4844.CalcExcessBlobGas(config, parent, t)
		header.ExcessBlobGas, header.BlobGasUsed = &excess, new(uint64)
		header.ParentBeaconRoot = new(common.Hash)
	}
	evm := vm.NewEVM(core.NewEVMBlockContext(header, cc, nil, config, st), st, config, oprollup.VMConfig(config, vm.Config{}))
	if header.ParentBeaconRoot != nil {
		core.ProcessBeaconBlockRoot(*header.ParentBeaconRoot, evm)
	}
	if config.IsPrague(number, t) {
		core.ProcessParentBlockHash(parent.Hash(), evm)
	}
	if err := chain.EnsureBaseTime(denim, t, st); err != nil {
		return nil, err
	}
	body := &types.Body{}
	var receipts types.Receipts
	if len(opening) > 0 {
		if receipts, err = applyOpening(config, header, st, evm, opening); err != nil {
			return nil, err
		}
		body.Transactions = opening
	}
	switch {
	case config.IsIsthmus(t): // OP Stack chains have no execution layer requests
		header.RequestsHash = &types.EmptyRequestsHash
	case config.IsPrague(number, t):
		requests := [][]byte{}
		if err := core.ProcessWithdrawalQueue(&requests, evm); err != nil {
			return nil, err
		}
		if err := core.ProcessConsolidationQueue(&requests, evm); err != nil {
			return nil, err
		}
		h := types.CalcRequestsHash(requests)
		header.RequestsHash = &h
	}
	// The fee recipient's account is read by every block: read it now (it is cached), so that
	// sealing never waits for the upstream.
	st.GetBalance(header.Coinbase)
	if fc.Balance != nil {
		balance := uint256.MustFromBig(fc.Balance)
		for _, addr := range fc.Funded {
			st.SetBalance(addr, balance, tracing.BalanceChangeUnspecified)
		}
	}
	if err := st.Error(); err != nil {
		return nil, err
	}
	if config.IsShanghai(number, t) {
		body.Withdrawals = types.Withdrawals{}
	}
	block, err := cc.engine.FinalizeAndAssemble(ctx, cc, header, st, body, receipts)
	if err != nil {
		return nil, err
	}
	if err := st.Error(); err != nil {
		return nil, err
	}
	if err := f.write(block, receipts, st, nil, tdb, config.IsCancun(number, t), config.IsEIP158(number)); err != nil {
		return nil, err
	}
	return block, nil
}

// creationContext is the core.ChainContext of the first forked block, before the BlockChain
// exists: block N and the cached upstream headers below it.
type creationContext struct {
	config *params.ChainConfig
	engine consensus.Engine
	parent *types.Header
	fork   *Upstream
}

func (x *creationContext) Config() *params.ChainConfig  { return x.config }
func (x *creationContext) Engine() consensus.Engine     { return x.engine }
func (x *creationContext) CurrentHeader() *types.Header { return x.parent }
func (x *creationContext) GetHeaderByHash(hash common.Hash) *types.Header {
	if hash == x.parent.Hash() {
		return x.parent
	}
	return nil
}
func (x *creationContext) GetHeader(hash common.Hash, number uint64) *types.Header {
	if h := x.GetHeaderByNumber(number); h != nil && h.Hash() == hash {
		return h
	}
	return nil
}
func (x *creationContext) GetHeaderByNumber(number uint64) *types.Header {
	if number == x.parent.Number.Uint64() {
		return x.parent
	}
	return x.fork.history.Header(number)
}

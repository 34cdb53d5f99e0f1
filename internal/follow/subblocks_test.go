package follow

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/flashblocks"
	"github.com/flashrpc/flashrpc/internal/metrics"
	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// echoAddr holds runtime code that emits LOG1(echoTopic) with the call data as data.
var (
	echoTopic = common.Hash{0xec}
	echoAddr  = common.Address{0xec}
	echoCode  = append(append([]byte{0x36, 0x5f, 0x5f, 0x37, 0x7f}, echoTopic[:]...), 0x36, 0x5f, 0xa1, 0x00)
)

// echoGenesis is the OP Stack dev genesis with benchKey funded and the echo contract.
func echoGenesis(t testing.TB) func() *chain.Config {
	return func() *chain.Config {
		addr := crypto.PubkeyToAddress(benchKey.PublicKey)
		g := oprollup.DevGenesis(chain.DefaultChainID, []common.Address{addr}, chain.DevAccountBalance)
		g.Alloc[echoAddr] = types.Account{Code: echoCode}
		return &chain.Config{DataDir: t.TempDir(), Genesis: g}
	}
}

// producer is a sequencer on its own chain of the same genesis: it builds blocks with
// preconf, as the dev sequencer does, and turns each pre-confirmation into a subblock.
type producer struct {
	t     *testing.T
	chain *chain.Chain
	pre   *preconf.Preconf
}

func newProducer(t *testing.T, genesis func() *chain.Config) *producer {
	t.Helper()
	c, err := chain.Open(*genesis())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &producer{t: t, chain: c, pre: preconf.New(c)}
}

// open opens the next block with its L1-attributes deposit and returns its index 0.
func (pr *producer) open() *flashblocks.Payload {
	pr.t.Helper()
	head := pr.chain.Head()
	time := head.Time + 2
	attrs := preconf.NextAttributes(pr.chain.Config(), head, time, oprollup.SequencerFeeVault, oprollup.ExtraData(pr.chain.Config(), time))
	info := (&oprollup.DevL1{GenesisTime: pr.chain.Genesis().Time()}).Info(nil, time)
	attrs.Transactions, attrs.PrevRandao = []*types.Transaction{info.DepositTx()}, info.Hash
	snap, err := pr.pre.Open(context.Background(), attrs, preconf.PublishOptions{})
	if err != nil {
		pr.t.Fatal(err)
	}
	return pr.subblock(snap)
}

// add pre-confirms txs as the next subblock.
func (pr *producer) add(txs ...*types.Transaction) *flashblocks.Payload {
	pr.t.Helper()
	ctx := context.Background()
	b, err := pr.pre.Begin()
	if err != nil {
		pr.t.Fatal(err)
	}
	for _, tx := range txs {
		if err := b.Add(ctx, tx); err != nil {
			pr.t.Fatal(err)
		}
	}
	snap, err := b.Commit(ctx, preconf.PublishOptions{})
	if err != nil {
		pr.t.Fatal(err)
	}
	return pr.subblock(snap)
}

func (pr *producer) subblock(snap *preconf.Snapshot) *flashblocks.Payload {
	pr.t.Helper()
	p, err := flashblocks.Subblock(snap.Block, snap.Receipts, nil, snap.Index, snap.FirstNew)
	if err != nil {
		pr.t.Fatal(err)
	}
	if p.Diff.HasRoots() {
		pr.t.Fatal("a subblock with roots")
	}
	return p
}

func (pr *producer) seal() *types.Block {
	pr.t.Helper()
	b, err := pr.pre.Seal(context.Background())
	if err != nil {
		pr.t.Fatal(err)
	}
	return b
}

// echo signs a call of the echo contract from benchKey with nonce and data.
func echo(t *testing.T, c *chain.Chain, nonce uint64, data string) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(benchKey, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
		ChainID: c.Config().ChainID, Nonce: nonce, To: &echoAddr, Data: []byte(data), Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// watchedReplica is a Follower (not started) with its metrics, log and retractions readable.
type watchedReplica struct {
	*Follower
	reg     *prometheus.Registry
	log     *syncBuffer
	mu      sync.Mutex
	retract []*preconf.Retraction
}

func newWatchedReplica(t *testing.T, genesis func() *chain.Config) *watchedReplica {
	t.Helper()
	return newWatchedReplicaWith(t, genesis, Config{})
}

// newWatchedReplicaWith is newWatchedReplica with cfg's settings (its upstream, logger and
// metrics are the test's).
func newWatchedReplicaWith(t *testing.T, genesis func() *chain.Config, cfg Config) *watchedReplica {
	t.Helper()
	c, err := chain.Open(*genesis())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := &watchedReplica{reg: prometheus.NewRegistry(), log: new(syncBuffer)}
	cfg.Upstream = "http://127.0.0.1:1"
	cfg.Logger = slog.New(slog.NewTextHandler(r.log, nil))
	cfg.Metrics = metrics.NewFollow(r.reg)
	f, err := New(cfg, c, preconf.New(c))
	if err != nil {
		t.Fatal(err)
	}
	r.Follower = f
	f.pre.OnRetract(func(x *preconf.Retraction) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.retract = append(r.retract, x)
	})
	return r
}

// counter returns the value of a follow-mode counter (with the label value, if any).
func (r *watchedReplica) counter(t *testing.T, name, label string) float64 {
	t.Helper()
	mfs, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label == "" || (len(m.GetLabel()) > 0 && m.GetLabel()[0].GetValue() == label) {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no metric %s{%s}", name, label)
	return 0
}

// feed hands each payload to the writer as the feed reader would.
func (r *watchedReplica) feed(ps ...*flashblocks.Payload) {
	for _, p := range ps {
		r.onPayload(context.Background(), received{p: p})
	}
}

// TestSubblocksServedAndSealed follows a subblocks sequence (no roots): each subblock is
// re-executed and served, the last one is the very block the producer seals (same hash,
// computed here), and the next block's index 0, whose parent is that hash, seals it at once.
// Inserting the upstream's block instead seals it too: nothing is retracted or counted.
func TestSubblocksServedAndSealed(t *testing.T) {
	for _, via := range []string{"next index 0", "upstream block"} {
		t.Run(via, func(t *testing.T) {
			g := echoGenesis(t)
			pr := newProducer(t, g)
			r := newWatchedReplica(t, g)
			c := pr.chain
			seq := []*flashblocks.Payload{pr.open(), pr.add(echo(t, c, 0, "a"), echo(t, c, 1, "b")), pr.add(echo(t, c, 2, "c"))}
			for i, p := range seq {
				r.feed(p)
				last := r.pre.Last()
				if last == nil || last.Index != i {
					t.Fatalf("subblock %d not served (log:\n%s)", i, r.log)
				}
				if got, want := len(last.Block.Transactions()), []int{1, 3, 4}[i]; got != want {
					t.Fatalf("subblock %d: %d transactions served, want %d", i, got, want)
				}
			}
			if logs := r.pre.Last().Logs(); len(logs) != 3 || string(logs[2].Data) != "c" {
				t.Fatalf("pre-confirmed logs %v", logs)
			}
			sealed := pr.seal()
			if got := r.pre.Last().Block.Hash(); got != sealed.Hash() {
				t.Fatalf("replica's block %s, producer's sealed %s", got, sealed.Hash())
			}
			if via == "next index 0" {
				next := pr.open()
				if next.Base.ParentHash != sealed.Hash() {
					t.Fatal("index 0 does not build on the sealed block")
				}
				r.feed(next)
				if r.chain.Head().Hash() != sealed.Hash() || r.pre.Last() == nil || r.pre.Last().Number() != 2 {
					t.Fatalf("own seal: head %d, block in progress %v (log:\n%s)", r.chain.Head().Number, r.pre.Last(), r.log)
				}
			} else if !r.insert(context.Background(), []*types.Block{sealed}) || r.chain.Head().Hash() != sealed.Hash() {
				t.Fatalf("upstream block not sealed (log:\n%s)", r.log)
			}
			if n := r.counter(t, "flashrpc_follow_preconf_mismatch_total", ""); n != 0 {
				t.Fatalf("%v mismatches counted", n)
			}
			if n := r.counter(t, "flashrpc_follow_verification_failures_total", "flashblock"); n != 0 {
				t.Fatalf("%v flashblocks refused (log:\n%s)", n, r.log)
			}
			if len(r.retract) != 0 {
				t.Fatalf("retracted %+v", r.retract[0])
			}
		})
	}
}

// TestSubblockSwappedRetractedAtSeal follows a sequence whose last subblock's transaction is
// one the sealed block never had (the sequencer pre-confirmed "x" and sealed "c" with the same
// nonce): it is served, its receipts being what was published, and retracted when the
// upstream's block arrives: the log "x" is delivered as removed, the mismatch counted and
// logged with the block and the first differing transaction, and the chain has the sealed
// block.
//
// In "next block first", index 0 of the next block arrives before the upstream has the sealed
// block (its upstream never answers here): its parent is not the forged block the replica
// computed, so it waits for the parent and is refused, and the forged pre-confirmations stay
// until the sealed block replaces them.
func TestSubblockSwappedRetractedAtSeal(t *testing.T) {
	for _, nextFirst := range []bool{false, true} {
		t.Run(map[bool]string{false: "sealed block first", true: "next block first"}[nextFirst], func(t *testing.T) {
			testSubblockSwapped(t, nextFirst)
		})
	}
}

func testSubblockSwapped(t *testing.T, nextFirst bool) {
	g := echoGenesis(t)
	honest, forger := newProducer(t, g), newProducer(t, g)
	r := newWatchedReplicaWith(t, g, Config{ParentWait: time.Millisecond})
	c := honest.chain
	a, b, real, forged := echo(t, c, 0, "a"), echo(t, c, 1, "b"), echo(t, c, 2, "c"), echo(t, c, 2, "x")
	seq := []*flashblocks.Payload{honest.open(), honest.add(a, b), honest.add(real)}
	forger.open()
	forger.add(a, b)
	seq[2] = forger.add(forged)
	sealed := honest.seal()
	r.feed(seq...)
	last := r.pre.Last()
	if last == nil || last.Index != 2 || last.Block.Transactions()[3].Hash() != forged.Hash() {
		t.Fatalf("forged subblock not served (log:\n%s)", r.log)
	}
	var next *flashblocks.Payload
	if nextFirst {
		next = honest.open()
		r.feed(next)
		if last := r.pre.Last(); last == nil || last.Number() != 1 || r.chain.Head().Number.Uint64() != 0 {
			t.Fatalf("the forged pre-confirmations did not wait for the sealed block (log:\n%s)", r.log)
		}
	}
	if !r.insert(context.Background(), []*types.Block{sealed}) {
		t.Fatalf("sealed block refused (log:\n%s)", r.log)
	}
	if r.chain.Head().Hash() != sealed.Hash() || r.pre.Last() != nil {
		t.Fatalf("head %s, want the sealed %s", r.chain.Head().Hash(), sealed.Hash())
	}
	if n := r.counter(t, "flashrpc_follow_preconf_mismatch_total", ""); n != 1 {
		t.Fatalf("%v mismatches counted, want 1", n)
	}
	log := r.log.String()
	for _, want := range []string{"sealed block differs from its pre-confirmations", "number=1", "index=3", "preconfirmed=" + forged.Hash().Hex(), "sealed=" + real.Hash().Hex()} {
		if !strings.Contains(log, want) {
			t.Fatalf("log lacks %q:\n%s", want, log)
		}
	}
	if len(r.retract) != 1 {
		t.Fatalf("%d retractions, want 1", len(r.retract))
	}
	x := r.retract[0]
	if len(x.Removed) != 1 || !x.Removed[0].Removed || string(x.Removed[0].Data) != "x" || x.Removed[0].TxHash != forged.Hash() {
		t.Fatalf("removed logs %+v, want the forged transaction's", x.Removed)
	}
	if len(x.Dropped) != 1 || x.Dropped[0] != forged.Hash() {
		t.Fatalf("dropped %v", x.Dropped)
	}
	if len(x.Added) != 1 || string(x.Added[0].Data) != "c" {
		t.Fatalf("added logs %+v", x.Added)
	}
	// The next block follows on the sealed chain (the refused index 0 again stands for the
	// next block's).
	if next == nil {
		next = honest.open()
	}
	r.feed(next)
	if r.pre.Last() == nil || r.pre.Last().Number() != 2 {
		t.Fatalf("next block not followed (log:\n%s)", r.log)
	}
}

// TestSubblockRefusals: a subblock is refused, counted and logged when it carries a
// post-execution transaction (in diff.post_exec_tx or among its transactions) or when its
// re-execution does not give the receipts root or DA footprint it published; `pending` then falls back to
// the sealed head.
func TestSubblockRefusals(t *testing.T) {
	postExec := hexutil.Bytes(common.FromHex("0x7dd1018408954401cac401821068c4038203e8"))
	cases := []struct {
		name  string
		spoil func(p *flashblocks.Payload)
		want  string
	}{
		{"post_exec_tx", func(p *flashblocks.Payload) { p.Diff.PostExecTx = postExec }, "diff.post_exec_tx"},
		{"type 0x7d transaction", func(p *flashblocks.Payload) { p.Diff.Transactions = append(p.Diff.Transactions, postExec) }, "type 0x7d"},
		{"receipts root", func(p *flashblocks.Payload) { p.Diff.ReceiptsRoot = common.Hash{0x01} }, "receipts root"},
		{"DA footprint", func(p *flashblocks.Payload) { wrong := *p.Diff.BlobGasUsed + 1; p.Diff.BlobGasUsed = &wrong }, "DA footprint"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := echoGenesis(t)
			pr := newProducer(t, g)
			r := newWatchedReplica(t, g)
			p0, p1 := pr.open(), pr.add(echo(t, pr.chain, 0, "a"))
			spoilt := *p1
			spoilt.Diff.Transactions = append([]hexutil.Bytes(nil), p1.Diff.Transactions...)
			tc.spoil(&spoilt)
			r.feed(p0, &spoilt)
			if r.pre.Last() != nil {
				t.Fatal("block in progress kept after a refused subblock")
			}
			if n := r.counter(t, "flashrpc_follow_verification_failures_total", "flashblock"); n != 1 {
				t.Fatalf("%v refusals counted, want 1", n)
			}
			log := r.log.String()
			if !strings.Contains(log, "flashblock refused") || !strings.Contains(log, tc.want) {
				t.Fatalf("log lacks the refusal naming %q:\n%s", tc.want, log)
			}
			if lagoon := tc.want != "receipts root" && tc.want != "DA footprint"; lagoon && !strings.Contains(log, "Lagoon") {
				t.Fatalf("refusal does not name Lagoon:\n%s", log)
			}
		})
	}
	if err := postExecErr(t); !errors.Is(err, errPostExec) {
		t.Fatalf("post-exec refusal %v, want %v", err, errPostExec)
	}
}

func postExecErr(t *testing.T) error {
	t.Helper()
	return postExec(&flashblocks.Payload{Diff: flashblocks.Diff{PostExecTx: common.FromHex("0x7dd1018408954401cac401821068c4038203e8")}})
}

// syncBuffer is a log destination tests read while the writer logs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

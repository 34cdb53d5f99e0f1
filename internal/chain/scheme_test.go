package chain_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

var schemeKey, _ = crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")

// schemeGenesis is a dev genesis funding schemeKey, with the echo contract. Its time is now:
// go-ethereum indexes the path scheme's state history only once the head is recent (within 6
// hours of now).
func schemeGenesis() *core.Genesis {
	g := chain.DevGenesis(chain.DefaultChainID, []common.Address{crypto.PubkeyToAddress(schemeKey.PublicKey)})
	g.Timestamp = uint64(time.Now().Unix())
	g.Alloc[echoAddr] = echoAccount
	g.Alloc[untouchedAddr] = types.Account{Balance: big.NewInt(7)}
	return g
}

// untouchedAddr is an account of schemeGenesis that no block reads or changes.
var untouchedAddr = common.Address{0x07}

// openScheme opens (or creates) the chain in dir with scheme; an existing chain keeps its
// genesis.
func openScheme(t *testing.T, dir, scheme string, history *uint64, logger *slog.Logger) *chain.Chain {
	t.Helper()
	cfg := chain.Config{DataDir: dir, StateScheme: scheme, StateHistory: history, Logger: logger}
	if _, err := os.Stat(filepath.Join(dir, "chaindata")); err != nil {
		cfg.Genesis = schemeGenesis()
	}
	c, err := chain.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sealBlocks seals n blocks of one transaction each from schemeKey on c's head.
func sealBlocks(t testing.TB, c *chain.Chain, n int) []*types.Block {
	t.Helper()
	sender := crypto.PubkeyToAddress(schemeKey.PublicKey)
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	nonce := st.GetNonce(sender)
	var blocks []*types.Block
	for i := range n {
		blocks = append(blocks, buildBlock(t, c, schemeKey, nonce+uint64(i), fmt.Sprint("block ", i)))
	}
	return blocks
}

func u64(v uint64) *uint64 { return &v }

// TestStateSchemeStored: a datadir keeps the scheme it was created with; opening it without a
// scheme takes the stored one, with the other one is refused naming both.
func TestStateSchemeStored(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ created, other string }{{"", chain.SchemePath}, {chain.SchemePath, chain.SchemeHash}} {
		dir := t.TempDir()
		c := openScheme(t, dir, tc.created, nil, nil)
		sealBlocks(t, c, 2)
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		want := tc.created
		if want == "" {
			want = chain.SchemeHash // the default for a new datadir
		}
		_, err := chain.Open(chain.Config{DataDir: dir, StateScheme: tc.other})
		if !errors.Is(err, chain.ErrSchemeConflict) || !strings.Contains(err.Error(), "--state.scheme "+want) {
			t.Fatalf("opening a %s datadir with %s: %v, want ErrSchemeConflict naming %s", want, tc.other, err, want)
		}
		for _, scheme := range []string{"", want} {
			c, err := chain.Open(chain.Config{DataDir: dir, StateScheme: scheme})
			if err != nil {
				t.Fatal(err)
			}
			if c.Scheme() != want || c.Head().Number.Uint64() != 2 {
				t.Fatalf("reopened with %q: scheme %s, head %d; want %s, 2", scheme, c.Scheme(), c.Head().Number, want)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := chain.Open(chain.Config{Genesis: schemeGenesis(), StateScheme: "archive"}); err == nil || !strings.Contains(err.Error(), "want hash or path") {
		t.Fatalf("scheme archive: %v, want an error naming hash and path", err)
	}
}

// TestPathHistoricState seals more blocks than the path scheme keeps in memory and reads old
// states: through the state history while it is kept, a HistoryUnavailableError naming the
// window beyond it, and no proof below the memory layers.
func TestPathHistoricState(t *testing.T) {
	t.Parallel()
	const keep = 8
	dir := t.TempDir()
	c := openScheme(t, dir, chain.SchemePath, u64(keep), nil)
	blocks := sealBlocks(t, c, 160) // 128 memory layers, the bottom 32 written below them
	sender := crypto.PubkeyToAddress(schemeKey.PublicKey)
	// go-ethereum indexes the state history of a new chain once it has seen a recent head,
	// checking every minute; a chain reopened at a recent head is indexed within 15 s.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = openScheme(t, dir, "", u64(keep), nil)
	defer c.Close()

	// Block 28's state is below the memory layers, in the kept history (the disk holds 32).
	old := blocks[27].Header()
	var st interface{ GetNonce(common.Address) uint64 }
	waitFor(t, "the state history to be indexed", func() bool {
		s, err := c.StateAt(old)
		if err != nil && !strings.Contains(err.Error(), "indexed") {
			var u *chain.HistoryUnavailableError
			errors.As(err, &u)
			t.Fatalf("state of block %d: %v (%v)", old.Number, err, u.Cause)
		}
		if s != nil {
			st = s
		}
		return err == nil
	})
	if n := st.GetNonce(sender); n != 28 {
		t.Fatalf("sender's nonce at block %d: %d, want 28", old.Number, n)
	}
	if _, err := c.Proof(context.Background(), old, sender, nil); !errors.Is(err, chain.ErrStateUnavailable) || !strings.Contains(err.Error(), "--state.scheme hash") {
		t.Fatalf("proof at block %d: %v, want ErrStateUnavailable suggesting hash", old.Number, err)
	}
	// Block 5's history is pruned.
	_, err := c.StateAt(blocks[4].Header())
	var unavailable *chain.HistoryUnavailableError
	if !errors.As(err, &unavailable) || unavailable.Number != 5 || !errors.Is(err, chain.ErrStateUnavailable) {
		t.Fatalf("state of block 5: %v, want a HistoryUnavailableError", err)
	}
	want := fmt.Sprintf("historical state for block 5 is not available: the node keeps the state of the last %d blocks (--state.scheme path --history.state %d); use --state.scheme hash for an archive", keep, keep)
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	// The chain rewinds no further than its state history: it is left as it was.
	if err := c.Rewind(5); !errors.As(err, &unavailable) || c.Head().Number.Uint64() != 160 {
		t.Fatalf("rewinding to block 5: %v, head %d; want a HistoryUnavailableError and the head at 160", err, c.Head().Number)
	}
	// The head and the memory layers are read and proven as under hash.
	for _, b := range []*types.Block{blocks[159], blocks[40]} {
		st, err := c.StateAt(b.Header())
		if err != nil {
			t.Fatal(err)
		}
		if n := st.GetNonce(sender); n != b.NumberU64() {
			t.Fatalf("sender's nonce at block %d: %d", b.NumberU64(), n)
		}
		if _, err := c.Proof(context.Background(), b.Header(), sender, nil); err != nil {
			t.Fatalf("proof at block %d: %v", b.NumberU64(), err)
		}
	}
}

// TestPathRewind rewinds a path chain below its memory layers (through the state history),
// seals on the rewound head and reopens it.
func TestPathRewind(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := openScheme(t, dir, chain.SchemePath, nil, nil)
	blocks := sealBlocks(t, c, 140)
	if err := c.Rewind(5); err != nil {
		t.Fatal(err)
	}
	if h := c.Head(); h.Hash() != blocks[4].Hash() {
		t.Fatalf("head %d after rewinding to 5", h.Number)
	}
	sender := crypto.PubkeyToAddress(schemeKey.PublicKey)
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(sender); n != 5 {
		t.Fatalf("nonce %d after rewinding to block 5", n)
	}
	next := sealBlocks(t, c, 3)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = openScheme(t, dir, "", nil, nil)
	defer c.Close()
	if h := c.Head(); h.Hash() != next[2].Hash() {
		t.Fatalf("head %d (%s) after reopening, want 8 (%s)", h.Number, h.Hash(), next[2].Hash())
	}
}

// uncleanStopEnv names the datadir TestPathUncleanStopChild seals into; the child exits
// without closing the chain, which loses what kill -9 loses.
const uncleanStopEnv = "FLASHRPC_CHAIN_UNCLEAN_STOP_DIR"

// TestPathUncleanStopChild is TestPathRecoversAfterUncleanStop's child process: it seals
// blocks on a path chain, prints their numbers and hashes once all are sealed, and exits without closing the chain.
func TestPathUncleanStopChild(t *testing.T) {
	dir := os.Getenv(uncleanStopEnv)
	if dir == "" {
		return // run by TestPathRecoversAfterUncleanStop only
	}
	c := openScheme(t, dir, chain.SchemePath, nil, nil)
	var blocks []*types.Block
	switch os.Getenv(uncleanStopCheatEnv) {
	case "":
		blocks = sealBlocks(t, c, 150)
	case "rewind": // blocks 1 to 3, then 4 and 5 again after a rewind below the cheated block 4
		blocks = sealBlocks(t, c, 3)
		sealCheat(t, c)
		sealBlocks(t, c, 1)
		if err := c.Rewind(3); err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, sealBlocks(t, c, 2)...)
	default:
		blocks = sealBlocks(t, c, 3)
		blocks = append(blocks, sealCheat(t, c))
		blocks = append(blocks, sealBlocks(t, c, 2)...)
	}
	for _, b := range blocks {
		fmt.Printf("sealed %d %s\n", b.NumberU64(), b.Hash().Hex())
	}
	os.Exit(0) // no Close: the path scheme's memory layers are not journaled
}

// uncleanStopCheatEnv makes TestPathUncleanStopChild seal a dev chain's cheats in block 4, and
// with "rewind" rewind below it and seal other blocks 4 and 5.
const uncleanStopCheatEnv = "FLASHRPC_CHAIN_UNCLEAN_STOP_CHEAT"

// The cheats sealCheat seals: a balance and code on fresh accounts.
var (
	cheatBalanceAddr = common.Address{0xbb}
	cheatCodeAddr    = common.Address{0xcc}
	cheatCode        = []byte{0x60, 0x2a, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3} // returns 42
)

// sealCheat seals one block on c's head that carries state changes outside its transactions,
// as the dev chain's anvil_setBalance and anvil_setCode make, then a transaction from
// schemeKey.
func sealCheat(t testing.TB, c *chain.Chain) *types.Block {
	t.Helper()
	ctx := context.Background()
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	nonce := st.GetNonce(crypto.PubkeyToAddress(schemeKey.PublicKey))
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(c.Config(), head, head.Time+12, common.Address{}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Dev().Cheat(ctx, func(st *state.StateDB) {
		st.SetBalance(cheatBalanceAddr, uint256.NewInt(42), tracing.BalanceChangeUnspecified)
		st.SetCode(cheatCodeAddr, cheatCode, tracing.CodeChangeUnspecified)
	}); err != nil {
		t.Fatal(err)
	}
	b, err := p.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Add(ctx, echoTx(t, c, nonce, "after the cheat")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(ctx, preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	block, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return block
}

// echoTx returns a call of the echo contract from schemeKey with data.
func echoTx(t testing.TB, c *chain.Chain, nonce uint64, data string) *types.Transaction {
	t.Helper()
	tx, err := types.SignNewTx(schemeKey, types.LatestSigner(c.Config()), &types.DynamicFeeTx{
		ChainID: c.Config().ChainID, Nonce: nonce, To: &echoAddr, Data: []byte(data), Gas: 100_000,
		GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// uncleanStopSealed runs TestPathUncleanStopChild on dir, with env added, and returns the
// blocks it sealed before it exited without closing the chain, by number.
func uncleanStopSealed(t *testing.T, dir string, env ...string) map[uint64]common.Hash {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestPathUncleanStopChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), uncleanStopEnv+"="+dir), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	sealed := map[uint64]common.Hash{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		var n uint64
		var h string
		if _, err := fmt.Sscanf(sc.Text(), "sealed %d %s", &n, &h); err == nil {
			sealed[n] = common.HexToHash(h)
		}
	}
	return sealed
}

// checkSealed fails unless c's head is the highest block of sealed and c has each block of
// sealed with the same hash.
func checkSealed(t *testing.T, c *chain.Chain, sealed map[uint64]common.Hash) {
	t.Helper()
	if h := c.Head().Number.Uint64(); h != uint64(len(sealed)) {
		t.Fatalf("head %d after the unclean stop, want %d", h, len(sealed))
	}
	for n, hash := range sealed {
		if got := c.CanonicalHash(n); got != hash {
			t.Fatalf("block %d is %s after the unclean stop, was %s", n, got, hash)
		}
	}
}

// TestPathUncleanStopKeepsCheats: a dev chain's block carrying cheats cannot be executed
// again, so the path scheme writes its state to disk as it is sealed; after an unclean stop
// the chain comes back at the same head, the cheated block and those after it (executed
// again) with the same hashes and the cheats' state readable, and it rewinds below the
// cheated block.
func TestPathUncleanStopKeepsCheats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sealed := uncleanStopSealed(t, dir, uncleanStopCheatEnv+"=1")
	if len(sealed) != 6 {
		t.Fatalf("the child sealed %d blocks, want 6", len(sealed))
	}
	logs := &recordHandler{}
	c := openScheme(t, dir, "", nil, slog.New(logs))
	defer c.Close()
	if errs := logs.errors(); len(errs) > 0 {
		t.Fatalf("errors logged on open: %v", errs)
	}
	checkSealed(t, c, sealed)
	if !logs.has("open chain: blocks executed again after an unclean stop") {
		t.Fatalf("blocks 5 and 6 were not executed again (their state on disk?): %v", logs.messages())
	}
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if b, code := st.GetBalance(cheatBalanceAddr), st.GetCode(cheatCodeAddr); b.Uint64() != 42 || !bytes.Equal(code, cheatCode) {
		t.Fatalf("after the unclean stop: balance %s, code %x; want the cheats' 42 and %x", b, code, cheatCode)
	}
	if n := st.GetNonce(crypto.PubkeyToAddress(schemeKey.PublicKey)); n != 6 {
		t.Fatalf("sender's nonce %d at the head, want 6", n)
	}

	// Below the cheated block, through the state history: the cheats are gone.
	if err := c.Rewind(3); err != nil {
		t.Fatal(err)
	}
	st, err = c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if b, code := st.GetBalance(cheatBalanceAddr), st.GetCode(cheatCodeAddr); !b.IsZero() || len(code) != 0 {
		t.Fatalf("rewound below the cheats: balance %s, code %x; want none", b, code)
	}
	next := sealBlocks(t, c, 1) // the chain goes on from block 3
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = openScheme(t, dir, "", nil, nil)
	if h := c.Head(); h.Hash() != next[0].Hash() {
		t.Fatalf("head %d (%s) after reopening, want 4 (%s)", h.Number, h.Hash(), next[0].Hash())
	}
}

// TestPathUncleanStopAfterRewindBelowCheats: after a rewind below a cheated block, whose state
// was on disk, the plain blocks sealed instead of it come back after an unclean stop.
func TestPathUncleanStopAfterRewindBelowCheats(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sealed := uncleanStopSealed(t, dir, uncleanStopCheatEnv+"=rewind")
	if len(sealed) != 5 {
		t.Fatalf("the child sealed %d blocks, want 5", len(sealed))
	}
	logs := &recordHandler{}
	c := openScheme(t, dir, "", nil, slog.New(logs))
	defer c.Close()
	if errs := logs.errors(); len(errs) > 0 {
		t.Fatalf("errors logged on open: %v", errs)
	}
	checkSealed(t, c, sealed)
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if b, n := st.GetBalance(cheatBalanceAddr), st.GetNonce(crypto.PubkeyToAddress(schemeKey.PublicKey)); !b.IsZero() || n != 5 {
		t.Fatalf("after the unclean stop: cheat's balance %s, sender's nonce %d; want 0, 5", b, n)
	}
	sealBlocks(t, c, 1) // the chain goes on
}

// TestPathRecoversAfterUncleanStop: a path chain whose process exits without closing it (as
// after kill -9) comes back at the same head with the same blocks, by executing again the
// blocks whose state was not on disk, and says so.
func TestPathRecoversAfterUncleanStop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sealed := uncleanStopSealed(t, dir)
	if len(sealed) != 150 {
		t.Fatalf("the child sealed %d blocks, want 150", len(sealed))
	}
	logs := &recordHandler{}
	c := openScheme(t, dir, "", nil, slog.New(logs))
	defer c.Close()
	if c.Scheme() != chain.SchemePath {
		t.Fatalf("scheme %s", c.Scheme())
	}
	if !logs.has("open chain: blocks executed again after an unclean stop") {
		t.Fatalf("nothing was executed again (the state of every block was on disk?): %v", logs.messages())
	}
	checkSealed(t, c, sealed)
	st, err := c.StateAt(c.Head())
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(crypto.PubkeyToAddress(schemeKey.PublicKey)); n != 150 {
		t.Fatalf("sender's nonce %d at the head, want 150", n)
	}
	sealBlocks(t, c, 1) // the chain goes on
}

// recordHandler is a slog.Handler that keeps the messages logged, and the err attributes.
type recordHandler struct {
	mu   sync.Mutex
	msgs []string
	errs []string
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			h.errs = append(h.errs, a.Value.String())
		}
		return true
	})
	return nil
}

func (h *recordHandler) errors() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.errs...)
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func (h *recordHandler) messages() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.msgs...)
}

func (h *recordHandler) has(msg string) bool {
	for _, m := range h.messages() {
		if m == msg {
			return true
		}
	}
	return false
}

// TestPathCheatedBlockParentState: writing a cheated block's state to disk merges the path
// scheme's memory layers, through which the states below it were read; those states are read
// through the state history from then on, with the values they had, never as empty accounts.
func TestPathCheatedBlockParentState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := openScheme(t, dir, chain.SchemePath, nil, nil)
	sender := crypto.PubkeyToAddress(schemeKey.PublicKey)
	parent := sealBlocks(t, c, 3)[2].Header()
	// Reopened at a recent head, the chain indexes its state history at once (TestPathHistoricState).
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = openScheme(t, dir, "", nil, nil)
	defer c.Close()
	st, err := c.StateAt(parent) // the head's state, read and kept by its shared reader
	if err != nil {
		t.Fatal(err)
	}
	if n := st.GetNonce(sender); n != 3 {
		t.Fatalf("sender's nonce %d at block 3, want 3", n)
	}
	kept := st
	epoch := c.StateEpoch()
	sealCheat(t, c)
	// Caches of what was prepared from a state (eth_simulateV1's bases) are dropped when it moves.
	if e := c.StateEpoch(); e != epoch+1 {
		t.Fatalf("state epoch %d after a cheated block's write dropped the older states' readers, want %d", e, epoch+1)
	}
	waitFor(t, "the state of block 3 to be readable", func() bool {
		st, err = c.StateAt(parent)
		var u *chain.HistoryUnavailableError
		if errors.As(err, &u) && u.Indexing {
			return false
		}
		if err != nil {
			t.Fatalf("state of block 3 after the cheated block 4: %v", err)
		}
		return true
	})
	// The state opened before the cheated block's write, whose reader read through the
	// merged layers, reads an account it had not read: through the state history, never as
	// an empty account.
	if b := kept.GetBalance(untouchedAddr); b.Uint64() != 7 || kept.Error() != nil {
		t.Fatalf("a state of block 3 opened before the cheated block 4 was written: balance %s, error %v; want 7, none", b, kept.Error())
	}
	// An account nothing had read at block 3, and those the blocks read.
	if b := st.GetBalance(untouchedAddr); b.Uint64() != 7 || st.Error() != nil {
		t.Fatalf("at block 3 after the cheated block 4: balance %s, error %v; want 7, none", b, st.Error())
	}
	if b, n := st.GetBalance(cheatBalanceAddr), st.GetNonce(sender); !b.IsZero() || n != 3 || st.Error() != nil {
		t.Fatalf("at block 3 after the cheated block 4: cheat's balance %s, sender's nonce %d, error %v; want 0, 3, none", b, n, st.Error())
	}
	if code := st.GetCode(echoAddr); len(code) == 0 || st.Error() != nil {
		t.Fatalf("at block 3 after the cheated block 4: echo contract's code %x, error %v", code, st.Error())
	}
}

// TestPathRewindBelowCheatedBlock: evm_revert's rewind to below a cheated block, whose state
// is on disk, restores the state before it through the state history (not its index, which a
// new chain starts within a minute), as often as a test suite reverts.
func TestPathRewindBelowCheatedBlock(t *testing.T) {
	t.Parallel()
	c := openScheme(t, t.TempDir(), chain.SchemePath, nil, nil)
	defer c.Close()
	base := sealBlocks(t, c, 2)[1]
	for i := range 3 {
		sealCheat(t, c)
		sealBlocks(t, c, 1)
		if err := c.Rewind(2); err != nil {
			t.Fatalf("rewind %d: %v", i, err)
		}
		if h := c.Head(); h.Hash() != base.Hash() {
			t.Fatalf("rewind %d: head %d (%s), want 2 (%s)", i, h.Number, h.Hash(), base.Hash())
		}
		st, err := c.StateAt(c.Head())
		if err != nil {
			t.Fatal(err)
		}
		if b, code, n := st.GetBalance(cheatBalanceAddr), st.GetCode(cheatCodeAddr), st.GetNonce(crypto.PubkeyToAddress(schemeKey.PublicKey)); !b.IsZero() || len(code) != 0 || n != 2 {
			t.Fatalf("rewind %d: balance %s, code %x, sender's nonce %d; want none, none, 2", i, b, code, n)
		}
	}
}

package simulate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

// preparedRuns counts the simulations of simulateBothWays that took the prepared state, so
// that the tests can show the comparison was not vacuous.
var preparedRuns atomic.Int64

// testJumpDests are shared by the prepared-base runs of all tests, as the API shares one
// JumpDests between all requests; the direct runs analyse their code afresh.
var testJumpDests = NewJumpDests()

// simulateBothWays runs a simulation on env as given and again on a Base made from a copy
// of env (sharing testJumpDests), fails t when the two differ in any byte of the result or the error, and returns the
// first. decode returns the request's options afresh for each run.
func simulateBothWays(ctx context.Context, t testing.TB, env Env, decode func() Opts) ([]Block, error) {
	t.Helper()
	baseEnv := env
	baseEnv.State = env.State.Copy()
	baseEnv.JumpDests = testJumpDests
	base := NewBase(ctx, baseEnv)
	viaBase, baseErr := Run(ctx, base.Env(), decode())
	opts := decode()
	direct, err := Run(ctx, env, opts)
	if fmt.Sprint(err) != fmt.Sprint(baseErr) {
		t.Fatalf("prepared base changes the error:\n direct %v\nprepared %v", err, baseErr)
	}
	if err != nil {
		return direct, err
	}
	for i, b := range append(direct, viaBase...) {
		block := b.TypesBlock()
		if b.Hash != block.Hash() || b.Size != block.Size() || b.Header.Hash() != b.Hash {
			t.Fatalf("block %d: hash %s and size %d known from building it, the block has %s and %d", i, b.Hash, b.Size, block.Hash(), block.Size())
		}
		for j, tx := range block.Transactions() {
			if b.TxHashes[j] != tx.Hash() {
				t.Fatalf("block %d, transaction %d: hash %s, want %s", i, j, b.TxHashes[j], tx.Hash())
			}
		}
	}
	a, _ := json.Marshal(direct)
	b, _ := json.Marshal(viaBase)
	if string(a) != string(b) {
		t.Fatalf("prepared base changes the result:\n direct %s\nprepared %s", truncate(a), truncate(b))
	}
	if first := direct[0].TypesBlock().Header(); base.first != nil && base.fits(first, opts.BlockStateCalls[0].StateOverrides) {
		preparedRuns.Add(1)
	}
	return direct, nil
}

// TestSimBaseSystemAccounts: a request that overrides what the system calls read does not get
// the prepared state; one whose block touches the queue contracts or the system address, pays
// fees to them or has withdrawals gets it but runs the post-block calls. Each result is the one
// without a base.
func TestSimBaseSystemAccounts(t *testing.T) {
	chain := newTestChain(t, 2)
	if base := NewBase(context.Background(), Env{Env: chain.env(t)}); base.first == nil || !base.postNoop || base.layer == nil {
		t.Fatalf("the test chain's base prepares nothing (first %v, post-block calls skippable %v, memory layer %v)", base.first != nil, base.postNoop, base.layer != nil)
	}
	// The first block's system calls wrote the base block's hash where EIP-2935's contract
	// returns it: reading it back shows the prepared state holds their writes.
	baseNumber := fmt.Sprintf("%064x", chain.env(t).Header.Number.Uint64())
	for name, req := range map[string]string{
		"history read":      `{"blockStateCalls":[{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + params.HistoryStorageAddress.Hex() + `","data":"0x` + baseNumber + `"}]}]}`,
		"default":           `{"blockStateCalls":[{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + logAddr.Hex() + `"}]}]}`,
		"history storage":   `{"blockStateCalls":[{"stateOverrides":{"0x0000F90827F1C53a10cb7A02335B175320002935":{"stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000001":"0x00000000000000000000000000000000000000000000000000000000000000ff"}}}}]}`,
		"beacon roots code": `{"blockStateCalls":[{"stateOverrides":{"0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02":{"code":"0x00"}}}]}`,
		"system address":    `{"blockStateCalls":[{"stateOverrides":{"0xfffffffffffffffffffffffffffffffffffffffe":{"balance":"0x1"}}}]}`,
		"moved precompile":  `{"blockStateCalls":[{"stateOverrides":{"0x0000000000000000000000000000000000000001":{"movePrecompileToAddress":"0x0000000000000000000000000000000000123456"}}}]}`,
		"beacon root":       `{"blockStateCalls":[{"blockOverrides":{"beaconRoot":"0x0000000000000000000000000000000000000000000000000000000000000007"}}]}`,
		"two blocks":        `{"blockStateCalls":[{},{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + logAddr.Hex() + `"}]}]}`,
		// These take the prepared state but must run the post-block system calls.
		"withdrawal request": `{"blockStateCalls":[{"calls":[{"from":"` + richAddr.Hex() + `","to":"` + params.WithdrawalQueueAddress.Hex() + `","value":"0x10","data":"0x` + strings.Repeat("ab", 48) + `0000000000000001"}]}]}`,
		"from system":        `{"blockStateCalls":[{"calls":[{"from":"` + params.SystemAddress.Hex() + `","to":"` + logAddr.Hex() + `"}]}]}`,
		"fees to queue":      `{"blockStateCalls":[{"blockOverrides":{"feeRecipient":"` + params.ConsolidationQueueAddress.Hex() + `"},"calls":[{"from":"` + richAddr.Hex() + `","to":"` + logAddr.Hex() + `","maxPriorityFeePerGas":"0x1","maxFeePerGas":"0x1"}]}]}`,
		"withdrawals":        `{"blockStateCalls":[{"blockOverrides":{"withdrawals":[{"index":"0x0","validatorIndex":"0x1","address":"` + logAddr.Hex() + `","amount":"0x10"}]}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			before := preparedRuns.Load()
			decode := func() Opts { return decodeSimOpts(t, req) }
			if _, err := simulateBothWays(context.Background(), t, Env{Env: chain.env(t)}, decode); err != nil {
				t.Fatal(err)
			}
			used := preparedRuns.Load() > before
			notPrepared := map[string]bool{"history storage": true, "beacon roots code": true, "system address": true, "moved precompile": true, "beacon root": true}
			if want := !notPrepared[name]; used != want {
				t.Fatalf("prepared state used: %v, want %v", used, want)
			}
		})
	}
}

// layeredBase returns a base prepared on a sealed block of a new test chain, which has a memory
// layer, and whether the chain deletes empty accounts at its block (EIP-158).
func layeredBase(t *testing.T) (*Base, bool) {
	t.Helper()
	chain := newTestChain(t, 2)
	base := NewBase(context.Background(), Env{Env: chain.env(t)})
	if base.layer == nil {
		t.Fatal("no memory layer on a sealed base")
	}
	return base, chain.env(t).Config.IsEIP158(base.first.Number)
}

// TestSimBaseMemLayer: a state opened on the memory layer is the prepared state: same root,
// same slots the system calls wrote, and the same root again after changes to a system
// contract's storage (its trie then comes from the layer's nodes) and to an account.
func TestSimBaseMemLayer(t *testing.T) {
	base, deleteEmpty := layeredBase(t)
	layered, err := base.layer.newState()
	if err != nil {
		t.Fatal(err)
	}
	warm := base.warm.Copy()
	if got, want := layered.IntermediateRoot(deleteEmpty), warm.IntermediateRoot(deleteEmpty); got != want {
		t.Fatalf("layer root %s, prepared state root %s", got, want)
	}
	if len(base.layer.slots) == 0 {
		t.Fatal("the layer holds no slots: the system calls wrote nothing?")
	}
	for addr, slots := range base.layer.slots {
		for slot := range slots {
			if got, want := layered.GetState(addr, slot), warm.GetState(addr, slot); got != want {
				t.Fatalf("slot %s of %s: layer %s, prepared state %s", slot, addr, got, want)
			}
		}
	}
	for _, st := range []*state.StateDB{layered, warm} {
		st.SetState(params.HistoryStorageAddress, common.Hash{1}, common.Hash{2})
		st.SetState(params.BeaconRootsAddress, common.Hash{3}, common.Hash{})
		st.AddBalance(richAddr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	}
	want := warm.IntermediateRoot(deleteEmpty)
	if got := layered.IntermediateRoot(deleteEmpty); got != want {
		t.Fatalf("after changes: layer root %s, prepared state root %s", got, want)
	}
	// States of one layer may be used at the same time (run with -race).
	var wg sync.WaitGroup
	roots := make([]common.Hash, 8)
	for i := range roots {
		wg.Go(func() {
			st, err := base.layer.newState()
			if err != nil {
				t.Error(err)
				return
			}
			st.SetState(params.HistoryStorageAddress, common.Hash{1}, common.Hash{2})
			st.SetState(params.BeaconRootsAddress, common.Hash{3}, common.Hash{})
			st.AddBalance(richAddr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
			roots[i] = st.IntermediateRoot(deleteEmpty)
		})
	}
	wg.Wait()
	for i, root := range roots {
		if root != want {
			t.Fatalf("concurrent state %d: root %s, want %s", i, root, want)
		}
	}
	// The base's nodes those states read are now the layer's hot nodes; a state opened
	// afterwards reads them from there and still has the prepared state's root.
	if base.layer.hot.len() == 0 {
		t.Fatal("no base node kept in the layer's node cache")
	}
	again, err := base.layer.newState()
	if err != nil {
		t.Fatal(err)
	}
	again.SetState(params.HistoryStorageAddress, common.Hash{1}, common.Hash{2})
	again.SetState(params.BeaconRootsAddress, common.Hash{3}, common.Hash{})
	again.AddBalance(richAddr, uint256.NewInt(1), tracing.BalanceChangeUnspecified)
	if got := again.IntermediateRoot(deleteEmpty); got != want {
		t.Fatalf("state on cached nodes: root %s, want %s", got, want)
	}
}

package preconf_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/params"

	"github.com/flashrpc/flashrpc/internal/oprollup"
	"github.com/flashrpc/flashrpc/internal/preconf"
)

// TestAssemblyKeepsSystemCallsOffTheBlock pre-confirms an EIP-7002 withdrawal request on the
// Ethereum dev chain (Prague, not the OP Stack), then a transfer, and seals. Each assembly
// runs Prague's post-execution system calls, which take the request off the queue: on the
// writer's own state, the first pre-confirmation's would have emptied the queue for the
// block still in progress, and the sealed block would carry no request. So the sealed block
// must carry it, and go-ethereum's state processor, run on the parent state, must find the
// same state root and requests hash.
func TestAssemblyKeepsSystemCallsOffTheBlock(t *testing.T) {
	ctx := context.Background()
	c := openChain(t)
	cfg := c.Config()
	if !cfg.IsPrague(common.Big1, 0) || cfg.Optimism != nil {
		t.Fatal("the dev genesis is expected to be Ethereum's, with Prague")
	}
	p := preconf.New(c)
	head := c.Head()
	if _, err := p.Open(ctx, preconf.NextAttributes(cfg, head, head.Time+1, common.Address{0xfe}, nil), preconf.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	request := make([]byte, 56) // a 48-byte validator key and an 8-byte amount
	request[0] = 0xab
	queue := params.WithdrawalQueueAddress
	reqTx, err := types.SignNewTx(testKey, types.LatestSigner(cfg), &types.DynamicFeeTx{
		ChainID: cfg.ChainID, Nonce: 0, To: &queue, Value: big.NewInt(params.GWei), Data: request,
		Gas: 500_000, GasFeeCap: big.NewInt(10 * params.GWei), GasTipCap: big.NewInt(params.GWei),
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range []*types.Transaction{reqTx, transfer(t, c, 1, common.Address{0xaa})} {
		b, err := p.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add(ctx, tx); err != nil {
			t.Fatal(err)
		}
		snap, err := b.Commit(ctx, preconf.PublishOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if snap.Receipts[i].Status != types.ReceiptStatusSuccessful {
			t.Fatalf("transaction %d failed", i)
		}
	}
	sealed, err := p.Seal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	withOne := types.CalcRequestsHash([][]byte{append([]byte{0x01}, append(testAddr.Bytes(), request...)...)})
	if h := sealed.Header().RequestsHash; h == nil || *h != withOne {
		t.Fatalf("sealed block's requests hash %v, want the one of its withdrawal request %s", h, withOne)
	}
	bc := c.Context().(*core.BlockChain)
	parent, err := c.StateAt(head)
	if err != nil {
		t.Fatal(err)
	}
	res, err := core.NewStateProcessor(bc).Process(ctx, sealed, parent, oprollup.VMConfig(cfg, vm.Config{}))
	if err != nil {
		t.Fatalf("go-ethereum's processor: %v", err)
	}
	if err := bc.Validator().ValidateState(sealed, parent, res, false); err != nil {
		t.Fatalf("go-ethereum's validator: %v", err)
	}
}

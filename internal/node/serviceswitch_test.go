package node

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// switchTestService is a table of methods that answer their own name with tag, and one
// subscription kind that fails with tag.
func switchTestService(tag string, names ...string) rpc.Service {
	svc := rpc.Service{Methods: map[string]rpc.Method{}, Subscriptions: map[string]rpc.SubscribeFunc{
		"newHeads": func(context.Context, rpc.Params, *rpc.Subscription) error { return fmt.Errorf("newHeads of %s", tag) },
	}}
	for _, name := range names {
		answer := any(tag + ":" + name) // boxed once: a call allocates nothing of its own
		svc.Methods[name] = func(context.Context, rpc.Params) (any, error) { return answer, nil }
	}
	return svc
}

// TestServiceSwitch: the forwarding table has the first table's names and reaches the current
// table's implementations; a name the current table lacks is -32601 naming it, as an unknown
// method is.
func TestServiceSwitch(t *testing.T) {
	t.Parallel()
	s := newServiceSwitch(switchTestService("old", "eth_chainId", "eth_blockNumber"))
	fwd := s.service()
	if len(fwd.Methods) != 2 || len(fwd.Subscriptions) != 1 {
		t.Fatalf("forwarding table has %d methods and %d subscriptions, want 2 and 1", len(fwd.Methods), len(fwd.Subscriptions))
	}
	call := func(name string) (any, error) { return fwd.Methods[name](context.Background(), rpc.Params{}) }
	if got, err := call("eth_chainId"); err != nil || got != "old:eth_chainId" {
		t.Fatalf("before the switch: %v, %v; want old:eth_chainId", got, err)
	}
	s.set(switchTestService("new", "eth_chainId", "anvil_reset"))
	if got, err := call("eth_chainId"); err != nil || got != "new:eth_chainId" {
		t.Fatalf("after the switch: %v, %v; want new:eth_chainId", got, err)
	}
	got, err := call("eth_blockNumber")
	var rerr *rpc.Error
	if !errors.As(err, &rerr) || rerr.Code != rpc.CodeMethodNotFound || !strings.Contains(err.Error(), "eth_blockNumber") {
		t.Fatalf("a method the new table lacks: %v, %v; want error %d naming it", got, err, rpc.CodeMethodNotFound)
	}
	if _, ok := fwd.Methods["anvil_reset"]; ok {
		t.Fatal("the forwarding table gained a method of the new table")
	}
	if err := fwd.Subscriptions["newHeads"](context.Background(), rpc.Params{}, nil); err == nil || err.Error() != "newHeads of new" {
		t.Fatalf("subscription after the switch: %v, want the new table's", err)
	}
}

// BenchmarkServiceSwitch calls one method through the forwarding table of a table the size of
// an endpoint's, as the server does for every request.
func BenchmarkServiceSwitch(b *testing.B) {
	names := make([]string, 150)
	for i := range names {
		names[i] = fmt.Sprintf("eth_method%d", i)
	}
	s := newServiceSwitch(switchTestService("old", names...))
	s.set(switchTestService("new", names...))
	m := s.service().Methods["eth_method75"]
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if got, err := m(ctx, rpc.Params{}); err != nil || got != "new:eth_method75" {
			b.Fatal(got, err)
		}
	}
}

package node

import (
	"context"
	"sync/atomic"

	"github.com/flashrpc/flashrpc/internal/rpc"
)

// serviceSwitch is an endpoint's method table whose implementation can be replaced while the
// server runs: every method and subscription of the table it was made with forwards to the
// current table's. A re-fork replaces the table with one of the same names. Its methods are
// safe for concurrent use.
type serviceSwitch struct {
	base rpc.Service                // the names the forwarding table has
	cur  atomic.Pointer[switchable] // the current table, by the position of each name in order
	// methods and kinds hold base's names, each at its position in cur.
	methods, kinds []string
}

// switchable is a table in serviceSwitch's order: the server has found the method by its
// name already, so a call needs one atomic load and an index, not a second lookup by name.
// A nil entry is a name the table lacks.
type switchable struct {
	methods []rpc.Method
	subs    []rpc.SubscribeFunc
}

func newServiceSwitch(svc rpc.Service) *serviceSwitch {
	s := &serviceSwitch{base: svc}
	for name := range svc.Methods {
		s.methods = append(s.methods, name)
	}
	for kind := range svc.Subscriptions {
		s.kinds = append(s.kinds, kind)
	}
	s.set(svc)
	return s
}

// set makes svc the current table.
func (s *serviceSwitch) set(svc rpc.Service) {
	t := &switchable{methods: make([]rpc.Method, len(s.methods)), subs: make([]rpc.SubscribeFunc, len(s.kinds))}
	for i, name := range s.methods {
		t.methods[i] = svc.Methods[name]
	}
	for i, kind := range s.kinds {
		t.subs[i] = svc.Subscriptions[kind]
	}
	s.cur.Store(t)
}

// service returns the forwarding table, for rpc.NewServer.
func (s *serviceSwitch) service() rpc.Service {
	out := rpc.Service{Methods: make(map[string]rpc.Method, len(s.methods)), Subscriptions: make(map[string]rpc.SubscribeFunc, len(s.kinds))}
	for i, name := range s.methods {
		out.Methods[name] = func(ctx context.Context, p rpc.Params) (any, error) {
			m := s.cur.Load().methods[i]
			if m == nil {
				return nil, rpc.NewError(rpc.CodeMethodNotFound, "the method %s does not exist/is not available", name)
			}
			return m(ctx, p)
		}
	}
	for i, kind := range s.kinds {
		out.Subscriptions[kind] = func(ctx context.Context, p rpc.Params, sub *rpc.Subscription) error {
			fn := s.cur.Load().subs[i]
			if fn == nil {
				return rpc.NewError(rpc.CodeMethodNotFound, "no %q subscription in eth namespace", kind)
			}
			return fn(ctx, p, sub)
		}
	}
	return out
}

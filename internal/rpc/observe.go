package rpc

import (
	"bytes"
	"context"
	"log/slog"
	"time"
)

// Observer is told what a [Server] does, for metrics (internal/node passes
// internal/metrics's). It is an interface because the transport must not depend on a
// metrics library. Its methods are called on the request path, concurrently: they must be
// quick, safe for concurrent use and must not block.
type Observer interface {
	// Method returns the observer of the calls of one method. NewServer calls it once per
	// method of the Service, once with "eth_subscribe" and "eth_unsubscribe" (which stand
	// for every namespace's), and once with "" for the calls of methods the Service does not
	// have; a nil result observes nothing. Resolving observers up front keeps label lookups
	// off the request path.
	Method(name string) CallObserver
	// WebSocketConns is called with +1 when a WebSocket connection opens and -1 when it
	// closes.
	WebSocketConns(delta int)
	// Subscriptions is called with +1 when a subscription starts and -1 when it ends.
	Subscriptions(delta int)
	// SlowConsumer is called when a WebSocket connection is closed because its client did
	// not read what was sent (Config.WSSendQueueBytes, Config.WSSlowConsumerTimeout).
	SlowConsumer()
}

// CallObserver observes the calls of one method.
type CallObserver interface {
	// ObserveCall is called after each call with its duration (from its dispatch to its
	// encoded result) and its error code, 0 for success.
	ObserveCall(d time.Duration, code int)
}

// methodEntry is one row of the Server's method table.
type methodEntry struct {
	fn   Method
	kind entryKind
	obs  CallObserver // nil: not observed
}

// entryKind tells the calls the server answers itself from the Service's methods.
type entryKind int

const (
	entryMethod      entryKind = iota
	entryUnknown               // not in the Service (or a name over maxMethodNameLength)
	entrySubscribe             // <namespace>_subscribe
	entryUnsubscribe           // <namespace>_unsubscribe
)

// buildMethods returns the method table of svc with its observers resolved.
func buildMethods(svc Service, obs Observer) (table map[string]*methodEntry, unknown, sub, unsub *methodEntry) {
	resolve := func(name string) CallObserver {
		if obs == nil {
			return nil
		}
		return obs.Method(name)
	}
	table = make(map[string]*methodEntry, len(svc.Methods))
	for name, fn := range svc.Methods {
		table[name] = &methodEntry{fn: fn, obs: resolve(name)}
	}
	unknown = &methodEntry{kind: entryUnknown, obs: resolve("")}
	sub = &methodEntry{kind: entrySubscribe, obs: resolve("eth_subscribe")}
	unsub = &methodEntry{kind: entryUnsubscribe, obs: resolve("eth_unsubscribe")}
	return table, unknown, sub, unsub
}

// lookup returns the table entry for a call of method.
func (s *Server) lookup(method []byte) *methodEntry {
	switch {
	case len(method) > maxMethodNameLength:
		return s.unknown
	case bytes.HasSuffix(method, []byte("_subscribe")):
		return s.sub
	case bytes.HasSuffix(method, []byte("_unsubscribe")):
		return s.unsub
	}
	if e := s.methods[string(method)]; e != nil {
		return e
	}
	return s.unknown
}

// observeCall reports one call to its observer and, with Config.LogRequests, to the log.
func (s *Server) observeCall(e *methodEntry, method []byte, d time.Duration, o *outcome) {
	code := 0
	if o.err != nil {
		code = o.err.Code
	}
	if e.obs != nil {
		e.obs.ObserveCall(d, code)
	}
	if s.cfg.LogRequests {
		if len(method) > maxLoggedMethod {
			method = method[:maxLoggedMethod]
		}
		s.log.LogAttrs(context.Background(), slog.LevelInfo, "rpc request", slog.String("method", string(method)), slog.Duration("duration", d), slog.Int("code", code))
	}
}

// maxLoggedMethod is the longest method name a request log line repeats.
const maxLoggedMethod = 64

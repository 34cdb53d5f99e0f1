package preconf

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// View is one consistent state of the node as a request sees it: the sealed chain's markers
// and the block in progress, published together. Every answer of a request is computed from
// the one View it loaded when it began, so nothing it returns mixes two moments (a receipt
// looked up sealed before a seal and pre-confirmed after it, logs of a block counted sealed
// and pending at once).
//
// The writer publishes a new View at every pre-confirmation and at every change of the
// sealed chain (a block sealed, the head rewound, the safe or finalized block set), always
// after the data it names is durable and readable; Views are published in order, so a
// request that begins after another's answer sees the same View or a newer one. Hence:
//
//   - a transaction that an answer has shown stays visible: pre-confirmed transactions stay
//     in later pre-confirmations of their block, and the View that drops the block in
//     progress is the one whose Latest is that block, sealed;
//   - the sealed part and the pre-confirmed part of one View never overlap nor leave a gap:
//     Pending builds on exactly Latest;
//   - Latest never goes backwards.
//
// The documented exceptions are retraction (Dev.SealWith drops the block in progress, then
// inserts a different block) and reorganisations of the sealed chain.
//
// While the chain writes a block SealAsync sealed, that block is Sealing: it is no longer in
// progress (Pending is already the next block, built on it) and not yet sealed (Latest is
// its parent until it is durable). The View that names it Latest is the one that drops it as
// Sealing, so a transaction pre-confirmed in it is in Pending, then Sealing, then Latest,
// without a gap; Latest, Sealing and Pending follow one another. On the standard endpoint
// Sealing and Pending are both left out (internal/api).
//
// A View is immutable and small: requests copy it by value. The headers and the snapshot are
// shared and must not be modified.
type View struct {
	// Latest is the newest sealed block; never nil.
	Latest *types.Header
	// Safe is the safe block as of the view, nil when none is set.
	Safe *types.Header
	// Finalized is the finalized block as of the view, nil when none is set.
	Finalized *types.Header
	// Sealing is the last pre-confirmation of the block sealed after Latest, which the
	// chain is writing (SealAsync): its Block is the sealed block, hash included. nil when
	// no write is in flight. When it is set, Pending builds on it.
	Sealing *Snapshot
	// Pending is the newest pre-confirmation of the block in progress, which builds on
	// Sealing when set, else on Latest; nil when nothing is pre-confirmed on top of them
	// (then `pending` means Latest).
	Pending *Snapshot
	// Cheats are the dev chain's state cheats that no sealed block carries yet (Dev.Cheat):
	// every read of Latest's state applies them on top of it (Cheats.Apply), so that a cheat
	// is visible at `latest` at once, as on anvil and Hardhat, and the block that seals them
	// becomes Latest in the same View that drops them. Empty on every other chain. Unlike
	// Pending, the standard endpoint keeps them.
	Cheats *Cheats
	// Hidden says that the writer keeps Pending and Sealing from readers: a chain without
	// pre-confirmations (PublishOptions.Hidden, hidden.go). They are there for what a new
	// transaction is validated against and lands in (its nonce, its fees); every endpoint
	// shows such a View as the standard endpoint shows any: sealed blocks only, `pending` the
	// next block as forecast (Forecast).
	Hidden bool
	// Forecast marks a view without a block in progress whose `pending` is the next block as
	// forecast (decisions.md): internal/api sets it on the standard endpoint's views, on
	// every Hidden view and in serve mode. Next is then the block the writer builds on
	// Latest (Sealing, else Pending), whose number, time, base fee and the rest of the header the forecast
	// takes, without its transactions and on Latest's state; nil when the view does not know
	// it (the forecast is then made from Latest alone).
	Forecast bool
	Next     *Snapshot
}

// Preconfirmed returns the pre-confirmed block (Pending, else Sealing) that holds the
// transaction with this hash, and its position; false when neither does.
func (v *View) Preconfirmed(hash common.Hash) (*Snapshot, int, bool) {
	for _, s := range [...]*Snapshot{v.Pending, v.Sealing} {
		if s == nil {
			continue
		}
		if i, ok := s.TxIndex(hash); ok {
			return s, i, true
		}
	}
	return nil, 0, false
}

// SealingByHash returns Sealing when hash is its block's hash, else nil: look-ups by block
// hash on the pre-confirmed endpoint answer the block being written from it.
func (v *View) SealingByHash(hash common.Hash) *Snapshot {
	if v.Sealing != nil && v.Sealing.Block.Hash() == hash {
		return v.Sealing
	}
	return nil
}

// SealedView is the View of a chain without a block in progress (no pre-confirmations: serve
// mode).
func SealedView(h *chain.Heads) View {
	return View{Latest: h.Latest, Safe: h.Safe, Finalized: h.Finalized}
}

// View returns the newest published View: one atomic load.
func (p *Preconf) View() *View { return p.view.Load() }

// buildsOn reports whether snap is a pre-confirmation of the block after head.
func buildsOn(snap *Snapshot, head *types.Header) bool {
	if snap == nil {
		return false
	}
	if snap.Parent == head {
		return true
	}
	return snap.Number() == head.Number.Uint64()+1 && snap.Block.ParentHash() == head.Hash()
}

// publishViewLocked publishes the chain's current Heads paired with the block being written
// (p.sealing, until the Heads name it) and snap, or with no block in progress when snap is
// nil or does not build on them. Until the next block opens, the block being written stays
// the Pending it was (snap is then that block). p.viewMu must be held.
func (p *Preconf) publishViewLocked(snap *Snapshot) {
	heads := p.chain.Heads()
	v := SealedView(heads)
	base := heads.Latest
	if s := p.sealing; s != nil {
		switch {
		case !buildsOn(s, heads.Latest):
			p.sealing = nil // written (the Heads name it), or the write failed
		case snap == s:
			v.Pending = s // the next block has not opened yet
			v.Cheats, v.Hidden = p.unsealedOn(heads.Latest), p.hidden
			p.view.Store(&v)
			return
		default:
			v.Sealing, base = s, s.Block.Header()
		}
	}
	if buildsOn(snap, base) {
		v.Pending = snap
	}
	v.Cheats, v.Hidden = p.unsealedOn(heads.Latest), p.hidden
	p.view.Store(&v)
}

// publishView is publishViewLocked for callers that do not hold p.viewMu.
func (p *Preconf) publishView(snap *Snapshot) {
	p.viewMu.Lock()
	defer p.viewMu.Unlock()
	p.publishViewLocked(snap)
}

// onHeads pairs new sealed Heads with the block in progress: kept while it still builds on
// the sealed head (the safe or finalized block changed) or on the block being written, which
// the new Heads name sealed (SealAsync), dropped once its own block is sealed (or the head
// moved elsewhere). It runs on the chain's writing goroutine (SealAsync's writer, or the
// Preconf's writer while Seal holds p.mu), before anyone is told of the change: it takes
// p.viewMu only.
func (p *Preconf) onHeads(*chain.Heads) {
	p.viewMu.Lock()
	defer p.viewMu.Unlock()
	p.publishViewLocked(p.view.Load().Pending)
}

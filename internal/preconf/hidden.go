package preconf

// A chain without pre-confirmations (Base since Denim: a sealed block every 200 ms and nothing
// published between two) still builds each block through a Preconf: its writer opens the block
// with PublishOptions.Hidden, executes transactions into it ahead of the seal if it likes, and
// seals it as any writer does. Nothing of the block in progress reaches a reader:
//
//   - every View published while it is hidden says so (View.Hidden) and readers show it as
//     the standard endpoint shows any View: Latest and the sealed chain, `pending` the next
//     block as forecast. Pending and Sealing stay in the View only for what a new transaction
//     is validated against (internal/api's pool view), and Current returns nil;
//   - the OnSnapshot listeners (the flashblocks feed, the pre-confirmation subscriptions, the
//     metrics) are not called, and OnRetract listeners hear of no retraction: nobody saw
//     what a rebuild or a chosen seal drops;
//   - the sealed block reaches readers as every sealed block does: through the chain's Heads,
//     once it is durable and readable, and then the chain's OnHead listeners.
//
// The choice is the writer's, made at every Open, and holds until the next Open.

// setHidden records whether the block being opened is hidden. p.mu must be held.
func (p *Preconf) setHidden(hidden bool) {
	if p.hidden == hidden {
		return
	}
	p.viewMu.Lock()
	p.hidden = hidden
	p.viewMu.Unlock()
}

// Hide marks the Views hidden from now until the next Open, without opening a block: for a
// writer that never builds a block in progress, whose chain shows no pre-confirmations (a
// replica that follows sealed blocks without a feed). Its readers then answer as on a chain
// without pre-confirmations: `pending` the next block as forecast on both endpoints, no
// pre-confirmation events.
func (p *Preconf) Hide() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.viewMu.Lock()
	defer p.viewMu.Unlock()
	p.hidden = true
	p.publishViewLocked(p.view.Load().Pending)
}

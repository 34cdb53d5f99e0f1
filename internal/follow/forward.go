package follow

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// SendRawTransaction forwards a signed transaction to the sequencer (Config.Sequencer, else
// the upstream) with eth_sendRawTransaction. The sequencer's error answer is returned as an
// *RPCError, which the API relays with its code, message and data; a sequencer that cannot
// be reached is an error naming it. It implements the API's Forwarder.
func (f *Follower) SendRawTransaction(ctx context.Context, raw []byte) error {
	_, err := f.seq.sendRaw(ctx, "eth_sendRawTransaction", hexutil.Bytes(raw))
	if err == nil {
		return nil
	}
	if rerr, ok := errors.AsType[*RPCError](err); ok {
		return rerr
	}
	return fmt.Errorf("forward to the sequencer %s: %w", f.seq.url(), err)
}

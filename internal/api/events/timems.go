package events

import (
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/flashrpc/flashrpc/internal/chain"
)

// sealedMs gives sealed logs their block's time in milliseconds (chain.TimeMsOf: a Denim
// block's, else none), remembering the last block's, since the logs of one block come
// together. A nil *sealedMs gives none: pre-confirmed logs have no millisecond time. Not
// safe for concurrent use.
type sealedMs struct {
	c    *chain.Chain
	hash common.Hash
	ms   *uint64
	set  bool
}

// of returns the millisecond time of l's block, nil when it has none.
func (s *sealedMs) of(l *types.Log) *uint64 {
	if s == nil {
		return nil
	}
	if !s.set || l.BlockHash != s.hash {
		s.hash, s.ms, s.set = l.BlockHash, s.c.TimeMsOf(l.BlockHash, l.BlockTimestamp), true
	}
	return s.ms
}

package logs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
)

// Limits of a filter, go-ethereum's.
const (
	// MaxTopics is the number of topic positions a log can have.
	MaxTopics = 4
	// MaxSubTopics is the most alternatives one topic position may list.
	MaxSubTopics = 1000
)

// Errors of filter decoding, with go-ethereum's texts.
var (
	ErrExceedMaxTopics    = errors.New("exceed max topics")
	ErrInvalidTopic       = errors.New("invalid topic(s)")
	ErrBlockHashWithRange = errors.New("cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other")
)

// Criteria is an eth_getLogs filter. A nil FromBlock or ToBlock means latest. Topics[i] lists
// the alternatives for position i; an empty or nil list matches anything there.
type Criteria struct {
	BlockHash *common.Hash
	FromBlock *gethrpc.BlockNumber
	ToBlock   *gethrpc.BlockNumber
	Addresses []common.Address
	Topics    [][]common.Hash
}

// UnmarshalJSON decodes a filter as go-ethereum's FilterCriteria does, with its error texts.
func (c *Criteria) UnmarshalJSON(data []byte) error {
	var raw struct {
		BlockHash *common.Hash         `json:"blockHash"`
		FromBlock *gethrpc.BlockNumber `json:"fromBlock"`
		ToBlock   *gethrpc.BlockNumber `json:"toBlock"`
		Addresses any                  `json:"address"`
		Topics    []any                `json:"topics"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*c = Criteria{}
	if raw.BlockHash != nil {
		if raw.FromBlock != nil || raw.ToBlock != nil {
			return ErrBlockHashWithRange
		}
		c.BlockHash = raw.BlockHash
	} else {
		c.FromBlock, c.ToBlock = raw.FromBlock, raw.ToBlock
	}
	switch addrs := raw.Addresses.(type) {
	case nil:
	case []any:
		for i, a := range addrs {
			s, ok := a.(string)
			if !ok {
				return fmt.Errorf("non-string address at index %d", i)
			}
			addr, err := decodeAddress(s)
			if err != nil {
				return fmt.Errorf("invalid address at index %d: %v", i, err)
			}
			c.Addresses = append(c.Addresses, addr)
		}
	case string:
		addr, err := decodeAddress(addrs)
		if err != nil {
			return fmt.Errorf("invalid address: %v", err)
		}
		c.Addresses = []common.Address{addr}
	default:
		return errors.New("invalid addresses in query")
	}
	if len(raw.Topics) > MaxTopics {
		return ErrExceedMaxTopics
	}
	if len(raw.Topics) > 0 {
		c.Topics = make([][]common.Hash, len(raw.Topics))
	}
	for i, t := range raw.Topics {
		switch topic := t.(type) {
		case nil:
		case string:
			h, err := decodeTopic(topic)
			if err != nil {
				return err
			}
			c.Topics[i] = []common.Hash{h}
		case []any:
			if len(topic) > MaxSubTopics {
				return ErrExceedMaxTopics
			}
			for _, alt := range topic {
				if alt == nil { // a null alternative matches anything
					c.Topics[i] = nil
					break
				}
				s, ok := alt.(string)
				if !ok {
					return ErrInvalidTopic
				}
				h, err := decodeTopic(s)
				if err != nil {
					return err
				}
				c.Topics[i] = append(c.Topics[i], h)
			}
		default:
			return ErrInvalidTopic
		}
	}
	return nil
}

func decodeAddress(s string) (common.Address, error) {
	b, err := hexutil.Decode(s)
	if err == nil && len(b) != common.AddressLength {
		err = fmt.Errorf("hex has invalid length %d after decoding; expected %d for address", len(b), common.AddressLength)
	}
	return common.BytesToAddress(b), err
}

func decodeTopic(s string) (common.Hash, error) {
	b, err := hexutil.Decode(s)
	if err == nil && len(b) != common.HashLength {
		err = fmt.Errorf("hex has invalid length %d after decoding; expected %d for topic", len(b), common.HashLength)
	}
	return common.BytesToHash(b), err
}

// Match reports whether l matches the addresses and topics of c.
func (c *Criteria) Match(l *types.Log) bool {
	if len(c.Addresses) > 0 && !containsAddress(c.Addresses, l.Address) {
		return false
	}
	if len(c.Topics) > len(l.Topics) {
		return false
	}
	for i, alts := range c.Topics {
		if len(alts) > 0 && !containsHash(alts, l.Topics[i]) {
			return false
		}
	}
	return true
}

// MayMatch reports whether a block with this bloom can hold a matching log (no false
// negatives).
func (c *Criteria) MayMatch(bloom types.Bloom) bool {
	if len(c.Addresses) > 0 {
		found := false
		for _, a := range c.Addresses {
			if bloom.Test(a[:]) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	for _, alts := range c.Topics {
		if len(alts) == 0 {
			continue
		}
		found := false
		for _, t := range alts {
			if bloom.Test(t[:]) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Filter returns the logs of logs that match c, in order. The result is a new slice.
func (c *Criteria) Filter(logs []*types.Log) []*types.Log {
	var out []*types.Log
	for _, l := range logs {
		if c.Match(l) {
			out = append(out, l)
		}
	}
	return out
}

func containsAddress(list []common.Address, a common.Address) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

func containsHash(list []common.Hash, h common.Hash) bool {
	for _, x := range list {
		if x == h {
			return true
		}
	}
	return false
}

package ethjson

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// FuzzAppendLog: for any log, AppendLog writes what go-ethereum's marshaller writes, and
// go-ethereum's decoder reads it back to the same log (unless its topics are nil: go-ethereum
// writes null and refuses it). The log is built from the inputs: the
// address from the first 20 bytes of addr, one topic per 32 bytes of topics (nil topics when
// noTopics), data, the numbers and removed.
func FuzzAppendLog(f *testing.F) {
	f.Add([]byte{}, []byte{}, []byte{}, false, uint64(0), uint(0), uint(0), uint64(0), false)
	f.Add(common.FromHex("0x7DCD17433742F4C0CA53122AB541D0BA67FC27DF"), make([]byte, 64), []byte{0x25}, false, uint64(0x2a), uint(3), uint(17), uint64(0x1a4), true)
	f.Add([]byte{1}, make([]byte, 31), make([]byte, 300), true, ^uint64(0), ^uint(0), ^uint(0), ^uint64(0), false)
	f.Fuzz(func(t *testing.T, addr, topics, data []byte, noTopics bool, number uint64, txIndex, index uint, blockTime uint64, removed bool) {
		l := &types.Log{
			Address: common.BytesToAddress(addr), Data: data, BlockNumber: number,
			TxHash: common.BytesToHash(append(addr, 1)), TxIndex: txIndex, BlockHash: common.BytesToHash(append(addr, 2)),
			BlockTimestamp: blockTime, Index: index, Removed: removed,
		}
		if !noTopics {
			l.Topics = []common.Hash{}
			for len(topics) >= 32 {
				l.Topics = append(l.Topics, common.BytesToHash(topics[:32]))
				topics = topics[32:]
			}
		}
		got := AppendLog(nil, l)
		want, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		jsonCheck(t, "log", got, want)
		if l.Topics == nil {
			return // "topics":null, which go-ethereum writes and its decoder refuses, as ours
		}
		var back types.Log
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("go-ethereum cannot decode %s: %v", got, err)
		}
		if len(l.Data) == 0 {
			back.Data = l.Data // empty and nil both encode as "0x"
		}
		if !reflect.DeepEqual(&back, l) {
			t.Fatalf("decodes to %+v, want %+v", back, *l)
		}
	})
}

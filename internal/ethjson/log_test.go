package ethjson

import (
	"encoding/json"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func jsonTestLogs() []*types.Log {
	return []*types.Log{
		{}, // zero log: nil topics and data
		{
			Address:        common.HexToAddress("0x7DCD17433742F4C0CA53122AB541D0BA67FC27DF"),
			Topics:         []common.Hash{common.HexToHash("0x656d6974"), common.HexToHash("0x35f96bc70aa62a539fa99d9153b0f8aaa4594abf70cc8a8d9018e04e39a17982")},
			Data:           common.FromHex("0x0000000000000000000000000000000000000000000000000000000000000025"),
			BlockNumber:    0x2a,
			TxHash:         common.HexToHash("0x4bb6fa064c302d27ea9ac821e061bcc336b8fa40de77f01e116c6461d47e7ac1"),
			TxIndex:        3,
			BlockHash:      common.HexToHash("0x9e5e1e79c57f257def6a0e882d10863e2a98b034e6e0fdaccd7ff7b31312105d"),
			BlockTimestamp: 0x1a4,
			Index:          17,
			Removed:        true,
		},
		{Topics: []common.Hash{}, Data: []byte{}},
	}
}

func TestAppendLogJSON(t *testing.T) {
	t.Parallel()
	for i, l := range jsonTestLogs() {
		got := AppendLog([]byte("["), l)[1:]
		jsonCheck(t, "log", got, jsonMarshalRef(t, l))
		jsonCheckKeyOrder(t, "log", got, []string{"address", "topics", "data", "blockNumber", "transactionHash", "transactionIndex", "blockHash", "blockTimestamp", "logIndex", "removed"})
		if len(jsonObjectKeys(t, got)) != 10 {
			t.Errorf("log %d: %d keys, want 10", i, len(jsonObjectKeys(t, got)))
		}
	}
}

func TestAppendLogsJSON(t *testing.T) {
	t.Parallel()
	logs := jsonTestLogs()
	cases := []struct {
		name string
		in   []*types.Log
		want []byte
	}{
		{"nil", nil, []byte("[]")},
		{"empty", []*types.Log{}, []byte("[]")},
		{"one", logs[1:2], jsonMarshalRef(t, logs[1:2])},
		{"all", logs, jsonMarshalRef(t, logs)},
		{"nil entry", []*types.Log{nil, logs[1]}, jsonMarshalRef(t, []*types.Log{nil, logs[1]})},
	}
	for _, c := range cases {
		jsonCheck(t, c.name, AppendLogs(nil, c.in), c.want)
	}
	var decoded []*types.Log
	if err := json.Unmarshal(AppendLogs(nil, logs[1:]), &decoded); err != nil {
		t.Fatalf("geth cannot decode the logs: %v", err)
	}
	if decoded[0].Index != 17 || !decoded[0].Removed || decoded[0].BlockTimestamp != 0x1a4 {
		t.Errorf("decoded log = %+v", decoded[0])
	}
}

func BenchmarkAppendLogJSON(b *testing.B) {
	l := jsonTestLogs()[1]
	buf := AppendLog(nil, l)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = AppendLog(buf[:0], l)
	}
	if len(buf) == 0 {
		b.Fatal("empty output")
	}
}

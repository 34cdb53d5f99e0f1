package chaindata

import (
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/params"
)

// TestTimeForks checks which forks eth_config reports: Ethereum's time forks always, the OP
// Stack's only on an OP Stack chain, each time once and in order.
func TestTimeForks(t *testing.T) {
	t.Parallel()
	at := func(v uint64) *uint64 { return &v }
	l1 := &params.ChainConfig{ChainID: big.NewInt(1), LondonBlock: big.NewInt(0), ShanghaiTime: at(10), CancunTime: at(20), PragueTime: at(20), OsakaTime: at(40),
		JovianTime: at(30)} // ignored: not an OP Stack chain
	op := *l1
	op.Optimism = &params.OptimismConfig{EIP1559Elasticity: 6, EIP1559Denominator: 50}
	op.RegolithTime, op.CanyonTime, op.IsthmusTime, op.KarstTime = at(0), at(10), at(20), nil
	for _, tc := range []struct {
		name   string
		config *params.ChainConfig
		want   []uint64
	}{
		{"ethereum", l1, []uint64{10, 20, 40}},
		{"op stack", &op, []uint64{0, 10, 20, 30, 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := timeForks(tc.config); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("time forks %v, want %v", got, tc.want)
			}
		})
	}
}

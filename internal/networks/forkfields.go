package networks

import (
	"math/big"
	"reflect"
	"strings"

	"github.com/ethereum/go-ethereum/params"
)

// forkField is one fork field of a chain configuration: a ...Block field (*big.Int) or a
// ...Time field (*uint64). It points into the configuration it was read from: setting it
// changes that configuration.
type forkField struct {
	// name is the fork's name as [Fork.Name] has it: the field's JSON key without "Block" or
	// "Time" ("cancun", "bpo1", "karst").
	name  string
	block **big.Int // a block field's; nil for a time field
	time  **uint64  // a time field's; nil for a block field
}

// forkFields returns the fork fields of cfg in the configuration's field order, nil or not.
// It is the one walk over params.ChainConfig's fields: a fork go-ethereum or op-geth adds is
// seen by every caller at once.
func forkFields(cfg *params.ChainConfig) []forkField {
	var out []forkField
	v := reflect.ValueOf(cfg).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case strings.HasSuffix(key, "Block") && f.Type == reflect.TypeFor[*big.Int]():
			out = append(out, forkField{name: strings.TrimSuffix(key, "Block"), block: v.Field(i).Addr().Interface().(**big.Int)})
		case strings.HasSuffix(key, "Time") && f.Type == reflect.TypeFor[*uint64]():
			out = append(out, forkField{name: strings.TrimSuffix(key, "Time"), time: v.Field(i).Addr().Interface().(**uint64)})
		}
	}
	return out
}

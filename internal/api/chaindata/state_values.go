package chaindata

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"

	"github.com/flashrpc/flashrpc/internal/api/core"
	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/ethjson"
	"github.com/flashrpc/flashrpc/internal/preconf"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// eth_getStorageValues: many storage slots of many accounts in one state, as go-ethereum
// v1.17 answers it: {address: [slot values as 32-byte hex, in the order asked]}, addresses in
// the order encoding/json sorts them (lowercase hex). Like eth_getStorageAt it reads the
// pre-confirmed state for `pending` on the pre-confirmed endpoint.

// maxStorageValues is the most slots one eth_getStorageValues may ask for, all accounts
// together (go-ethereum's limit; -38026 beyond).
const maxStorageValues = 1024

// GetStorageValues answers eth_getStorageValues.
func (a *API) GetStorageValues(ctx context.Context, v preconf.View, p rpc.Params) (any, error) {
	if err := param.CheckCount(p, 2); err != nil {
		return nil, err
	}
	var requests map[common.Address][]common.Hash
	if err := param.DecodeArg(p, 0, &requests); err != nil {
		return nil, err
	}
	total := 0
	for _, slots := range requests {
		total += len(slots)
		if total > maxStorageValues {
			return nil, core.ErrTooManyStorageValues(maxStorageValues)
		}
	}
	if total == 0 {
		return nil, core.ErrEmptyStorageValues()
	}
	b, err := param.DecodeBlockNumberOrHash(p, 1, false)
	if err != nil {
		return nil, err
	}
	addrs := make([]common.Address, 0, len(requests))
	for addr := range requests {
		addrs = append(addrs, addr)
	}
	slices.SortFunc(addrs, func(x, y common.Address) int { return bytes.Compare(x[:], y[:]) })
	out := make([]byte, 0, 80*total+64*len(addrs))
	keys := core.StateKeys{Accounts: addrs}
	for _, addr := range addrs {
		for _, slot := range requests[addr] {
			keys.Slots = append(keys.Slots, core.StorageKey{Addr: addr, Slot: slot})
		}
	}
	err = a.ReadState(ctx, v, b, keys, func(st *state.StateDB) {
		out = append(out, '{')
		for i, addr := range addrs {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendAddressKey(out, addr)
			out = append(out, ":["...)
			for k, slot := range requests[addr] {
				if k > 0 {
					out = append(out, ',')
				}
				value := st.GetState(addr, slot)
				out = ethjson.AppendHexBytes(out, value[:])
			}
			out = append(out, ']')
		}
		out = append(out, '}')
	})
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}

// appendAddressKey appends addr as a JSON object key, lowercase hex as encoding/json writes a
// map keyed by common.Address.
func appendAddressKey(dst []byte, addr common.Address) []byte {
	return ethjson.AppendHexBytes(dst, addr[:])
}

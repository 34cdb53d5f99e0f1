package devapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/holiman/uint256"

	"github.com/flashrpc/flashrpc/internal/api/param"
	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/rpc"
)

// maxStateBytes bounds the decompressed JSON anvil_loadState reads.
const maxStateBytes = 256 << 20

// dumpedState is the JSON of anvil_dumpState and anvil_loadState: the shape of anvil's
// SerializableState, accounts by address (other members anvil writes are ignored on load).
type dumpedState struct {
	BestBlockNumber *hexutil.Uint64                  `json:"best_block_number,omitempty"`
	Accounts        map[common.Address]dumpedAccount `json:"accounts"`
}

type dumpedAccount struct {
	Nonce   json.RawMessage            `json:"nonce"`   // number (anvil) or quantity
	Balance json.RawMessage            `json:"balance"` // quantity
	Code    hexutil.Bytes              `json:"code"`
	Storage map[string]json.RawMessage `json:"storage"` // slot → word, as hex or quantities
}

// dumpState is anvil_dumpState: the sealed head's state, every account the chain knows the
// address of with its nonce, balance, code and storage, as gzipped JSON in anvil's shape,
// hex-encoded. The block in progress is not in it (evm_mine first to include it).
func (a *API) dumpState(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 0, 1); err != nil { // anvil takes an optional flag to keep history
		return nil, err
	}
	// A sealed block still being written (preconf.SealAsync) is dumped once it is the head.
	if err := a.b.Sequencer.WaitWritten(); err != nil {
		return nil, err
	}
	head := a.b.Chain.Head()
	number := hexutil.Uint64(head.Number.Uint64())
	out := dumpedState{BestBlockNumber: &number, Accounts: make(map[common.Address]dumpedAccount)}
	err := a.b.Chain.DumpState(ctx, head, func(addr common.Address, acc chain.DumpAccount) {
		bal, _ := new(big.Int).SetString(acc.Balance, 10)
		d := dumpedAccount{
			Nonce:   json.RawMessage(fmt.Sprint(acc.Nonce)),
			Balance: json.RawMessage(`"` + hexutil.EncodeBig(bal) + `"`),
			Code:    acc.Code,
			Storage: make(map[string]json.RawMessage, len(acc.Storage)),
		}
		if d.Code == nil {
			d.Code = []byte{}
		}
		for k, v := range acc.Storage {
			d.Storage[k.Hex()] = json.RawMessage(`"` + v.Hex() + `"`)
		}
		out.Accounts[addr] = d
	})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return hexutil.Bytes(buf.Bytes()), nil
}

// loadState is anvil_loadState(state): it merges a state dump (anvil_dumpState's hex, gzipped
// or plain JSON) into the block in progress, as a state cheat: each account's nonce, balance
// and code (when given) are set and its listed slots written. It answers true.
func (a *API) loadState(ctx context.Context, p rpc.Params) (any, error) {
	if err := wantParams(p, 1, 1); err != nil {
		return nil, err
	}
	raw, err := decodeBytesParam(p, 0, "state")
	if err != nil {
		return nil, err
	}
	accounts, err := parseDump(raw)
	if err != nil {
		return nil, param.NamedArgError(0, "state", err)
	}
	return a.cheat(ctx, func(st *state.StateDB) {
		for _, acc := range accounts {
			st.SetNonce(acc.addr, acc.nonce, tracing.NonceChangeUnspecified)
			st.SetBalance(acc.addr, acc.balance, tracing.BalanceChangeUnspecified)
			if acc.code != nil {
				st.SetCode(acc.addr, acc.code, tracing.CodeChangeUnspecified)
			}
			for _, s := range acc.slots {
				st.SetState(acc.addr, s[0], s[1])
			}
		}
	})
}

// loadAccount is one validated account of a dump.
type loadAccount struct {
	addr    common.Address
	nonce   uint64
	balance *uint256.Int
	code    []byte
	slots   [][2]common.Hash
}

// parseDump decodes and validates a state dump: gzipped or plain JSON.
func parseDump(raw []byte) ([]loadAccount, error) {
	var r io.Reader = bytes.NewReader(raw)
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	}
	data, err := io.ReadAll(io.LimitReader(r, maxStateBytes+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if len(data) > maxStateBytes {
		return nil, fmt.Errorf("more than %d bytes of JSON", maxStateBytes)
	}
	var dump dumpedState
	if err := json.Unmarshal(data, &dump); err != nil {
		return nil, err
	}
	out := make([]loadAccount, 0, len(dump.Accounts))
	for addr, acc := range dump.Accounts {
		la := loadAccount{addr: addr, balance: new(uint256.Int)}
		if len(acc.Nonce) > 0 {
			n, err := parseQuantity(acc.Nonce, 64)
			if err != nil {
				return nil, fmt.Errorf("account %s nonce: %w", addr, err)
			}
			la.nonce = n.Uint64()
		}
		if len(acc.Balance) > 0 {
			b, err := parseQuantity(acc.Balance, 256)
			if err != nil {
				return nil, fmt.Errorf("account %s balance: %w", addr, err)
			}
			la.balance, _ = uint256.FromBig(b)
		}
		if acc.Code != nil {
			la.code = acc.Code
		}
		for k, v := range acc.Storage {
			slot, err := parseQuantity(json.RawMessage(`"`+k+`"`), 256)
			if err != nil {
				return nil, fmt.Errorf("account %s slot %s: %w", addr, k, err)
			}
			val, err := parseQuantity(v, 256)
			if err != nil {
				return nil, fmt.Errorf("account %s slot %s value: %w", addr, k, err)
			}
			la.slots = append(la.slots, [2]common.Hash{common.BigToHash(slot), common.BigToHash(val)})
		}
		out = append(out, la)
	}
	return out, nil
}

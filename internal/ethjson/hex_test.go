package ethjson

import (
	"encoding/json"
	"math"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
)

func TestAppendQuantityJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   uint64
		want string
	}{
		{0, `"0x0"`},
		{1, `"0x1"`},
		{0xf, `"0xf"`},
		{0x10, `"0x10"`},
		{0xabcdef, `"0xabcdef"`},
		{1 << 32, `"0x100000000"`},
		{math.MaxUint64, `"0xffffffffffffffff"`},
	}
	for _, c := range cases {
		if got := string(AppendQuantity(nil, c.in)); got != c.want {
			t.Errorf("AppendQuantity(%#x) = %s, want %s", c.in, got, c.want)
		}
		if ref := string(jsonMarshalRef(t, hexutil.Uint64(c.in))); ref != c.want {
			t.Errorf("hexutil.Uint64(%#x) = %s, table says %s", c.in, ref, c.want)
		}
	}
}

func TestAppendBigJSON(t *testing.T) {
	t.Parallel()
	huge, _ := new(big.Int).SetString("1000000000000000000000000000000000000000000000000000000000000000001", 16)
	cases := []struct {
		name string
		in   *big.Int
		want string
	}{
		{"nil", nil, `null`},
		{"zero", new(big.Int), `"0x0"`},
		{"one", big.NewInt(1), `"0x1"`},
		{"negative", big.NewInt(-0x1f), `"-0x1f"`},
		{"word boundary", new(big.Int).Lsh(big.NewInt(1), 64), `"0x10000000000000000"`},
		{"inner zero words", new(big.Int).Lsh(big.NewInt(0xa), 128), `"0xa00000000000000000000000000000000"`},
		{"over 256 bits", huge, `"0x1000000000000000000000000000000000000000000000000000000000000000001"`},
	}
	for _, c := range cases {
		got := string(AppendBig(nil, c.in))
		ref := string(jsonMarshalRef(t, (*hexutil.Big)(c.in)))
		if got != c.want || ref != c.want {
			t.Errorf("%s: AppendBig = %s, hexutil.Big = %s, want %s", c.name, got, ref, c.want)
		}
	}
}

func TestAppendHexValuesJSON(t *testing.T) {
	t.Parallel()
	hash := common.HexToHash("0x00ABCDEF00000000000000000000000000000000000000000000000000000001")
	addr := common.HexToAddress("0x7435ED30A8B4AEB0877CEF0C6E8CFFE834EB865F")
	cases := []struct {
		name string
		got  []byte
		ref  any
	}{
		{"bytes nil", AppendHexBytes(nil, nil), hexutil.Bytes(nil)},
		{"bytes empty", AppendHexBytes(nil, []byte{}), hexutil.Bytes{}},
		{"bytes", AppendHexBytes(nil, []byte{0, 1, 0xab, 0xff}), hexutil.Bytes{0, 1, 0xab, 0xff}},
		{"hash", AppendHash(nil, hash), hash},
		{"hash ptr nil", appendHashPtr(nil, nil), (*common.Hash)(nil)},
		{"hash ptr", appendHashPtr(nil, &hash), &hash},
		{"address lowercase", AppendAddress(nil, addr), addr},
		{"address ptr nil", appendAddressPtr(nil, nil), (*common.Address)(nil)},
		{"address ptr", appendAddressPtr(nil, &addr), &addr},
		{"hashes nil", appendHashes(nil, nil), []common.Hash(nil)},
		{"hashes empty", appendHashes(nil, []common.Hash{}), []common.Hash{}},
		{"hashes", appendHashes(nil, []common.Hash{hash, {}}), []common.Hash{hash, {}}},
		{"u256 zero", AppendU256(nil, new(uint256.Int)), (*hexutil.U256)(new(uint256.Int))},
		{"u256 max", AppendU256(nil, new(uint256.Int).SetAllOne()), (*hexutil.U256)(new(uint256.Int).SetAllOne())},
		{"u256 inner zeros", AppendU256(nil, new(uint256.Int).Lsh(uint256.NewInt(1), 192)), (*hexutil.U256)(new(uint256.Int).Lsh(uint256.NewInt(1), 192))},
		{"true", AppendBool(nil, true), true},
		{"false", AppendBool(nil, false), false},
	}
	for _, c := range cases {
		jsonCheck(t, c.name, c.got, jsonMarshalRef(t, c.ref))
	}
}

func TestAppendHexNoAllocJSON(t *testing.T) {
	b := new(big.Int).Lsh(big.NewInt(0x1234), 200)
	u := new(uint256.Int).SetAllOne()
	h := common.Hash{1}
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		dst := AppendQuantity(buf[:0], math.MaxUint64)
		dst = AppendBig(dst, b)
		dst = AppendU256(dst, u)
		dst = AppendHash(dst, h)
		dst = AppendAddress(dst, common.Address{2})
		_ = AppendHexBytes(dst, h[:])
	})
	if allocs != 0 {
		t.Errorf("hex appenders allocate %v times per run, want 0", allocs)
	}
}

func FuzzAppendQuantityJSON(f *testing.F) {
	for _, v := range []uint64{0, 1, 15, 16, 255, 1 << 63, math.MaxUint64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v uint64) {
		want, _ := json.Marshal(hexutil.Uint64(v))
		if got := AppendQuantity(nil, v); string(got) != string(want) {
			t.Fatalf("AppendQuantity(%#x) = %s, want %s", v, got, want)
		}
	})
}

func FuzzAppendBigJSON(f *testing.F) {
	f.Add([]byte{}, false)
	f.Add([]byte{0, 0, 1}, true)
	f.Add([]byte{0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, false)
	f.Fuzz(func(t *testing.T, mag []byte, neg bool) {
		b := new(big.Int).SetBytes(mag)
		if neg {
			b.Neg(b)
		}
		want, _ := json.Marshal((*hexutil.Big)(b))
		if got := AppendBig(nil, b); string(got) != string(want) {
			t.Fatalf("AppendBig(%v) = %s, want %s", b, got, want)
		}
	})
}

func FuzzAppendU256JSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 32 {
			raw = raw[:32]
		}
		u := new(uint256.Int).SetBytes(raw)
		want, _ := json.Marshal((*hexutil.U256)(u))
		if got := AppendU256(nil, u); string(got) != string(want) {
			t.Fatalf("AppendU256(%x) = %s, want %s", raw, got, want)
		}
	})
}

func FuzzAppendHexBytesJSON(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0x7f, 0x80, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		want, _ := json.Marshal(hexutil.Bytes(b))
		if got := AppendHexBytes(nil, b); string(got) != string(want) {
			t.Fatalf("AppendHexBytes(%x) = %s, want %s", b, got, want)
		}
	})
}

package devaccounts

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestDeriveTestMnemonic checks the ten accounts anvil 1.7.1 and hardhat print
// for TestMnemonic.
func TestDeriveTestMnemonic(t *testing.T) {
	t.Parallel()
	want := []struct{ addr, key string }{
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"},
		{"0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
		{"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"},
		{"0x90F79bf6EB2c4f870365E785982E1f101E93b906", "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"},
		{"0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65", "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"},
		{"0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"},
		{"0x976EA74026E726554dB657fA54763abd0C3a0aa9", "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"},
		{"0x14dC79964da2C08b23698B3D3cc7Ca32193d9955", "4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"},
		{"0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f", "dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"},
		{"0xa0Ee7A142d267C1f36714E4a8F75612F20a79720", "2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"},
	}
	got, err := Derive(TestMnemonic, len(want))
	if err != nil {
		t.Fatalf("Derive: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d accounts, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Address != common.HexToAddress(w.addr) {
			t.Errorf("account %d: got address %v, want %v", i, got[i].Address, w.addr)
		}
		if k := hex.EncodeToString(crypto.FromECDSA(got[i].Key)); k != w.key {
			t.Errorf("account %d: got key %s, want %s", i, k, w.key)
		}
		if a := crypto.PubkeyToAddress(got[i].Key.PublicKey); a != got[i].Address {
			t.Errorf("account %d: key controls %v, not %v", i, a, got[i].Address)
		}
	}
}

func TestDeriveCount(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 3} {
		got, err := Derive(TestMnemonic, n)
		if err != nil {
			t.Fatalf("Derive(n=%d): %v", n, err)
		}
		if len(got) != n {
			t.Errorf("Derive(n=%d): got %d accounts", n, len(got))
		}
	}
	if _, err := Derive(TestMnemonic, -1); err == nil {
		t.Error("Derive(n=-1): got nil error")
	}
}

func TestDeriveInvalidMnemonic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		mnemonic string
		wantText string // substring of the error message
	}{
		{"empty", "", "has 0 words"},
		{"eleven words", "test test test test test test test test test test junk", "has 11 words"},
		{"unknown word", "test test test test test test test test test test test junkk", `word 12 "junkk"`},
		{"checksum", "test test test test test test test test test test test test", "checksum"},
		{"uppercase", "Test test test test test test test test test test test junk", `word 1 "Test"`},
		{"double space", "test  test test test test test test test test test test junk", "single spaces"},
		{"trailing newline", TestMnemonic + "\n", "single spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Derive(tt.mnemonic, 1)
			if err == nil {
				t.Fatalf("got %d accounts and nil error, want error containing %q", len(got), tt.wantText)
			}
			if !strings.Contains(err.Error(), tt.wantText) || !strings.Contains(err.Error(), "invalid mnemonic") {
				t.Errorf("got error %q, want it to contain %q", err, tt.wantText)
			}
		})
	}
}

// TestDerivePathVector1 checks the BIP-32 derivation against test vector 1
// of the BIP-32 specification, independently of BIP-39 and BIP-44.
func TestDerivePathVector1(t *testing.T) {
	t.Parallel()
	const h = hardenedOffset
	seed := mustHex(t, "000102030405060708090a0b0c0d0e0f")
	tests := []struct {
		name       string
		path       []uint32
		key, chain string
	}{
		{"m", nil,
			"e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35",
			"873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508"},
		{"m/0H", []uint32{0 + h},
			"edb2e14f9ee77d26dd93b4ecede8d16ed408ce149b6cd80b0715a2d911a0afea",
			"47fdacbd0f1097043b78c63c20c34ef4ed9a111d980047ad16282c7ae6236141"},
		{"m/0H/1", []uint32{0 + h, 1},
			"3c6cb8d0f6a264c91ea8b5030fadaa8e538b020f0a387421a12de9319dc93368",
			"2a7857631386ba23dacac34180dd1983734e444fdbf774041578e9b6adb37c19"},
		{"m/0H/1/2H", []uint32{0 + h, 1, 2 + h},
			"cbce0d719ecf7431d88e6a89fa1483e02e35092af60c042b1df2ff59fa424dca",
			"04466b9cc8e161e966409ca52986c584f07e9dc81f735db683c3ff6ec7b1503f"},
		{"m/0H/1/2H/2", []uint32{0 + h, 1, 2 + h, 2},
			"0f479245fb19a38a1954c5c7c0ebab2f9bdfd96a17563ef28a6a4b1a2a764ef4",
			"cfb71883f01676f587d023cc53a35bc7f88f724b1f8c2892ac1275ac822a3edd"},
		{"m/0H/1/2H/2/1000000000", []uint32{0 + h, 1, 2 + h, 2, 1000000000},
			"471b76e389e528d6de6d816857e012c5455051cad6660850e58372a6c3e6e7c8",
			"c783e67b921d2beb8f6b389cc646d7263b4145701dadd2161548a8b078e65e9e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ek, err := derivePath(seed, tt.path)
			if err != nil {
				t.Fatalf("derivePath: %v", err)
			}
			if got := hex.EncodeToString(ek.key[:]); got != tt.key {
				t.Errorf("key: got %s, want %s", got, tt.key)
			}
			if got := hex.EncodeToString(ek.chain[:]); got != tt.chain {
				t.Errorf("chain code: got %s, want %s", got, tt.chain)
			}
		})
	}
}

// TestInvalidKeyEdgeCases forces the BIP-32 invalid-key branches, which no
// known seed reaches, by feeding chosen HMAC sums.
func TestInvalidKeyEdgeCases(t *testing.T) {
	t.Parallel()
	n := curveOrder()
	var nBytes, nMinus1, one [32]byte
	n.FillBytes(nBytes[:])
	nMinus1 = nBytes
	nMinus1[31]-- // N is odd, so no borrow
	one[31] = 1
	sum := func(il [32]byte) []byte { return append(il[:], make([]byte, 32)...) }

	tests := []struct {
		name string
		run  func() error
		ok   bool
	}{
		{"master IL zero", func() error { _, err := masterFromSum(sum([32]byte{})); return err }, false},
		{"master IL = N", func() error { _, err := masterFromSum(sum(nBytes)); return err }, false},
		{"master IL = N-1", func() error { _, err := masterFromSum(sum(nMinus1)); return err }, true},
		{"child IL = N", func() error { _, err := addTweak(one, sum(nBytes), 7); return err }, false},
		{"child key sums to zero", func() error { _, err := addTweak(one, sum(nMinus1), 7); return err }, false},
		{"child IL zero", func() error { _, err := addTweak(one, sum([32]byte{}), 7); return err }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.run()
			if tt.ok && err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if !tt.ok && !errors.Is(err, ErrInvalidKey) {
				t.Fatalf("got error %v, want ErrInvalidKey", err)
			}
		})
	}
}

func TestAddTweakWraps(t *testing.T) {
	t.Parallel()
	// (N-1) + 2 = 1 mod N.
	var parent, il [32]byte
	curveOrder().FillBytes(parent[:])
	parent[31]--
	il[31] = 2
	ek, err := addTweak(parent, append(il[:], make([]byte, 32)...), 0)
	if err != nil {
		t.Fatalf("addTweak: %v", err)
	}
	want := [32]byte{31: 1}
	if ek.key != want {
		t.Errorf("got key %x, want %x", ek.key, want)
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

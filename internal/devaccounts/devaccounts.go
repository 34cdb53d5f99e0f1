package devaccounts

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/tyler-smith/go-bip39"
)

// TestMnemonic is the well-known development mnemonic used by anvil and
// hardhat. Its accounts are public; never send real funds to them.
const TestMnemonic = "test test test test test test test test test test test junk"

// hardenedOffset is added to a BIP-32 child index to request hardened
// derivation (written i' or iH).
const hardenedOffset uint32 = 1 << 31

// ethAccountPath is the BIP-44 prefix m/44'/60'/0'/0 of Ethereum accounts; the
// account index i is appended as a non-hardened step.
var ethAccountPath = []uint32{44 + hardenedOffset, 60 + hardenedOffset, 0 + hardenedOffset, 0}

// ErrInvalidKey is returned when a BIP-32 step yields an invalid private key
// (zero, or not below the curve order). BIP-32 says this happens with
// probability below 2^-127 and that the index should then be skipped; Derive
// reports it instead.
var ErrInvalidKey = errors.New("devaccounts: derived key is invalid")

// An Account is a dev account: its address and the private key that controls
// it.
type Account struct {
	Address common.Address
	Key     *ecdsa.PrivateKey
}

// Derive returns the first n accounts of mnemonic, account i at path
// m/44'/60'/0'/0/i, using an empty BIP-39 passphrase. It returns an error
// saying why if the mnemonic is not a valid BIP-39 English mnemonic in
// canonical form (lowercase words separated by single spaces). The caller
// owns the returned slice.
func Derive(mnemonic string, n int) ([]Account, error) {
	if n < 0 || int64(n) > int64(hardenedOffset) {
		return nil, fmt.Errorf("devaccounts: account count %d out of range [0, 2^31]", n)
	}
	if err := checkMnemonic(mnemonic); err != nil {
		return nil, fmt.Errorf("devaccounts: invalid mnemonic: %w", err)
	}
	seed, err := bip39.NewSeedWithErrorChecking(mnemonic, "")
	if err != nil {
		return nil, fmt.Errorf("devaccounts: invalid mnemonic: %w", err)
	}
	parent, err := derivePath(seed, ethAccountPath)
	if err != nil {
		return nil, fmt.Errorf("devaccounts: derive m/44'/60'/0'/0: %w", err)
	}
	accounts := make([]Account, n)
	for i := range accounts {
		child, err := parent.child(uint32(i))
		if err != nil {
			return nil, fmt.Errorf("devaccounts: derive account %d: %w", i, err)
		}
		key, err := crypto.ToECDSA(child.key[:])
		if err != nil {
			return nil, fmt.Errorf("devaccounts: account %d: %w", i, err)
		}
		accounts[i] = Account{Address: crypto.PubkeyToAddress(key.PublicKey), Key: key}
	}
	return accounts, nil
}

// checkMnemonic explains why go-bip39 would reject mnemonic, which on its own
// only says "Invalid mnenomic" for most faults. It also rejects non-canonical
// spacing, which go-bip39 accepts but which changes the seed.
func checkMnemonic(mnemonic string) error {
	words := strings.Fields(mnemonic)
	if strings.Join(words, " ") != mnemonic {
		return errors.New("words must be separated by single spaces, without leading or trailing space")
	}
	switch len(words) {
	case 12, 15, 18, 21, 24:
	default:
		return fmt.Errorf("has %d words, want 12, 15, 18, 21 or 24", len(words))
	}
	for i, w := range words {
		if _, ok := bip39.GetWordIndex(w); !ok {
			return fmt.Errorf("word %d %q is not in the BIP-39 English word list", i+1, w)
		}
	}
	if _, err := bip39.EntropyFromMnemonic(mnemonic); err != nil {
		return errors.New("checksum does not match")
	}
	return nil
}

// extendedKey is a BIP-32 extended private key: a 32-byte big-endian scalar
// and a 32-byte chain code.
type extendedKey struct {
	key   [32]byte
	chain [32]byte
}

// masterKey computes the BIP-32 master key of seed.
func masterKey(seed []byte) (extendedKey, error) {
	mac := hmac.New(sha512.New, []byte("Bitcoin seed"))
	mac.Write(seed)
	return masterFromSum(mac.Sum(nil))
}

// masterFromSum splits the master HMAC sum into key IL and chain code IR,
// refusing an IL that is zero or not below the curve order.
func masterFromSum(sum []byte) (extendedKey, error) {
	k := new(big.Int).SetBytes(sum[:32])
	if k.Sign() == 0 || k.Cmp(curveOrder()) >= 0 {
		return extendedKey{}, fmt.Errorf("master key: %w", ErrInvalidKey)
	}
	var ek extendedKey
	copy(ek.key[:], sum[:32])
	copy(ek.chain[:], sum[32:])
	return ek, nil
}

// child computes BIP-32 CKDpriv(ek, index). An index at or above
// hardenedOffset is a hardened step.
func (ek extendedKey) child(index uint32) (extendedKey, error) {
	data := make([]byte, 0, 37)
	if index >= hardenedOffset {
		data = append(data, 0)
		data = append(data, ek.key[:]...)
	} else {
		priv, err := crypto.ToECDSA(ek.key[:])
		if err != nil {
			return extendedKey{}, fmt.Errorf("child %d: parent: %w", index, err)
		}
		data = append(data, crypto.CompressPubkey(&priv.PublicKey)...)
	}
	data = binary.BigEndian.AppendUint32(data, index)

	mac := hmac.New(sha512.New, ek.chain[:])
	mac.Write(data)
	sum := mac.Sum(nil)
	return addTweak(ek.key, sum, index)
}

// addTweak finishes CKDpriv: the child key is parse256(IL) + kpar mod N and
// the child chain code is IR, where IL and IR are the halves of the HMAC sum.
func addTweak(parent [32]byte, sum []byte, index uint32) (extendedKey, error) {
	n := curveOrder()
	il := new(big.Int).SetBytes(sum[:32])
	if il.Cmp(n) >= 0 {
		return extendedKey{}, fmt.Errorf("child %d: tweak not below curve order: %w", index, ErrInvalidKey)
	}
	k := il.Add(il, new(big.Int).SetBytes(parent[:]))
	k.Mod(k, n)
	if k.Sign() == 0 {
		return extendedKey{}, fmt.Errorf("child %d: key is zero: %w", index, ErrInvalidKey)
	}
	var ek extendedKey
	k.FillBytes(ek.key[:])
	copy(ek.chain[:], sum[32:64])
	return ek, nil
}

// derivePath derives the extended key at path (one index per step, hardened
// steps include hardenedOffset) from seed.
func derivePath(seed []byte, path []uint32) (extendedKey, error) {
	ek, err := masterKey(seed)
	if err != nil {
		return extendedKey{}, err
	}
	for _, index := range path {
		if ek, err = ek.child(index); err != nil {
			return extendedKey{}, err
		}
	}
	return ek, nil
}

// curveOrder returns N, the order of secp256k1. The caller must not modify
// it.
func curveOrder() *big.Int {
	return crypto.S256().Params().N
}

package simulate

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rlp"
)

// This file builds a simulated block's receipts and the block itself the way go-ethereum's
// MakeReceipt and NewBlock do, with less hashing and encoding: each transaction is encoded
// once, for its hash and for the transaction trie, EIP-1559 transactions and receipts without
// reflection, and the bloom bits of an address or topic seen before in the block are not
// hashed again. In a 100-call request those were a fifth of the time. The conformance
// fixtures and the go-ethereum differential tests check every root and hash this produces;
// the tests here compare the encodings with go-ethereum's.

// encodeTx returns the encoding of tx, made from data, in the transaction trie
// (types.Transactions' EncodeIndex) and the transaction's hash. tx may be nil when data is
// a *types.DynamicFeeTx, whose encoding is taken from arena (which may be nil).
func encodeTx(arena *byteArena, tx *types.Transaction, data types.TxData) ([]byte, common.Hash) {
	if d, ok := data.(*types.DynamicFeeTx); ok {
		enc := encodeDynamicFeeTx(arena, d)
		return enc, keccak256(enc) // the type byte and the RLP of the fields
	}
	var buf bytes.Buffer
	types.Transactions{tx}.EncodeIndex(0, &buf)
	enc := buf.Bytes()
	if tx.Type() == types.BlobTxType {
		// The trie encoding includes a sidecar, the hash never does.
		return enc, tx.Hash()
	}
	// Otherwise the hash is the Keccak-256 of that same encoding (legacy: RLP of the fields;
	// typed: the type byte and the RLP of the fields).
	return enc, keccak256(enc)
}

// simReceipts are a block's receipts for DeriveSha: types.Receipts' EncodeIndex, without
// reflection.
type simReceipts []*types.Receipt

func (rs simReceipts) Len() int { return len(rs) }

func (rs simReceipts) EncodeIndex(i int, buf *bytes.Buffer) {
	r := rs[i]
	switch r.Type {
	case types.LegacyTxType:
	case types.AccessListTxType, types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
		buf.WriteByte(r.Type)
	default:
		types.Receipts(rs).EncodeIndex(i, buf) // whatever go-ethereum does with other types
		return
	}
	w := rlp.NewEncoderBuffer(buf)
	list := w.List()
	switch {
	case len(r.PostState) > 0:
		w.WriteBytes(r.PostState)
	case r.Status == types.ReceiptStatusFailed:
		w.WriteBytes(nil)
	default:
		w.WriteBytes([]byte{1})
	}
	w.WriteUint64(r.CumulativeGasUsed)
	w.WriteBytes(r.Bloom[:])
	logs := w.List()
	for _, log := range r.Logs {
		entry := w.List()
		w.WriteBytes(log.Address[:])
		topics := w.List()
		for i := range log.Topics {
			w.WriteBytes(log.Topics[i][:])
		}
		w.ListEnd(topics)
		w.WriteBytes(log.Data)
		w.ListEnd(entry)
	}
	w.ListEnd(logs)
	w.ListEnd(list)
	w.Flush()
}

// encodedTxs is a block's transactions as the trie encodings encodeTx made.
type encodedTxs [][]byte

func (l encodedTxs) Len() int                           { return len(l) }
func (l encodedTxs) EncodeIndex(i int, w *bytes.Buffer) { w.Write(l[i]) }

// makeReceipt is go-ethereum's core.MakeReceipt for the call just run, with the bloom from
// the block's memo, written into receipt. The call's transaction is tx, or made of data
// when tx is nil (an EIP-1559 call, see blockRun.txs).
func (run *blockRun) makeReceipt(receipt *types.Receipt, evm *vm.EVM, result *core.ExecutionResult, statedb *state.StateDB, tx *types.Transaction, data types.TxData, txHash common.Hash, cumulativeGas uint64, root []byte) {
	txType, to, nonce := uint8(types.DynamicFeeTxType), (*common.Address)(nil), uint64(0)
	if tx != nil {
		txType, to, nonce = tx.Type(), tx.To(), tx.Nonce()
	} else {
		d := data.(*types.DynamicFeeTx)
		to, nonce = d.To, d.Nonce
	}
	*receipt = types.Receipt{
		Type:              txType,
		PostState:         root,
		CumulativeGasUsed: cumulativeGas,
		Status:            types.ReceiptStatusSuccessful,
		TxHash:            txHash,
		GasUsed:           result.UsedGas,
	}
	if result.Failed() {
		receipt.Status = types.ReceiptStatusFailed
	}
	if txType == types.BlobTxType {
		receipt.BlobGasUsed = uint64(len(tx.BlobHashes()) * params.BlobTxBlobGasPerBlob)
		receipt.BlobGasPrice = evm.Context.BlobBaseFee
	}
	if to == nil {
		receipt.ContractAddress = crypto.CreateAddress(evm.TxContext.Origin, nonce)
	}
	receipt.Logs = statedb.GetLogs(txHash, run.header.Number.Uint64(), common.Hash{}, run.header.Time)
	receipt.BlockNumber = run.header.Number
	receipt.TransactionIndex = uint(statedb.TxIndex())
	receipt.Bloom = run.blooms.bloom(receipt.Logs)
}

// newSimBlock fills in the header's transaction and receipt roots, bloom, uncle and
// withdrawals hashes, as types.NewBlock does. header.Root must be set. A non-nil
// withdrawalsRoot is an OP Stack (Isthmus) block's: the header carries it instead of the
// withdrawals' hash.
// It returns the block's hash and size, from one encoding of the header and the
// transactions' encodings: types.Block's Hash and Size would encode both again.
func newSimBlock(header *types.Header, body *types.Body, txs encodedTxs, receipts []*types.Receipt, withdrawalsRoot *common.Hash) (common.Hash, uint64) {
	header.TxHash = types.EmptyTxsHash
	if len(txs) > 0 {
		header.TxHash = listRoot(txs)
	}
	header.ReceiptHash = types.EmptyReceiptsHash
	if len(receipts) > 0 {
		header.ReceiptHash = listRoot(simReceipts(receipts))
		header.Bloom = types.MergeBloom(receipts)
	}
	header.UncleHash = types.EmptyUncleHash
	switch {
	case withdrawalsRoot != nil:
		header.WithdrawalsHash = withdrawalsRoot
	case body.Withdrawals == nil:
		header.WithdrawalsHash = nil
	case len(body.Withdrawals) == 0:
		header.WithdrawalsHash = &types.EmptyWithdrawalsHash
	default:
		hash := listRoot(types.Withdrawals(body.Withdrawals))
		header.WithdrawalsHash = &hash
	}
	s := newKeccakScratch()
	defer s.release()
	// The only error is a negative number, which no decoded override or derived field holds
	// (a bytes.Buffer does not fail).
	_ = header.EncodeRLP(&s.buf)
	return s.sum(s.buf.Bytes()), blockSize(s.buf.Len(), body, txs)
}

// blockSize is the length of the block's RLP encoding (types.Block.Size) with a header
// encoding of headerSize bytes: [header, [tx...], [], [withdrawal...]], where a typed
// transaction is an RLP string holding its trie encoding and a legacy one its RLP list, and
// the withdrawals list is there when the body has one.
func blockSize(headerSize int, body *types.Body, txs encodedTxs) uint64 {
	txsSize := 0
	for _, enc := range txs {
		if len(enc) > 0 && enc[0] >= 0xc0 { // an RLP list: a legacy transaction
			txsSize += len(enc)
		} else {
			txsSize += rlpStringSize(enc)
		}
	}
	size := headerSize + rlpListSize(txsSize) + rlpListSize(0)
	if body.Withdrawals != nil {
		wsSize := 0
		for _, w := range body.Withdrawals {
			enc, _ := rlp.EncodeToBytes(w)
			wsSize += len(enc)
		}
		size += rlpListSize(wsSize)
	}
	return uint64(rlpListSize(size))
}

// rlpListSize is the size of an RLP list whose items take n bytes.
func rlpListSize(n int) int { return rlpHeaderSize(n) + n }

// rlpStringSize is the size of b encoded as an RLP string.
func rlpStringSize(b []byte) int {
	if len(b) == 1 && b[0] < 0x80 {
		return 1
	}
	return rlpHeaderSize(len(b)) + len(b)
}

// rlpHeaderSize is the size of the header of an RLP string or list of n bytes.
func rlpHeaderSize(n int) int {
	if n < 56 {
		return 1
	}
	return 1 + (bits.Len(uint(n))+7)/8
}

// bloomMemo remembers the bloom bits of the addresses and topics of a block's logs: a block
// of calls to one contract logs the same address and event signature again and again. Keys
// are kept apart by kind because the bits are those of the key's bytes, and an address is
// 20 bytes where a topic holding it is 32. Bits not seen in the request are looked up in
// shared, the Base's, when there is one: requests on a head log the same contracts' events.
type bloomMemo struct {
	addresses bitsMemo[common.Address]
	topics    bitsMemo[common.Hash]
	shared    *bloomCache // nil: none
}

// bitsMemo maps keys to their bloom bits: the first few in an array searched in order (most
// blocks have a handful, and need no allocation), the rest in a map.
type bitsMemo[K comparable] struct {
	small [8]struct {
		key  K
		bits bloomBits
	}
	n   int
	big map[K]bloomBits
}

// get returns the bloom bits of key, whose bytes are data, from shared when the memo does
// not have them (shared may be nil).
func (m *bitsMemo[K]) get(key K, data []byte, shared *sharedCache[K, bloomBits]) bloomBits {
	for i := range m.n {
		if m.small[i].key == key {
			return m.small[i].bits
		}
	}
	if bits, ok := m.big[key]; ok {
		return bits
	}
	bits, ok := shared.get(key)
	if !ok {
		bits = newBloomBits(data)
		shared.add(key, bits, maxSharedBloomKeys)
	}
	if m.n < len(m.small) {
		m.small[m.n].key, m.small[m.n].bits = key, bits
		m.n++
		return bits
	}
	if m.big == nil {
		m.big = make(map[K]bloomBits)
	}
	m.big[key] = bits
	return bits
}

// maxSharedBloomKeys bounds each kind of a bloomCache: the contracts and topics the
// requests on one head log, 38 bytes an entry.
const maxSharedBloomKeys = 4096

// A bloomCache holds the bloom bits of addresses and topics for all requests on a Base.
// Safe for concurrent use.
type bloomCache struct {
	addresses sharedCache[common.Address, bloomBits]
	topics    sharedCache[common.Hash, bloomBits]
}

// bloomBits are the first 6 bytes of the Keccak-256 of a bloom entry: three 11-bit
// positions, as go-ethereum's bloomValues reads them.
type bloomBits [6]byte

func newBloomBits(data []byte) bloomBits {
	var b bloomBits
	copy(b[:], crypto.Keccak256(data))
	return b
}

// set sets the three bits in bloom.
func (b bloomBits) set(bloom *types.Bloom) {
	for k := 0; k < 6; k += 2 {
		bit := byte(1 << (b[k+1] & 0x7))
		i := types.BloomByteLength - int((binary.BigEndian.Uint16(b[k:])&0x7ff)>>3) - 1
		bloom[i] |= bit
	}
}

// bloom returns the bloom of logs, types.CreateBloom's.
func (m *bloomMemo) bloom(logs []*types.Log) types.Bloom {
	var bloom types.Bloom
	var addresses *sharedCache[common.Address, bloomBits]
	var topics *sharedCache[common.Hash, bloomBits]
	if m.shared != nil {
		addresses, topics = &m.shared.addresses, &m.shared.topics
	}
	for _, log := range logs {
		m.addresses.get(log.Address, log.Address[:], addresses).set(&bloom)
		for i := range log.Topics {
			m.topics.get(log.Topics[i], log.Topics[i][:], topics).set(&bloom)
		}
	}
	return bloom
}

package ethjson

// This file reproduces go-ethereum v1.17.10's RPC marshallers (internal/ethapi/api.go:
// RPCMarshalHeader, RPCMarshalBlock, RPCTransaction + newRPCTransaction, MarshalReceipt) line
// for line, with maps, structs and encoding/json, as the reference the fast encoders are
// compared with byte for byte. internal/ethapi cannot be imported; keep this code a faithful
// copy and do not "fix" it.

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
)

func refMarshalHeader(head *types.Header) map[string]any {
	result := map[string]any{
		"number":           (*hexutil.Big)(head.Number),
		"hash":             head.Hash(),
		"parentHash":       head.ParentHash,
		"nonce":            head.Nonce,
		"mixHash":          head.MixDigest,
		"sha3Uncles":       head.UncleHash,
		"logsBloom":        head.Bloom,
		"stateRoot":        head.Root,
		"miner":            head.Coinbase,
		"difficulty":       (*hexutil.Big)(head.Difficulty),
		"extraData":        hexutil.Bytes(head.Extra),
		"gasLimit":         hexutil.Uint64(head.GasLimit),
		"gasUsed":          hexutil.Uint64(head.GasUsed),
		"timestamp":        hexutil.Uint64(head.Time),
		"transactionsRoot": head.TxHash,
		"receiptsRoot":     head.ReceiptHash,
	}
	if head.BaseFee != nil {
		result["baseFeePerGas"] = (*hexutil.Big)(head.BaseFee)
	}
	if head.WithdrawalsHash != nil {
		result["withdrawalsRoot"] = head.WithdrawalsHash
	}
	if head.BlobGasUsed != nil {
		result["blobGasUsed"] = hexutil.Uint64(*head.BlobGasUsed)
	}
	if head.ExcessBlobGas != nil {
		result["excessBlobGas"] = hexutil.Uint64(*head.ExcessBlobGas)
	}
	if head.ParentBeaconRoot != nil {
		result["parentBeaconBlockRoot"] = head.ParentBeaconRoot
	}
	if head.RequestsHash != nil {
		result["requestsHash"] = head.RequestsHash
	}
	if head.BlockAccessListHash != nil {
		result["blockAccessListHash"] = head.BlockAccessListHash
	}
	if head.SlotNumber != nil {
		result["slotNumber"] = hexutil.Uint64(*head.SlotNumber)
	}
	return result
}

// refMarshalBlock is RPCMarshalBlock(block, true, fullTx, config, receipts). A non-nil hash
// replaces the block hash in "hash" and in the transactions; inProgress then nulls each
// transaction's blockHash, as flashrpc's pending block does (decisions.md). receipts are the
// block's, for its deposits (op-geth's depositTxReceipt).
func refMarshalBlock(block *types.Block, fullTx bool, config *params.ChainConfig, hash *common.Hash, inProgress bool, receipts types.Receipts) map[string]any {
	fields := refMarshalHeader(block.Header())
	fields["size"] = hexutil.Uint64(block.Size())
	blockHash := block.Hash()
	if hash != nil {
		blockHash = *hash
		fields["hash"] = blockHash
	}
	formatTx := func(idx int, tx *types.Transaction) any {
		return tx.Hash()
	}
	if fullTx {
		formatTx = func(idx int, tx *types.Transaction) any {
			var receipt *types.Receipt
			if tx.Type() == types.DepositTxType && idx < len(receipts) {
				receipt = receipts[idx]
			}
			rpcTx := refNewRPCTransaction(tx, blockHash, block.NumberU64(), block.Time(), uint64(idx), block.BaseFee(), config, receipt)
			if inProgress {
				rpcTx.BlockHash = nil
			}
			return rpcTx
		}
	}
	txs := block.Transactions()
	transactions := make([]any, len(txs))
	for i, tx := range txs {
		transactions[i] = formatTx(i, tx)
	}
	fields["transactions"] = transactions
	uncles := block.Uncles()
	uncleHashes := make([]common.Hash, len(uncles))
	for i, uncle := range uncles {
		uncleHashes[i] = uncle.Hash()
	}
	fields["uncles"] = uncleHashes
	if block.Withdrawals() != nil {
		fields["withdrawals"] = block.Withdrawals()
	}
	return fields
}

// refRPCTransaction is geth's RPCTransaction.
type refRPCTransaction struct {
	BlockHash           *common.Hash                 `json:"blockHash"`
	BlockNumber         *hexutil.Big                 `json:"blockNumber"`
	BlockTimestamp      *hexutil.Uint64              `json:"blockTimestamp"`
	From                common.Address               `json:"from"`
	Gas                 hexutil.Uint64               `json:"gas"`
	GasPrice            *hexutil.Big                 `json:"gasPrice"`
	GasFeeCap           *hexutil.Big                 `json:"maxFeePerGas,omitempty"`
	GasTipCap           *hexutil.Big                 `json:"maxPriorityFeePerGas,omitempty"`
	MaxFeePerBlobGas    *hexutil.Big                 `json:"maxFeePerBlobGas,omitempty"`
	Hash                common.Hash                  `json:"hash"`
	Input               hexutil.Bytes                `json:"input"`
	Nonce               hexutil.Uint64               `json:"nonce"`
	To                  *common.Address              `json:"to"`
	TransactionIndex    *hexutil.Uint64              `json:"transactionIndex"`
	Value               *hexutil.Big                 `json:"value"`
	Type                hexutil.Uint64               `json:"type"`
	Accesses            *types.AccessList            `json:"accessList,omitempty"`
	ChainID             *hexutil.Big                 `json:"chainId,omitempty"`
	BlobVersionedHashes []common.Hash                `json:"blobVersionedHashes,omitempty"`
	AuthorizationList   []types.SetCodeAuthorization `json:"authorizationList,omitempty"`
	V                   *hexutil.Big                 `json:"v"`
	R                   *hexutil.Big                 `json:"r"`
	S                   *hexutil.Big                 `json:"s"`
	YParity             *hexutil.Uint64              `json:"yParity,omitempty"`

	// deposit-tx only
	SourceHash *common.Hash `json:"sourceHash,omitempty"`
	Mint       *hexutil.Big `json:"mint,omitempty"`
	IsSystemTx *bool        `json:"isSystemTx,omitempty"`
	// deposit-tx post-Canyon only
	DepositReceiptVersion *hexutil.Uint64 `json:"depositReceiptVersion,omitempty"`
}

// refRPCTxKeys lists refRPCTransaction's JSON keys in field order.
var refRPCTxKeys = []string{
	"blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "maxFeePerGas",
	"maxPriorityFeePerGas", "maxFeePerBlobGas", "hash", "input", "nonce", "to", "transactionIndex",
	"value", "type", "accessList", "chainId", "blobVersionedHashes", "authorizationList", "v", "r",
	"s", "yParity", "sourceHash", "mint", "isSystemTx", "depositReceiptVersion",
}

// refNewRPCTransaction is op-geth's newRPCTransaction, except that a deposit always carries
// "mint" and "isSystemTx", as Base's node writes them (decisions.md).
func refNewRPCTransaction(tx *types.Transaction, blockHash common.Hash, blockNumber uint64, blockTime uint64, index uint64, baseFee *big.Int, config *params.ChainConfig, receipt *types.Receipt) *refRPCTransaction {
	signer := types.MakeSigner(config, new(big.Int).SetUint64(blockNumber), blockTime)
	from, _ := types.Sender(signer, tx)
	v, r, s := tx.RawSignatureValues()
	result := &refRPCTransaction{
		Type:     hexutil.Uint64(tx.Type()),
		From:     from,
		Gas:      hexutil.Uint64(tx.Gas()),
		GasPrice: (*hexutil.Big)(tx.GasPrice()),
		Hash:     tx.Hash(),
		Input:    hexutil.Bytes(tx.Data()),
		Nonce:    hexutil.Uint64(tx.Nonce()),
		To:       tx.To(),
		Value:    (*hexutil.Big)(tx.Value()),
		V:        (*hexutil.Big)(v),
		R:        (*hexutil.Big)(r),
		S:        (*hexutil.Big)(s),
	}
	if blockHash != (common.Hash{}) {
		result.BlockHash = &blockHash
		result.BlockNumber = (*hexutil.Big)(new(big.Int).SetUint64(blockNumber))
		result.BlockTimestamp = (*hexutil.Uint64)(&blockTime)
		result.TransactionIndex = (*hexutil.Uint64)(&index)
	}

	switch tx.Type() {
	case types.DepositTxType:
		srcHash := tx.SourceHash()
		isSystemTx := tx.IsSystemTx()
		result.SourceHash = &srcHash
		result.IsSystemTx = &isSystemTx // op-geth: only when true
		result.Mint = (*hexutil.Big)(tx.Mint())
		if result.Mint == nil { // op-geth: omitted
			result.Mint = new(hexutil.Big)
		}
		if receipt != nil && receipt.DepositNonce != nil {
			result.Nonce = hexutil.Uint64(*receipt.DepositNonce)
			if receipt.DepositReceiptVersion != nil {
				result.DepositReceiptVersion = new(hexutil.Uint64)
				*result.DepositReceiptVersion = hexutil.Uint64(*receipt.DepositReceiptVersion)
			}
		}
	case types.LegacyTxType:
		if id := tx.ChainId(); id.Sign() != 0 {
			result.ChainID = (*hexutil.Big)(id)
		}
	case types.AccessListTxType:
		al := tx.AccessList()
		yparity := hexutil.Uint64(v.Sign())
		result.Accesses = &al
		result.ChainID = (*hexutil.Big)(tx.ChainId())
		result.YParity = &yparity
	case types.DynamicFeeTxType, types.BlobTxType, types.SetCodeTxType:
		al := tx.AccessList()
		yparity := hexutil.Uint64(v.Sign())
		result.Accesses = &al
		result.ChainID = (*hexutil.Big)(tx.ChainId())
		result.YParity = &yparity
		result.GasFeeCap = (*hexutil.Big)(tx.GasFeeCap())
		result.GasTipCap = (*hexutil.Big)(tx.GasTipCap())
		if baseFee != nil && blockHash != (common.Hash{}) {
			result.GasPrice = (*hexutil.Big)(refEffectiveGasPrice(tx, baseFee))
		} else {
			result.GasPrice = (*hexutil.Big)(tx.GasFeeCap())
		}
		if tx.Type() == types.BlobTxType {
			result.MaxFeePerBlobGas = (*hexutil.Big)(tx.BlobGasFeeCap())
			result.BlobVersionedHashes = tx.BlobHashes()
		}
		if tx.Type() == types.SetCodeTxType {
			result.AuthorizationList = tx.SetCodeAuthorizations()
		}
	}
	return result
}

func refEffectiveGasPrice(tx *types.Transaction, baseFee *big.Int) *big.Int {
	fee := tx.GasTipCap()
	fee = fee.Add(fee, baseFee)
	if tx.GasFeeCapIntCmp(fee) < 0 {
		return tx.GasFeeCap()
	}
	return fee
}

// refMarshalReceipt is op-geth's MarshalReceipt.
func refMarshalReceipt(receipt *types.Receipt, blockHash common.Hash, blockNumber uint64, signer types.Signer, tx *types.Transaction, txIndex int, chainConfig *params.ChainConfig) map[string]any {
	from, _ := types.Sender(signer, tx)

	fields := map[string]any{
		"blockHash":         blockHash,
		"blockNumber":       hexutil.Uint64(blockNumber),
		"transactionHash":   tx.Hash(),
		"transactionIndex":  hexutil.Uint64(txIndex),
		"from":              from,
		"to":                tx.To(),
		"gasUsed":           hexutil.Uint64(receipt.GasUsed),
		"cumulativeGasUsed": hexutil.Uint64(receipt.CumulativeGasUsed),
		"contractAddress":   nil,
		"logs":              receipt.Logs,
		"logsBloom":         receipt.Bloom,
		"type":              hexutil.Uint(tx.Type()),
		"effectiveGasPrice": (*hexutil.Big)(receipt.EffectiveGasPrice),
	}

	if chainConfig.IsOptimism() && !tx.IsDepositTx() {
		fields["l1GasPrice"] = (*hexutil.Big)(receipt.L1GasPrice)
		fields["l1GasUsed"] = (*hexutil.Big)(receipt.L1GasUsed)
		fields["l1Fee"] = (*hexutil.Big)(receipt.L1Fee)
		// Fields removed with Ecotone
		if receipt.FeeScalar != nil {
			fields["l1FeeScalar"] = receipt.FeeScalar.String()
		}
		// Fields added in Ecotone
		if receipt.L1BlobBaseFee != nil {
			fields["l1BlobBaseFee"] = (*hexutil.Big)(receipt.L1BlobBaseFee)
		}
		if receipt.L1BaseFeeScalar != nil {
			fields["l1BaseFeeScalar"] = hexutil.Uint64(*receipt.L1BaseFeeScalar)
		}
		if receipt.L1BlobBaseFeeScalar != nil {
			fields["l1BlobBaseFeeScalar"] = hexutil.Uint64(*receipt.L1BlobBaseFeeScalar)
		}
		// Fields added in Isthmus
		if receipt.OperatorFeeScalar != nil {
			fields["operatorFeeScalar"] = hexutil.Uint64(*receipt.OperatorFeeScalar)
		}
		if receipt.OperatorFeeConstant != nil {
			fields["operatorFeeConstant"] = hexutil.Uint64(*receipt.OperatorFeeConstant)
		}
		// Fields added in Jovian
		if receipt.DAFootprintGasScalar != nil {
			fields["daFootprintGasScalar"] = hexutil.Uint64(*receipt.DAFootprintGasScalar)
			// Jovian repurposes blobGasUsed for DA footprint gas used
			fields["blobGasUsed"] = hexutil.Uint64(receipt.BlobGasUsed)
		}
	}
	if chainConfig.IsOptimism() && tx.IsDepositTx() && receipt.DepositNonce != nil {
		fields["depositNonce"] = hexutil.Uint64(*receipt.DepositNonce)
		if receipt.DepositReceiptVersion != nil {
			fields["depositReceiptVersion"] = hexutil.Uint64(*receipt.DepositReceiptVersion)
		}
	}

	if len(receipt.PostState) > 0 {
		fields["root"] = hexutil.Bytes(receipt.PostState)
	} else {
		fields["status"] = hexutil.Uint(receipt.Status)
	}
	if receipt.Logs == nil {
		fields["logs"] = []*types.Log{}
	}
	if tx.Type() == types.BlobTxType {
		fields["blobGasUsed"] = hexutil.Uint64(receipt.BlobGasUsed)
		fields["blobGasPrice"] = (*hexutil.Big)(receipt.BlobGasPrice)
	}
	if receipt.ContractAddress != (common.Address{}) {
		fields["contractAddress"] = receipt.ContractAddress
	}
	return fields
}

// jsonMarshalRef marshals v with encoding/json, as geth's RPC server does.
func jsonMarshalRef(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal reference: %v", err)
	}
	return b
}

// jsonCheck fails t unless got and want are the same JSON text after compaction. It also
// decodes both and compares them semantically, so a failure says whether only the layout
// (key order, spacing) or the content differs.
func jsonCheck(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if !json.Valid(got) {
		t.Errorf("%s: output is not valid JSON:\n%s", what, got)
		return
	}
	var g, w bytes.Buffer
	if err := json.Compact(&g, got); err != nil {
		t.Fatalf("%s: compact output: %v", what, err)
	}
	if err := json.Compact(&w, want); err != nil {
		t.Fatalf("%s: compact reference: %v", what, err)
	}
	if bytes.Equal(g.Bytes(), w.Bytes()) {
		return
	}
	var gv, wv any
	_ = json.Unmarshal(got, &gv)
	_ = json.Unmarshal(want, &wv)
	kind := "content differs"
	if jsonDeepEqual(gv, wv) {
		kind = "same content, different layout or key order"
	}
	t.Errorf("%s: %s\n got: %s\nwant: %s", what, kind, g.Bytes(), w.Bytes())
}

// jsonDeepEqual compares decoded JSON values.
func jsonDeepEqual(a, b any) bool {
	x, _ := json.Marshal(a) // encoding/json sorts map keys: equal values give equal text
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// jsonObjectKeys returns the keys of the JSON object in data, in the order they appear.
func jsonObjectKeys(t testing.TB, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("read key: %v", err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatalf("read value of %q: %v", tok, err)
		}
	}
	return keys
}

// jsonCheckSortedKeys fails t unless the keys of the object in data are in strictly increasing
// byte order, as encoding/json writes a map.
func jsonCheckSortedKeys(t testing.TB, what string, data []byte) {
	t.Helper()
	keys := jsonObjectKeys(t, data)
	for i := 1; i < len(keys); i++ {
		if keys[i-1] >= keys[i] {
			t.Errorf("%s: key %q written before %q", what, keys[i-1], keys[i])
		}
	}
}

// jsonCheckKeyOrder fails t unless the keys of the object in data appear in the order of order
// (a subsequence of it).
func jsonCheckKeyOrder(t testing.TB, what string, data []byte, order []string) {
	t.Helper()
	pos := make(map[string]int, len(order))
	for i, k := range order {
		pos[k] = i
	}
	last := -1
	for _, k := range jsonObjectKeys(t, data) {
		p, ok := pos[k]
		if !ok {
			t.Errorf("%s: unexpected key %q", what, k)
			continue
		}
		if p <= last {
			t.Errorf("%s: key %q out of struct order", what, k)
		}
		last = p
	}
}

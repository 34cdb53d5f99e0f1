package api

import "github.com/flashrpc/flashrpc/internal/rpc"

// addSurface adds the methods beyond the core ones to the endpoint's method table: proofs,
// access lists, polling filters, tracing, raw data and the rest of go-ethereum's eth_
// namespace that clients call. docs/rpc.md lists every method served, per endpoint, and
// every method refused, with why.
func (a *API) addSurface(m map[string]rpc.Method) {
	m["eth_getRawTransactionByHash"] = a.getRawTransaction // reads the pool, then its view
	m["debug_getRawTransaction"] = a.getRawTransaction
	m["eth_createAccessList"] = a.createAccessList   // loads its view where it resolves the block
	m["debug_traceTransaction"] = a.traceTransaction // the tracers load theirs once they hold an EVM slot
	m["debug_traceBlockByNumber"] = a.traceBlockByNumber
	m["debug_traceBlockByHash"] = a.traceBlockByHash
	m["debug_traceCall"] = a.traceCall
	m["eth_newFilter"] = a.newFilter // filters.go: fed by the streams, polled
	m["eth_newBlockFilter"] = a.newBlockFilter
	m["eth_newPendingTransactionFilter"] = a.newPendingTransactionFilter
	m["eth_getFilterChanges"] = a.getFilterChanges
	m["eth_getFilterLogs"] = a.getFilterLogs
	m["eth_uninstallFilter"] = a.uninstallFilter
	for name, fn := range map[string]viewMethod{
		"eth_baseFee":                                a.baseFee,
		"eth_config":                                 a.chainConfig,
		"eth_capabilities":                           a.capabilities,
		"eth_getProof":                               a.getProof,
		"eth_getStorageValues":                       a.getStorageValues,
		"eth_getHeaderByNumber":                      a.getHeaderByNumber,
		"eth_getHeaderByHash":                        a.getHeaderByHash,
		"eth_getUncleByBlockNumberAndIndex":          a.getUncleByBlockNumberAndIndex,
		"eth_getUncleByBlockHashAndIndex":            a.getUncleByBlockHashAndIndex,
		"eth_getRawTransactionByBlockNumberAndIndex": a.getRawTransactionByBlockNumberAndIndex,
		"eth_getRawTransactionByBlockHashAndIndex":   a.getRawTransactionByBlockHashAndIndex,
		"debug_getRawHeader":                         a.getRawHeader,
		"debug_getRawBlock":                          a.getRawBlock,
		"debug_getRawReceipts":                       a.getRawReceipts,
	} {
		m[name] = a.withView(fn)
	}
}

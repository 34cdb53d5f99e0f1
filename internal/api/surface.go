package api

// addSurface adds the methods beyond the core ones to the endpoint's method table: proofs,
// access lists, polling filters, tracing, raw data and the rest of go-ethereum's eth_
// namespace that clients call. docs/rpc.md lists every method served, per endpoint, and
// every method refused, with why.
func (a *API) addSurface(m map[string]method) {
	m["eth_getRawTransactionByHash"] = method{a.getRawTransaction, txAt(0)} // reads the pool, then its view
	m["debug_getRawTransaction"] = method{a.getRawTransaction, txAt(0)}
	m["eth_createAccessList"] = method{a.createAccessList, stateAt(1)} // loads its view where it resolves the block
	m["debug_traceTransaction"] = method{a.traceTransaction, txAt(0)}  // the tracers load theirs once they hold an EVM slot
	m["debug_traceBlockByNumber"] = method{a.traceBlockByNumber, blockNumberAt(0)}
	m["debug_traceBlockByHash"] = method{a.traceBlockByHash, blockHashAt(0)}
	m["debug_traceCall"] = method{a.traceCall, stateAt(1)}
	m["eth_newFilter"] = method{a.newFilter, readsHead} // filters.go: fed by the streams, polled
	m["eth_newBlockFilter"] = method{a.newBlockFilter, readsHead}
	m["eth_newPendingTransactionFilter"] = method{a.newPendingTransactionFilter, noChainData}
	m["eth_getFilterChanges"] = method{a.getFilterChanges, readsHead}
	m["eth_getFilterLogs"] = method{a.getFilterLogs, readsLogs}
	m["eth_uninstallFilter"] = method{a.uninstallFilter, noChainData}
	for name, e := range map[string]viewEntry{
		"eth_baseFee":                                {a.baseFee, readsHead},
		"eth_config":                                 {a.chainConfig, readsHead},
		"eth_capabilities":                           {a.capabilities, readsHead},
		"eth_getProof":                               {a.getProof, Reads{Kind: ReadsState, Param: 2, AtFork: true}},
		"eth_getStorageValues":                       {a.getStorageValues, stateAt(1)},
		"eth_getHeaderByNumber":                      {a.getHeaderByNumber, blockNumberAt(0)},
		"eth_getHeaderByHash":                        {a.getHeaderByHash, blockHashAt(0)},
		"eth_getUncleByBlockNumberAndIndex":          {a.getUncleByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getUncleByBlockHashAndIndex":            {a.getUncleByBlockHashAndIndex, blockHashAt(0)},
		"eth_getRawTransactionByBlockNumberAndIndex": {a.getRawTransactionByBlockNumberAndIndex, blockNumberAt(0)},
		"eth_getRawTransactionByBlockHashAndIndex":   {a.getRawTransactionByBlockHashAndIndex, blockHashAt(0)},
		"debug_getRawHeader":                         {a.getRawHeader, blockAt(0)},
		"debug_getRawBlock":                          {a.getRawBlock, blockAt(0)},
		"debug_getRawReceipts":                       {a.getRawReceipts, blockAt(0)},
	} {
		m[name] = method{a.withView(e.fn), e.reads}
	}
}

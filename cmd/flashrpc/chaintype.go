package main

import (
	"flag"
	"fmt"
	"math/big"

	"github.com/flashrpc/flashrpc/internal/chain"
	"github.com/flashrpc/flashrpc/internal/networks"
	"github.com/flashrpc/flashrpc/internal/oprollup"
)

// The dev chain's types (--chain-type): the kinds of chain internal/networks knows.
const (
	chainTypeOP = string(networks.OPStack)  // an OP Stack chain (the default)
	chainTypeL1 = string(networks.Ethereum) // a plain Ethereum chain
)

// chainFlags are the dev command's flags that shape a new chain or its L1.
type chainFlags struct {
	chainType     string
	network       string
	gasLimit      uint64  // 0: the chain type's default
	l1BaseFee     weiFlag // OP Stack only
	l1BlobBaseFee weiFlag // OP Stack only
	// given holds the names of the flags set on the command line: only those can conflict
	// with a chain that already exists.
	given map[string]bool
}

func (f *chainFlags) registerChain(fs *flag.FlagSet) {
	fs.StringVar(&f.chainType, "chain-type", chainTypeOP, "chain type of a new dev chain: \"op\", an OP Stack chain with Base's fee settings (forks through Jovian and Azul, deposits, L1 data fee, predeploys; docs/opstack.md), or \"l1\", a plain Ethereum chain (with --fork-url: the rules of an upstream whose chain id flashrpc does not know)")
	fs.StringVar(&f.network, "network", "", "run a new dev chain with this network's rules as of now (every fork already active from genesis, later ones at their times), its block time, pre-confirmation interval, genesis gas limit, EIP-1559 parameters and feed format; `flashrpc networks` lists the names (op-mainnet, unichain-mainnet, …). base-mainnet and base-sepolia run Base as it runs since Denim: forks through Azul and Denim from genesis, a block every 200 ms, no pre-confirmations (--preconf-interval is refused), the BaseTime deposit and millisecond timestamps; WITHOUT Beryl (no B20 native-token precompiles) and Cobalt (EIP-8130 transactions refused as an unknown type), which flashrpc does not run (a warning at start says so). With --fork-url: the network must be the upstream's, or names the rules of an upstream whose chain id is no network's (a local chain)")
	fs.Uint64Var(&f.gasLimit, "gas-limit", 0, fmt.Sprintf("block gas limit of a new dev chain (default %d on an OP Stack chain, %d with --chain-type l1; with --network: the network's genesis gas limit where the registry has one)", oprollup.DefaultGasLimit, chain.DefaultGasLimit))
	f.l1BaseFee.v, f.l1BlobBaseFee.v = new(big.Int).Set(oprollup.DefaultL1BaseFee), new(big.Int).Set(oprollup.DefaultL1BlobBaseFee)
	fs.Var(&f.l1BaseFee, "l1.base-fee", "base fee in wei of the dev L1 the OP Stack chain's L1 data fee is computed from (decimal or 0x hex)")
	fs.Var(&f.l1BlobBaseFee, "l1.blob-base-fee", "blob base fee in wei of the dev L1 (decimal or 0x hex)")
}

// weiFlag is a flag holding an amount of wei, decimal or 0x hex.
type weiFlag struct{ v *big.Int }

func (w *weiFlag) String() string {
	if w.v == nil {
		return ""
	}
	return w.v.String()
}

func (w *weiFlag) Set(s string) error {
	v, ok := new(big.Int).SetString(s, 0)
	if !ok || v.Sign() < 0 || v.BitLen() > 256 {
		return fmt.Errorf("%q is not an amount of wei (a non-negative decimal or 0x hex number)", s)
	}
	w.v = v
	return nil
}

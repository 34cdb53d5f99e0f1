package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/flashrpc/flashrpc/internal/networks"
)

const networksUsage = `Usage: flashrpc networks [--json]

Lists every network flashrpc knows (the names --network takes): go-ethereum's Ethereum chains,
Base mainnet and Sepolia (flashrpc's own data) and the OP Stack chains of op-geth's embedded
superchain registry. Each row gives the chain id, the kind (l1: Ethereum, op: OP Stack), the block
time, the pre-confirmation interval ("-": none flashrpc can read), the feed format (base: Base's
flashblocks with roots; subblocks: OP's, without; none), where the configuration comes from and
every fork with its activation (name@time or name#block), "(not run)" after the forks whose rules
flashrpc does not run: a block at which one of those is active is refused. Base's Beryl and Cobalt
are such forks: a fork or replica of live Base is refused, and a local chain named after Base
(flashrpc dev --network base-mainnet) runs without them, with a warning (docs/denim.md).

Flags:
`

// runNetworks prints the networks flashrpc knows, as a table or (--json) as a JSON array of
// {name, chainId, kind, source, forks, blockTime, preconfInterval, feedFormat}.
func runNetworks(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("flashrpc networks", helpOutput(args, stdout, stderr), networksUsage)
	asJSON := fs.Bool("json", false, "print a JSON array instead of the table (durations as strings such as \"200ms\"; \"0s\": no pre-confirmations)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "flashrpc networks: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	all := networks.All()
	if !*asJSON {
		return networks.WriteTable(stdout, all)
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(all)
}

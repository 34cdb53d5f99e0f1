package main

import (
	"flag"
	"fmt"

	"github.com/ethereum/go-ethereum/params"
)

// codeSizeFlags are dev's --code-size-limit and --disable-code-size-limit (anvil's names;
// Hardhat's allowUnlimitedContractSize). follow has neither: a replica runs its network's
// rules. op-geth's EVM has one switch for EIP-170's and EIP-3860's limits
// (oprollup.LiftCodeSizeLimits), so a --code-size-limit above EIP-170's 24,576 bytes lifts
// them, and one below cannot be run.
type codeSizeFlags struct {
	limit   uint64
	disable bool
}

func (c *codeSizeFlags) register(fs *flag.FlagSet) {
	fs.Uint64Var(&c.limit, "code-size-limit", params.MaxCodeSize, "largest deployed contract in bytes (EIP-170); a value above 24576 lifts EIP-170's and EIP-3860's (initcode) limits as --disable-code-size-limit does, since the EVM has one switch for both; a creation transaction's own initcode stays within 49152 bytes")
	fs.BoolVar(&c.disable, "disable-code-size-limit", false, "lift EIP-170's limit on deployed code and EIP-3860's on initcode (Hardhat's allowUnlimitedContractSize), forked or not")
}

// check refuses a limit below EIP-170's, which the EVM cannot run.
func (c *codeSizeFlags) check() error {
	if c.limit < params.MaxCodeSize {
		return fmt.Errorf("--code-size-limit %d: below EIP-170's %d bytes, which the EVM cannot lower", c.limit, params.MaxCodeSize)
	}
	return nil
}

// lifted reports whether the limits are lifted.
func (c *codeSizeFlags) lifted() bool { return c.disable || c.limit > params.MaxCodeSize }

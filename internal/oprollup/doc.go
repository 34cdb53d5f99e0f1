// Package oprollup is flashrpc's OP Stack glue. op-geth does the rules (deposit transactions,
// the L1 data fee and operator fee, Holocene/Jovian base fees, the DA footprint); which fork
// runs when is internal/networks' (an OP Stack chain's schedule, the dev chain's included,
// is networks.DevOPStack or the network's own). This package feeds op-geth what an OP Stack
// node's consensus side would:
//
//   - Base's values: fee scalars, EIP-1559 parameters, gas limit, minimum base fee as named
//     constants with where each came from, the system accounts and predeploys flashrpc refers
//     to, and every block's extraData (ExtraData) (chain.go);
//   - the L1-attributes deposit every block opens with (l1info.go), and the dev chain's stand-in
//     for L1, whose origin advances every 12 s with the fees it was given (DevL1, devl1.go), or
//     continues a forked block's L1 origin (forkl1.go);
//   - user deposits, as dev_deposit makes them (deposit.go);
//   - the genesis data: the predeploys and preinstalls with their real bytecode, generated from
//     the optimism monorepo's Go module by tools/opgenesis into genesis.json.gz, which records
//     its source, and the dev chain's genesis (DevGenesis) (genesis.go);
//   - the L1 fee fields of pre-confirmed receipts, derived by op-geth's own code (receipts.go);
//   - the forks op-geth does not run (forks.go, whose comment lists what each adds): Azul,
//     Base's own fork, and Karst, the registry chains' (Osaka's EVM on L2), through the
//     vm.Config every EVM of flashrpc runs with (VMConfig), whose precompile overrides install
//     go-ethereum's Osaka MODEXP and P256VERIFY over op-geth's Jovian ones and, under Karst,
//     a bn256Pairing capped at 57,600 bytes; and the body rules without EIP-7934's block size
//     limit (BodyRules);
//   - a dev chain's lifted code-size limits (codesize.go): LiftCodeSizeLimits marks a chain's
//     configuration, and VMConfig turns off EIP-170's and EIP-3860's limits for its EVMs;
//   - Denim, Base's 200 ms blocks (denim.go): the BaseTime deposit every Denim block carries as
//     transaction 1 (BaseTimeDeposit), the millisecond time (Tms = 1000 × timestamp + part,
//     NextDenimTime, DenimActivationBlock), the body rules a Denim block is checked with
//     (CheckDenimBody), Denim's gas parameters (DenimGasParams), BaseTime
//     in a Denim dev chain's genesis (DevDenimGenesis), and the header rule that accepts a
//     timestamp equal to the parent's from Denim on (HeaderRules, forks.go). BaseTime's
//     implementation bytecode (basetime.hex) is data, not built here: base/base's
//     crates/common/evm2/src/bytecode/base-time.hex (commit 2752447c), compiled by Base from
//     base/contracts src/L2/BaseTime.sol (commit 4848ec70, solc 0.8.15); TestBaseTimeCode
//     checks it against base/base's IMPLEMENTATION_CODE_HASH, and the proxy in front of it is
//     the genesis data's own OP Predeploy Proxy at 0x4200…0030.
//
// Concurrency: everything here is a pure function or immutable after construction, and safe
// for concurrent use; the one shared state, the set of configurations LiftCodeSizeLimits
// marked, is a sync.Map.
//
// Imports: go-ethereum (op-geth) and internal/networks only.
package oprollup

// Package oprollup is flashrpc's OP Stack glue. op-geth does the rules (deposit transactions,
// the L1 data fee and operator fee, the fork schedule, Holocene/Jovian base fees, the DA
// footprint); this package only feeds them what an OP Stack node's consensus side would:
//
//   - the chain: an OP Stack chain configured as Base is (ChainConfig, the one place its fork
//     schedule is written), Base's fee scalars and EIP-1559 parameters as named constants with
//     where each came from (chain.go), and every block's extraData (ExtraData);
//   - the L1-attributes deposit every block opens with (l1info.go), and the dev chain's stand-in
//     for L1, whose origin advances every 12 s with the fees it was given (DevL1, devl1.go);
//   - user deposits, as dev_deposit makes them (deposit.go);
//   - the genesis data: the predeploys and preinstalls with their real bytecode, generated from
//     the optimism monorepo's Go module by tools/opgenesis into genesis.json.gz, which records
//     its source (genesis.go);
//   - the L1 fee fields of pre-confirmed receipts, derived by op-geth's own code (receipts.go);
//   - Azul, Base's own fork (Osaka's EVM on L2): the vm.Config every EVM of flashrpc runs with,
//     whose precompile overrides install go-ethereum's Osaka MODEXP and P256VERIFY over op-geth's
//     Jovian ones (azul.go).
//
// Concurrency: everything here is a pure function or immutable after construction, and safe
// for concurrent use.
//
// Imports: go-ethereum (op-geth) only.
package oprollup

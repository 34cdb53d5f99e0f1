// scenarios.mjs: names and constants the clients' scenarios share.

// REASON is the revert reason of ClientSuite.check / setCount above 100.
export const REASON = 'ClientSuite: value too large';

// SINK receives the test transfers.
export const SINK = '0x000000000000000000000000000000000000dEaD';

// scenarioNames lists the scenarios every client runs, in order.
export const scenarioNames = [
  'chain-id',
  'blocks-by-tag',
  'send-and-receipt',
  'nonce-pending',
  'deploy-and-call',
  'estimate-gas-revert',
  'pending-code',
  'get-logs',
  'ws-watch-blocks',
  'ws-watch-events',
  'simulate',
  'fee-data',
  'default-timing',
];

// clientScenarios lists the scenarios only some clients run, by client.
export const clientScenarios = {
  // ethers' contract.on over HTTP installs filters (eth_newFilter) and polls them.
  ethers: ['http-filters'],
  // viem's test client (createTestClient) in mode anvil and mode hardhat: the dev-node methods.
  viem: ['test-client-anvil', 'test-client-hardhat'],
  // cast: plain sends back to back to the pre-confirmed endpoint; the signing methods and
  // eth_sendTransaction (cast send --unlocked), impersonation.
  cast: ['send-back-to-back', 'dev-accounts'],
};

// opScenarioNames lists the OP Stack scenarios of the clients with OP Stack support or
// raw-request tests of it: viem (viem/op-stack) and ethers.
export const opScenarioNames = ['op-fees', 'op-deposits', 'op-gas-cap'];

// GAS_CAP_ERROR is the refusal of a transaction over the EIP-7825 cap (Azul) or the block gas limit.
export const GAS_CAP_ERROR = 'exceeds maximum per-transaction gas limit';

// The OP Stack predeploys and system accounts the scenarios use.
export const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
export const L1_BLOCK = '0x4200000000000000000000000000000000000015';
export const DEPOSITOR = '0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001';

// L1_BASE_FEE and L1_BLOB_BASE_FEE are the dev L1's fees of the OP Stack scenarios' node
// (--l1.base-fee, --l1.blob-base-fee).
export const L1_BASE_FEE = 2_000_000_000n;
export const L1_BLOB_BASE_FEE = 5n;

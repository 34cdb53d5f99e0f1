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
};

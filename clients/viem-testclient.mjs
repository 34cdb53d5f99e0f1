// viem-testclient.mjs: viem's test client (createTestClient) in mode `anvil` and in mode
// `hardhat` against the pre-confirmed endpoint of a manual dev node: every test action a
// Foundry or Hardhat suite uses, each checked by reading the state back with viem's public
// actions (decisions.md "Dev-node methods", docs/rpc.md "Dev-node methods").
import { createPublicClient, createTestClient, createWalletClient, defineChain, http, parseEther, toHex } from 'viem';

import { chainId, dev } from './lib/node.mjs';
import { assert, eq, eqi } from './lib/report.mjs';
import { SINK } from './lib/scenarios.mjs';

// testClientScenarios are the scenarios of runViemTestClient, one per mode.
export const testClientScenarios = ['test-client-anvil', 'test-client-hardhat'];

export async function runViemTestClient(report, { start }) {
  for (const mode of ['anvil', 'hardhat']) {
    await report.run('viem', `test-client-${mode}`, async () => {
      // In mode hardhat the node presents itself as Hardhat, as the one viem then expects:
      // evm_setIntervalMining takes Hardhat's milliseconds there, anvil's seconds otherwise.
      const extra = mode === 'hardhat' ? ['--client-version', 'HardhatNetwork/2.22.0/flashrpc'] : [];
      const n = await start({ name: `viem-test-${mode}`, manual: true, extra });
      try {
        await scenario(n, mode);
      } finally {
        await n.stop();
      }
    });
  }
}

async function scenario(n, mode) {
  const chain = defineChain({
    id: chainId,
    name: 'flashrpc dev (pre-confirmed)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [n.pre] } },
  });
  const transport = http(n.pre, { retryCount: 0 });
  const test = createTestClient({ chain, mode, transport, cacheTime: 0 });
  const pub = createPublicClient({ chain, transport, cacheTime: 0, pollingInterval: 50 });
  const pending = { blockTag: 'pending' };
  const who = '0x00000000000000000000000000000000000c0de5';

  // State cheats: `pending` and `latest` see them at once; the next mined block carries them.
  await test.setBalance({ address: who, value: parseEther('12') });
  await test.setNonce({ address: who, nonce: 5 });
  await test.setCode({ address: who, bytecode: '0x6001600055' });
  await test.setStorageAt({ address: who, index: 2, value: toHex(42n, { size: 32 }) });
  eq(await pub.getBalance({ address: who, ...pending }), parseEther('12'), 'setBalance (pending)');
  eq(await pub.getBalance({ address: who }), parseEther('12'), 'setBalance (latest, before mining)');
  eq(await pub.getTransactionCount({ address: who }), 5, 'setNonce (latest, before mining)');
  eq(await pub.getCode({ address: who }), '0x6001600055', 'setCode (latest, before mining)');
  eq(BigInt(await pub.getStorageAt({ address: who, slot: toHex(2n) })), 42n, 'setStorageAt (latest, before mining)');
  eq(await pub.getTransactionCount({ address: who, ...pending }), 5, 'setNonce (pending)');
  eq(await pub.getCode({ address: who, ...pending }), '0x6001600055', 'setCode (pending)');
  eq(BigInt(await pub.getStorageAt({ address: who, slot: toHex(2n), ...pending })), 42n, 'setStorageAt (pending)');
  const before = await pub.getBlockNumber();
  await test.mine({ blocks: 1 });
  eq(await pub.getBlockNumber(), before + 1n, 'mine 1');
  eq(await pub.getBalance({ address: who }), parseEther('12'), 'setBalance (latest, mined)');
  eq(BigInt(await pub.getStorageAt({ address: who, slot: toHex(2n) })), 42n, 'setStorageAt (latest, mined)');

  // Impersonation: an account without a key sends through eth_sendTransaction.
  const whale = '0x000000000000000000000000000000000000a11e';
  await test.setBalance({ address: whale, value: parseEther('100') });
  await test.impersonateAccount({ address: whale });
  const whaleWallet = createWalletClient({ account: whale, chain, transport });
  const hash = await whaleWallet.sendTransaction({ to: SINK, value: parseEther('1') });
  await test.mine({ blocks: 1 });
  const r = await pub.waitForTransactionReceipt({ hash });
  eq(r.status, 'success', 'impersonated transfer');
  eqi(r.from, whale, 'impersonated receipt from');
  await test.stopImpersonatingAccount({ address: whale });
  let refused = false;
  try {
    await whaleWallet.sendTransaction({ to: SINK, value: 1n });
  } catch {
    refused = true;
  }
  assert(refused, 'a send after stopImpersonatingAccount was accepted');

  // mine with a count (and an interval in anvil mode).
  const b0 = await pub.getBlock();
  await test.mine({ blocks: 3, interval: mode === 'anvil' ? 7 : undefined });
  const b3 = await pub.getBlock();
  eq(b3.number, b0.number + 3n, 'mine 3');
  if (mode === 'anvil') eq(b3.timestamp, (await pub.getBlock({ blockNumber: b0.number + 1n })).timestamp + 14n, 'mine interval 7');

  // Time: increaseTime then mine seals that long after the previous block; setNextBlockTimestamp.
  const t0 = (await pub.getBlock()).timestamp;
  await test.increaseTime({ seconds: 3600 });
  await test.mine({ blocks: 1 });
  eq((await pub.getBlock()).timestamp, t0 + 3600n, 'increaseTime 3600 then mine');
  const t1 = (await pub.getBlock()).timestamp;
  await test.increaseTime({ seconds: 1000 });
  await test.increaseTime({ seconds: 1000 });
  await test.mine({ blocks: 1 });
  eq((await pub.getBlock()).timestamp, t1 + 2000n, 'increaseTime 1000 twice then mine');
  const at = t0 + 100_000n;
  await test.setNextBlockTimestamp({ timestamp: at });
  eq((await pub.getBlock(pending)).timestamp, at, 'setNextBlockTimestamp (pending block)');
  await test.mine({ blocks: 1 });
  eq((await pub.getBlock()).timestamp, at, 'setNextBlockTimestamp then mine');

  // snapshot / revert across blocks; a cheat made before the snapshot, not yet mined, is kept.
  const kept = '0x00000000000000000000000000000000000c0de7';
  await test.setBalance({ address: kept, value: parseEther('10000') });
  const id = await test.snapshot();
  const head = await pub.getBlock();
  await test.setBalance({ address: who, value: 1n });
  await test.mine({ blocks: 2 });
  eq(await pub.getBalance({ address: who }), 1n, 'balance after the snapshot');
  await test.revert({ id });
  eq((await pub.getBlock()).hash, head.hash, 'head after revert');
  eq(await pub.getBalance({ address: who }), parseEther('12'), 'balance after revert');
  eq(await pub.getBalance({ address: kept }), parseEther('10000'), 'unmined cheat kept by revert (latest)');
  eq(await pub.getBalance({ address: kept, ...pending }), parseEther('10000'), 'unmined cheat kept by revert (pending)');

  // The pool: a queued transaction shows in txpool_content and is dropped.
  const wallet = createWalletClient({ account: dev[1].address, chain, transport });
  const nonce = await pub.getTransactionCount({ address: dev[1].address, ...pending });
  const queued = await wallet.sendTransaction({ to: SINK, value: 1n, nonce: nonce + 1, gas: 21_000n });
  const content = await test.getTxpoolContent();
  const mine = Object.entries(content.queued).find(([addr]) => addr.toLowerCase() === dev[1].address.toLowerCase());
  assert(mine && Object.values(mine[1])[0].hash === queued, `txpool_content queued: ${JSON.stringify(content.queued)}`);
  const status = await test.getTxpoolStatus();
  eq(status.queued, 1, 'txpool_status queued');
  const inspect = await test.inspectTxpool();
  assert(JSON.stringify(inspect.queued).includes('21000 gas'), `txpool_inspect: ${JSON.stringify(inspect)}`);
  await test.dropTransaction({ hash: queued });
  eq((await test.getTxpoolStatus()).queued, 0, 'txpool_status after dropTransaction');

  // setNextBlockBaseFeePerGas applies to the block in progress.
  await test.setNextBlockBaseFeePerGas({ baseFeePerGas: 7_000_000_000n });
  eq((await pub.getBlock(pending)).baseFeePerGas, 7_000_000_000n, 'setNextBlockBaseFeePerGas (pending)');
  await test.mine({ blocks: 1 });
  eq((await pub.getBlock()).baseFeePerGas, 7_000_000_000n, 'setNextBlockBaseFeePerGas (mined)');

  // Automine: a send answers after its block is sealed, so the standard endpoint has the
  // receipt at once, one transaction per block; off, the node's timer (none here) seals again.
  const std = createPublicClient({ chain, transport: http(n.std, { retryCount: 0 }), cacheTime: 0 });
  eq(await test.getAutomine(), false, 'getAutomine (default)');
  await test.setAutomine(true);
  eq(await test.getAutomine(), true, 'getAutomine after setAutomine(true)');
  const h0 = await std.getBlockNumber();
  for (const k of [1n, 2n]) {
    const sent = await wallet.sendTransaction({ to: SINK, value: k });
    const rk = await std.getTransactionReceipt({ hash: sent }); // throws when there is none
    eq(rk.blockNumber, h0 + k, `automined transaction ${k}: its own block, sealed before the send answered`);
  }
  await test.setAutomine(false);
  eq(await test.getAutomine(), false, 'getAutomine after setAutomine(false)');
  const waiting = await wallet.sendTransaction({ to: SINK, value: 3n });
  let sealed = true;
  try {
    await std.getTransactionReceipt({ hash: waiting });
  } catch {
    sealed = false;
  }
  assert(!sealed, 'automine off: the send was sealed on a manual node');
  await test.mine({ blocks: 1 });
  eq((await std.getTransactionReceipt({ hash: waiting })).status, 'success', 'mined after automine off');

  // Interval mining: the timer seals again every second, then not at all. viem sends
  // evm_setIntervalMining in seconds in mode anvil (anvil's unit) and in milliseconds in mode
  // hardhat (Hardhat's); the node answers in the unit of the node it presents itself as.
  const i0 = await std.getBlockNumber();
  await test.setIntervalMining({ interval: 1 });
  const until = Date.now() + 30_000;
  while ((await std.getBlockNumber()) < i0 + 2n) {
    assert(Date.now() < until, 'interval mining: no two blocks within 30 s of a 1 s block time');
    await new Promise((r) => setTimeout(r, 100));
  }
  await test.setIntervalMining({ interval: 0 });
  const i1 = await std.getBlockNumber();
  await new Promise((r) => setTimeout(r, 2_500)); // more than two block times of the old timer
  eq(await std.getBlockNumber(), i1, 'setIntervalMining(0): no block sealed');

  // reset: back to genesis.
  await test.reset();
  eq(await pub.getBlockNumber(), 0n, 'block number after reset');
  eq(await pub.getBalance({ address: who }), 0n, 'balance after reset');
}

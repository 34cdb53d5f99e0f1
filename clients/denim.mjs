// denim.mjs: the Denim scenario of viem and ethers against `dev --network base-mainnet` (Base
// since Denim: a block every 200 ms, no pre-confirmations): deploy and send, waiting for the
// receipt the client's own way; read the logs; eth_sendRawTransactionSync; and Base's
// millisecond fields (timestampMs on blocks, blockTimestampMs on transactions and logs), which
// must parse and grow by exactly 200 per block. Both endpoints behave alike on such a chain.
import { ContractFactory, Contract, JsonRpcProvider, Network, Wallet } from 'ethers';
import { createPublicClient, createWalletClient, defineChain, http, parseAbiItem } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import { chainId, dev } from './lib/node.mjs';
import { assert, eq, eqi, eventually } from './lib/report.mjs';
import { SINK } from './lib/scenarios.mjs';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

// checkMillis checks Base's millisecond fields through raw requests (request(method, params)):
// blocks n-1, n and n+1 (waiting for n+1) carry timestampMs, each 200 after its parent's and
// within the header's second; transaction txHash (in block n) and the logs of block n, read
// with eth_getLogs and inside the receipt, carry blockTimestampMs, block n's.
async function checkMillis(request, n, txHash, what) {
  const block = (k) => request('eth_getBlockByNumber', ['0x' + k.toString(16), false]);
  await eventually(async () => (await block(n + 1n)) !== null, `${what}: block ${n + 1n} sealed`, 10_000);
  const ms = [];
  for (const k of [n - 1n, n, n + 1n]) {
    const b = await block(k);
    assert(typeof b.timestampMs === 'string' && /^0x[0-9a-f]+$/.test(b.timestampMs), `${what}: block ${k} timestampMs ${b.timestampMs}`);
    const t = BigInt(b.timestampMs);
    eq(t / 1000n, BigInt(b.timestamp), `${what}: block ${k} timestampMs / 1000 = timestamp`);
    ms.push(t);
  }
  eq(ms[1] - ms[0], 200n, `${what}: timestampMs of block ${n} minus its parent's`);
  eq(ms[2] - ms[1], 200n, `${what}: timestampMs of block ${n + 1n} minus its parent's`);
  const tx = await request('eth_getTransactionByHash', [txHash]);
  eq(BigInt(tx.blockTimestampMs), ms[1], `${what}: transaction blockTimestampMs`);
  const receipt = await request('eth_getTransactionReceipt', [txHash]);
  assert(receipt.logs.length > 0, `${what}: the receipt has logs`);
  for (const l of receipt.logs) eq(BigInt(l.blockTimestampMs), ms[1], `${what}: receipt log blockTimestampMs`);
  const hex = '0x' + n.toString(16);
  const logs = await request('eth_getLogs', [{ fromBlock: hex, toBlock: hex }]);
  assert(logs.length > 0, `${what}: eth_getLogs of block ${n}`);
  for (const l of logs) eq(BigInt(l.blockTimestampMs), ms[1], `${what}: eth_getLogs blockTimestampMs`);
}

// checkSynced checks a receipt eth_sendRawTransactionSync answered: a success, in a block the
// standard endpoint serves sealed (request: its raw requests).
async function checkSynced(request, receipt, what) {
  assert(receipt.status === 'success' || receipt.status === '0x1', `${what}: status ${receipt.status}`);
  const sealed = await eventually(() => request('eth_getBlockByHash', [receipt.blockHash, false]), `${what}: block ${receipt.blockHash} sealed`, 5_000);
  assert(sealed.transactions.some((h) => h.toLowerCase() === receipt.transactionHash.toLowerCase()), `${what}: the sealed block holds the transaction`);
}

// runViemDenim runs the denim scenario with viem.
export async function runViemDenim(report, { start, artifact }) {
  const n = await start({ name: 'viem-denim', manual: false });
  const { abi } = artifact;
  try {
    await report.run('viem', 'denim', async () => {
      const stdRequest = (method, params) => stdPub.request({ method, params });
      let stdPub;
      for (const [name, url] of [['standard', n.std], ['pre-confirmed', n.pre]]) {
        const chain = defineChain({
          id: chainId,
          name: `flashrpc dev --network base-mainnet (${name})`,
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: { default: { http: [url] } },
          blockTime: 200,
        });
        const transport = http(url, { retryCount: 0 });
        const pub = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 });
        stdPub ??= pub;
        const [w0, w1] = dev.map((d) => createWalletClient({ account: privateKeyToAccount(d.key), chain, transport, pollingInterval: 50, cacheTime: 0 }));
        const deployed = await pub.waitForTransactionReceipt({ hash: await w0.deployContract({ abi, bytecode: artifact.bytecode, args: [7n] }) });
        eq(deployed.status, 'success', `${name}: deployment`);
        const address = deployed.contractAddress;
        const hash = await w0.writeContract({ address, abi, functionName: 'transfer', args: [SINK, 5n] });
        const r = await pub.waitForTransactionReceipt({ hash });
        eq(r.status, 'success', `${name}: transfer`);
        eq(r.logs.length, 1, `${name}: transfer receipt logs`);
        const events = await pub.getContractEvents({ address, abi, eventName: 'Transfer', fromBlock: r.blockNumber, toBlock: r.blockNumber });
        eq(events.length, 1, `${name}: getContractEvents`);
        eq(events[0].args.value, 5n, `${name}: event value`);
        eqi(events[0].args.to, SINK, `${name}: event to`);
        const logs = await pub.getLogs({ address, event: transferEvent, args: { to: SINK }, fromBlock: r.blockNumber, toBlock: r.blockNumber });
        eq(logs.length, 1, `${name}: getLogs by indexed argument`);
        const b = await pub.getBlock({ blockNumber: r.blockNumber });
        eq(b.number, r.blockNumber, `${name}: getBlock parses a Denim block`);
        await checkMillis((method, params) => pub.request({ method, params }), r.blockNumber, hash, `viem ${name}`);

        const request = await w1.prepareTransactionRequest({ to: SINK, value: 1n });
        const serializedTransaction = await w1.signTransaction(request);
        const synced = await w1.sendRawTransactionSync({ serializedTransaction });
        await checkSynced(stdRequest, synced, `viem ${name} sendRawTransactionSync`);
      }
    });
  } finally {
    await n.stop();
  }
}

// runEthersDenim runs the denim scenario with ethers.
export async function runEthersDenim(report, { start, artifact }) {
  const n = await start({ name: 'ethers-denim', manual: false });
  const network = new Network('flashrpc-dev-base', chainId);
  try {
    await report.run('ethers', 'denim', async () => {
      const stdProvider = new JsonRpcProvider(n.std, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });
      const stdRequest = (method, params) => stdProvider.send(method, params);
      for (const [name, url] of [['standard', n.std], ['pre-confirmed', n.pre]]) {
        const provider = new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });
        const [w0, w1] = dev.map((d) => new Wallet(d.key, provider));
        const c = await new ContractFactory(artifact.abi, artifact.bytecode, w0).deploy(7n);
        await c.waitForDeployment();
        const address = await c.getAddress();
        const contract = new Contract(address, artifact.abi, w0);
        const tx = await contract.transfer(SINK, 5n);
        const r = await tx.wait();
        eq(r.status, 1, `${name}: transfer`);
        eq(r.logs.length, 1, `${name}: transfer receipt logs`);
        const events = await contract.queryFilter(contract.filters.Transfer(null, SINK), r.blockNumber, r.blockNumber);
        eq(events.length, 1, `${name}: queryFilter`);
        eq(events[0].args.value, 5n, `${name}: event value`);
        const b = await provider.getBlock(r.blockNumber);
        eq(b.number, r.blockNumber, `${name}: getBlock parses a Denim block`);
        await checkMillis((method, params) => provider.send(method, params), BigInt(r.blockNumber), tx.hash, `ethers ${name}`);

        const signed = await w1.signTransaction(await w1.populateTransaction({ to: SINK, value: 1n }));
        const synced = await provider.send('eth_sendRawTransactionSync', [signed]);
        await checkSynced(stdRequest, synced, `ethers ${name} eth_sendRawTransactionSync`);
        provider.destroy();
      }
      stdProvider.destroy();
    });
  } finally {
    await n.stop();
  }
}

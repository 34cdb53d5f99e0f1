// viem.mjs: the client suite's scenarios written with viem's own API.
import {
  ContractFunctionRevertedError,
  ExecutionRevertedError,
  MethodNotFoundRpcError,
  TransactionReceiptNotFoundError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  parseAbiItem,
  parseEther,
  webSocket,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

import { chainId, dev } from './lib/node.mjs';
import { assert, eq, eqi, eventually, rejects } from './lib/report.mjs';
import { REASON, SINK } from './lib/scenarios.mjs';

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

// chain describes the dev chain for one endpoint. For the pre-confirmed endpoint it sets
// experimental_preconfirmationTime, as viem's Base chains do: viem then defaults every action
// to the `pending` block tag and polls receipts every 200 ms.
function chain(url, wsURL, preconfirmed) {
  return defineChain({
    id: chainId,
    name: preconfirmed ? 'flashrpc dev (pre-confirmed)' : 'flashrpc dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url], webSocket: [wsURL] } },
    blockTime: 2_000,
    ...(preconfirmed ? { experimental_preconfirmationTime: 200 } : {}),
  });
}

// clients builds viem's public and wallet clients (dev account 0 and 1) for both endpoints.
function clients(n) {
  const out = {};
  for (const [name, url, wsURL, pre] of [
    ['standard', n.std, n.stdWs, false],
    ['pre-confirmed', n.pre, n.preWs, true],
  ]) {
    const c = chain(url, wsURL, pre);
    const transport = http(url, { retryCount: 0 });
    out[name] = {
      name,
      pre,
      chain: c,
      pub: createPublicClient({ chain: c, transport, pollingInterval: 50, cacheTime: 0 }),
      wallets: dev.map((d) =>
        createWalletClient({ account: privateKeyToAccount(d.key), chain: c, transport, pollingInterval: 50, cacheTime: 0 }),
      ),
      ws: () => createPublicClient({ chain: c, transport: webSocket(wsURL, { retryCount: 0 }) }),
    };
  }
  return out;
}

// deploy deploys ClientSuite(start) from dev account 0 through endpoint e, pre-confirms and
// seals, and returns its address.
async function deploy(n, e, artifact, start = 7n) {
  const hash = await e.wallets[0].deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [start] });
  await n.preconfirm();
  await n.seal();
  const r = await e.pub.waitForTransactionReceipt({ hash });
  eq(r.status, 'success', 'deployment status');
  return r.contractAddress;
}

// viemRevertReason returns the Error(string) reason viem reports for a revert: decoded from the
// revert data (ContractFunctionRevertedError) or parsed from the node's message
// (ExecutionRevertedError, "Execution reverted with reason: …").
function viemRevertReason(err) {
  const decoded = err.walk((x) => x instanceof ContractFunctionRevertedError);
  if (decoded?.reason) return decoded.reason;
  const node = err.walk((x) => x instanceof ExecutionRevertedError);
  return node?.shortMessage.match(/with reason: (.*)\.$/)?.[1] ?? `no reason in ${err.name}: ${err.shortMessage}`;
}

async function closeWS(client) {
  const rpc = await client.transport.getRpcClient();
  rpc.close();
}

// run runs every viem scenario against fresh dev nodes and records them in report.
export async function runViem(report, { start, artifact }) {
  const n = await start({ name: 'viem', manual: true });
  const { abi } = artifact;
  const ep = clients(n);
  const std = ep.standard;
  const pre = ep['pre-confirmed'];
  const both = [std, pre];
  const run = (name, fn) => report.run('viem', name, fn);
  try {
    await run('chain-id', async () => {
      for (const e of both) {
        eq(await e.pub.getChainId(), chainId, `${e.name} getChainId`);
        eq(await e.wallets[0].getChainId(), chainId, `${e.name} wallet getChainId`);
      }
    });

    await run('blocks-by-tag', async () => {
      for (const e of both) {
        for (const blockTag of ['latest', 'earliest', 'safe', 'finalized', 'pending']) {
          const b = await e.pub.getBlock({ blockTag });
          assert(typeof b.number === 'bigint', `${e.name} ${blockTag}: number ${b.number}`);
          assert(b.hash, `${e.name} ${blockTag}: hash ${b.hash}`);
        }
      }
      const hash = await pre.wallets[0].sendTransaction({ to: SINK, value: 1n });
      await n.preconfirm();
      const head = await std.pub.getBlock({ blockTag: 'latest' });
      const pending = await pre.pub.getBlock({ blockTag: 'pending', includeTransactions: true });
      eq(pending.number, head.number + 1n, 'pre-confirmed pending number');
      eqi(pending.parentHash, head.hash, 'pending parentHash');
      assert(pending.transactions.some((t) => t.hash === hash), 'pending block lists the transaction');
      const stdPending = await std.pub.getBlock({ blockTag: 'pending' });
      // The standard endpoint's pending is the next block as forecast: nothing pre-confirmed.
      eq(stdPending.number, head.number + 1n, 'standard pending number (the next block as forecast)');
      eqi(stdPending.parentHash, head.hash, 'standard pending parentHash');
      eq(stdPending.transactions.length, 0, 'standard pending transactions (none pre-confirmed)');
      eqi((await pre.pub.getBlock({ blockNumber: head.number })).hash, head.hash, 'block by number');
      eq((await pre.pub.getBlock({ blockHash: head.hash })).number, head.number, 'block by hash');
      eq(await pre.pub.getBlockTransactionCount({ blockTag: 'pending' }), pending.transactions.length, 'pending tx count');
      await n.seal();
      const sealed = await std.pub.getBlock({ blockTag: 'latest' });
      eq(sealed.number, pending.number, 'sealed number');
      eqi(sealed.hash, pending.hash, 'sealed hash = last pre-confirmation hash');
      eq(await pre.pub.getBlockNumber(), sealed.number, 'getBlockNumber');
    });

    await run('send-and-receipt', async () => {
      const value = parseEther('1');
      const before = await std.pub.getBalance({ address: SINK });
      const hash = await std.wallets[1].sendTransaction({ to: SINK, value });
      await n.preconfirm();
      const r = await pre.pub.getTransactionReceipt({ hash });
      eq(r.status, 'success', 'pre-confirmed receipt status');
      eq(r.blockNumber, (await std.pub.getBlockNumber()) + 1n, 'pre-confirmed receipt blockNumber');
      const err = await rejects(() => std.pub.getTransactionReceipt({ hash }), 'standard receipt before sealing');
      assert(err instanceof TransactionReceiptNotFoundError, `standard receipt before sealing: ${err.shortMessage}`);
      eq(await pre.pub.getBalance({ address: SINK, blockTag: 'pending' }), before + value, 'pending balance (pre-confirmed)');
      eq(await std.pub.getBalance({ address: SINK, blockTag: 'pending' }), before, 'pending balance (standard)');
      const tx = await pre.pub.getTransaction({ hash });
      eqi(tx.from, dev[1].address, 'pre-confirmed transaction from');
      // waitForTransactionReceipt on the pre-confirmed endpoint returns the pre-confirmed
      // receipt; on the standard endpoint it waits for the sealed block.
      const preReceipt = await pre.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      eq(preReceipt.blockNumber, r.blockNumber, 'pre-confirmed waitForTransactionReceipt');
      const waiting = std.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      await n.seal();
      const sealed = await std.pub.getBlock();
      const rs = await waiting;
      eq(rs.status, 'success', 'sealed receipt status');
      eqi(rs.blockHash, sealed.hash, 'sealed receipt blockHash');
      eqi((await pre.pub.getTransactionReceipt({ hash })).blockHash, sealed.hash, 'pre-confirmed endpoint receipt after sealing');
      eq(await std.pub.getBalance({ address: SINK }), before + value, 'balance after sealing');
    });

    await run('nonce-pending', async () => {
      // A wallet takes the next nonce from eth_getTransactionCount(pending): two sends in a row,
      // before any pre-confirmation, must get consecutive nonces on either endpoint.
      for (const e of both) {
        const w = e.wallets[0];
        const h1 = await w.sendTransaction({ to: SINK, value: 1n });
        const h2 = await w.sendTransaction({ to: SINK, value: 2n });
        await n.preconfirm();
        const [t1, t2] = await Promise.all([pre.pub.getTransaction({ hash: h1 }), pre.pub.getTransaction({ hash: h2 })]);
        eq(t2.nonce, t1.nonce + 1, `${e.name}: consecutive nonces`);
        for (const hash of [h1, h2]) eq((await pre.pub.getTransactionReceipt({ hash })).status, 'success', `${e.name} receipt`);
      }
      await n.seal();
    });

    let contract;
    await run('deploy-and-call', async () => {
      const hash = await pre.wallets[0].deployContract({ abi, bytecode: artifact.bytecode, args: [7n] });
      await n.preconfirm();
      const r = await pre.pub.getTransactionReceipt({ hash });
      eq(r.status, 'success', 'deployment status');
      contract = r.contractAddress;
      eq(await pre.pub.readContract({ address: contract, abi, functionName: 'count' }), 7n, 'count (pending)');
      // Call the pre-confirmed contract: simulate it on `pending`, and give the write a gas
      // limit, because an estimate without a block tag runs on `latest` (service.md 4.3), where
      // the contract is not sealed yet.
      const { request } = await pre.pub.simulateContract({
        account: pre.wallets[0].account,
        address: contract,
        abi,
        functionName: 'setCount',
        args: [42n],
        blockTag: 'pending',
      });
      const h2 = await pre.wallets[0].writeContract({ ...request, gas: 100_000n });
      await n.preconfirm();
      eq((await pre.pub.getTransactionReceipt({ hash: h2 })).status, 'success', 'setCount status');
      eq(await pre.pub.readContract({ address: contract, abi, functionName: 'count' }), 42n, 'count after setCount');
      const err = await rejects(
        () => std.pub.readContract({ address: contract, abi, functionName: 'count' }),
        'standard read before sealing',
      );
      assert(/returned no data/.test(err.shortMessage), `standard read before sealing: ${err.shortMessage}`);
      await n.seal();
      eq(await std.pub.readContract({ address: contract, abi, functionName: 'count' }), 42n, 'count (standard, sealed)');
      eq(await std.pub.readContract({ address: contract, abi, functionName: 'check', args: [21n] }), 42n, 'check(21)');
    });

    await run('estimate-gas-revert', async () => {
      contract ??= await deploy(n, std, artifact);
      for (const e of both) {
        const account = e.wallets[0].account;
        const gas = await e.pub.estimateContractGas({ account, address: contract, abi, functionName: 'setCount', args: [5n] });
        assert(gas > 21_000n && gas < 100_000n, `${e.name}: estimate ${gas}`);
        const raw = await e.pub.estimateGas({
          account,
          to: contract,
          data: encodeFunctionData({ abi, functionName: 'transfer', args: [SINK, 1n] }),
        });
        assert(raw > 21_000n, `${e.name}: raw estimate ${raw}`);
        // Error(string): decoded from the revert data (eth_call, code 3) or taken from the
        // node's message "execution reverted: <reason>" (eth_estimateGas, code -32000).
        for (const [what, fn] of [
          ['estimateContractGas', () => e.pub.estimateContractGas({ account, address: contract, abi, functionName: 'setCount', args: [101n] })],
          ['simulateContract', () => e.pub.simulateContract({ account, address: contract, abi, functionName: 'setCount', args: [101n] })],
          ['readContract', () => e.pub.readContract({ address: contract, abi, functionName: 'check', args: [101n] })],
          ['estimateGas', () => e.pub.estimateGas({ account, to: contract, data: encodeFunctionData({ abi, functionName: 'setCount', args: [101n] }) })],
          ['writeContract', () => e.wallets[0].writeContract({ address: contract, abi, functionName: 'setCount', args: [101n] })],
        ]) {
          const err = await rejects(fn, `${e.name} ${what}(101)`);
          eq(viemRevertReason(err), REASON, `${e.name} ${what} reason`);
        }
        // A custom error: viem decodes it from the revert data with the ABI.
        for (const [what, fn] of [
          ['estimateContractGas', () => e.pub.estimateContractGas({ account, address: contract, abi, functionName: 'setCountStrict', args: [101n] })],
          ['simulateContract', () => e.pub.simulateContract({ account, address: contract, abi, functionName: 'setCountStrict', args: [101n] })],
        ]) {
          const err = await rejects(fn, `${e.name} ${what} setCountStrict(101)`);
          const revert = err.walk((x) => x instanceof ContractFunctionRevertedError);
          eq(revert?.data?.errorName, 'TooLarge', `${e.name} ${what} custom error: ${err.shortMessage}`);
          eq(revert.data.args.join(','), '101,100', `${e.name} ${what} custom error args`);
        }
      }
    });

    await run('pending-code', async () => {
      const hash = await std.wallets[1].deployContract({ abi, bytecode: artifact.bytecode, args: [1n] });
      await n.preconfirm();
      const { contractAddress } = await pre.pub.getTransactionReceipt({ hash });
      eq(await pre.pub.getCode({ address: contractAddress, blockTag: 'pending' }), artifact.deployedBytecode, 'pending code (pre-confirmed)');
      eq(await pre.pub.getCode({ address: contractAddress, blockTag: 'latest' }), undefined, 'latest code before sealing');
      eq(await std.pub.getCode({ address: contractAddress, blockTag: 'pending' }), undefined, 'pending code (standard)');
      await n.seal();
      for (const e of both) eq(await e.pub.getCode({ address: contractAddress, blockTag: 'latest' }), artifact.deployedBytecode, `${e.name} code after sealing`);
    });

    await run('get-logs', async () => {
      const address = await deploy(n, std, artifact);
      const [r1, r2, r3] = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a3'].map(getAddress);
      await std.wallets[0].writeContract({ address, abi, functionName: 'transfer', args: [r1, 10n] });
      await std.wallets[1].writeContract({ address, abi, functionName: 'transfer', args: [r2, 20n] });
      await n.preconfirm();
      await n.seal();
      const sealedHead = await std.pub.getBlock();
      await pre.wallets[0].writeContract({ address, abi, functionName: 'transfer', args: [r3, 30n] });
      await n.preconfirm();
      for (const e of both) {
        const logs = await e.pub.getLogs({ address, event: transferEvent, fromBlock: 0n, toBlock: 'latest' });
        eq(logs.length, 2, `${e.name} sealed logs`);
        eqi(logs[0].args.from, dev[0].address, 'decoded from');
        eq(logs[1].args.value, 20n, 'decoded value');
        const byTo = await e.pub.getLogs({ address, event: transferEvent, args: { to: r2 }, fromBlock: 0n });
        eq(byTo.length, 1, `${e.name} logs by indexed to`);
        eqi(byTo[0].args.from, dev[1].address, 'log by indexed to: from');
        const byFrom = await e.pub.getContractEvents({ address, abi, eventName: 'Transfer', args: { from: dev[0].address }, fromBlock: 0n, toBlock: 'pending' });
        eq(byFrom.length, e.pre ? 2 : 1, `${e.name} getContractEvents by indexed from, to pending`);
        const byHash = await e.pub.getLogs({ address, event: transferEvent, blockHash: sealedHead.hash });
        eq(byHash.length, 2, `${e.name} logs by blockHash`);
      }
      const pendingOnly = await pre.pub.getLogs({ address, event: transferEvent, fromBlock: 'pending', toBlock: 'pending' });
      eq(pendingOnly.length, 1, 'pre-confirmed logs only');
      eqi(pendingOnly[0].args.to, r3, 'pre-confirmed log decoded to');
      eq(pendingOnly[0].blockNumber, sealedHead.number + 1n, 'pre-confirmed log blockNumber');
      const all = await pre.pub.getLogs({ address, event: transferEvent, fromBlock: 0n, toBlock: 'pending' });
      eq(all.length, 3, 'sealed + pre-confirmed logs');
      await n.seal();
    });

    await run('ws-watch-blocks', async () => {
      const wsClients = both.map((e) => e.ws());
      try {
        const seen = wsClients.map(() => []);
        const unwatch = wsClients.map((c, i) =>
          c.watchBlocks({ poll: false, onBlock: (b) => seen[i].push(b), onError: (err) => seen[i].push(err) }),
        );
        // The subscriptions are set up asynchronously; seal until both have seen two blocks.
        const first = (await std.pub.getBlockNumber()) + 1n;
        await eventually(async () => {
          await n.seal();
          return seen.every((s) => s.filter((b) => b.number >= first).length >= 2);
        }, 'two sealed blocks over WebSocket', 10_000, 100);
        unwatch.forEach((u) => u());
        for (const [i, s] of seen.entries()) {
          const errs = s.filter((x) => x instanceof Error);
          assert(errs.length === 0, `${both[i].name}: ${errs[0]?.message}`);
          const blocks = s.filter((b) => b.number >= first);
          eq(blocks[1].number, blocks[0].number + 1n, `${both[i].name}: consecutive blocks`);
          eqi(blocks[1].parentHash, blocks[0].hash, `${both[i].name}: parent hash`);
        }
      } finally {
        await Promise.all(wsClients.map(closeWS));
      }
    });

    await run('ws-watch-events', async () => {
      const address = await deploy(n, std, artifact);
      const to = getAddress('0x00000000000000000000000000000000000000b1');
      const wsClients = both.map((e) => e.ws());
      try {
        const seen = wsClients.map(() => []);
        const unwatch = wsClients.map((c, i) =>
          c.watchContractEvent({
            address,
            abi,
            eventName: 'Transfer',
            args: { to },
            poll: false,
            onLogs: (logs) => seen[i].push(...logs),
            onError: (err) => seen[i].push(err),
          }),
        );
        await new Promise((r) => setTimeout(r, 200)); // let eth_subscribe complete
        await std.wallets[0].writeContract({ address, abi, functionName: 'transfer', args: [SINK, 1n] }); // filtered out
        await std.wallets[1].writeContract({ address, abi, functionName: 'transfer', args: [to, 77n] });
        await n.preconfirm();
        await n.seal();
        await eventually(() => seen.every((s) => s.some((l) => !(l instanceof Error) && !l.removed)), 'Transfer over WebSocket');
        unwatch.forEach((u) => u());
        for (const [i, s] of seen.entries()) {
          const errs = s.filter((x) => x instanceof Error);
          assert(errs.length === 0, `${both[i].name}: ${errs[0]?.message}`);
          const logs = s.filter((l) => !l.removed);
          eq(logs.length, 1, `${both[i].name}: one matching log`);
          eqi(logs[0].args.from, dev[1].address, `${both[i].name}: decoded from`);
          eq(logs[0].args.value, 77n, `${both[i].name}: decoded value`);
        }
      } finally {
        await Promise.all(wsClients.map(closeWS));
      }
    });

    await run('simulate', async () => {
      contract ??= await deploy(n, std, artifact);
      const from = dev[0].address;
      // Pre-confirm a setCount(9) first: simulating on `pending` must see it.
      await pre.wallets[0].writeContract({ address: contract, abi, functionName: 'setCount', args: [9n] });
      await n.preconfirm();
      const [block] = await pre.pub.simulateBlocks({
        blockTag: 'pending',
        blocks: [
          {
            calls: [
              { from, to: contract, abi, functionName: 'count' },
              { from, to: contract, abi, functionName: 'transfer', args: [SINK, 5n] },
              { from, to: contract, abi, functionName: 'check', args: [101n] },
            ],
          },
        ],
      });
      eq(block.number, (await std.pub.getBlockNumber()) + 1n, 'simulated block number (block in progress)');
      const [count, transfer, failed] = block.calls;
      eq(count.status, 'success', 'count status');
      eq(count.result, 9n, 'count sees the pre-confirmed setCount');
      eq(transfer.status, 'success', 'transfer status');
      eq(transfer.logs.length, 1, 'transfer log');
      eq(failed.status, 'failure', 'check(101) status');
      const revert = failed.error.walk((x) => x instanceof ContractFunctionRevertedError);
      eq(revert?.reason, REASON, 'simulateBlocks decoded revert reason');
      const { results } = await pre.pub.simulateCalls({
        account: from,
        calls: [
          { to: SINK, value: parseEther('0.5') },
          { to: contract, abi, functionName: 'check', args: [3n] },
        ],
      });
      eq(results[0].status, 'success', 'simulateCalls transfer');
      eq(results[1].result, 6n, 'simulateCalls check(3)');
      const err = await rejects(() => std.pub.simulateCalls({ account: from, calls: [{ to: SINK, value: 1n }] }), 'standard simulate');
      assert(err.walk((x) => x instanceof MethodNotFoundRpcError), `standard endpoint: ${err.shortMessage}, want method not found`);
      await n.seal();
    });

    await run('fee-data', async () => {
      for (const e of both) {
        const fh = await e.pub.getFeeHistory({ blockCount: 4, blockTag: 'latest', rewardPercentiles: [25, 75] });
        assert(fh.baseFeePerGas.length >= 2 && fh.baseFeePerGas.every((f) => f > 0n), `${e.name} feeHistory baseFeePerGas ${fh.baseFeePerGas}`);
        eq(fh.reward.length, fh.gasUsedRatio.length, `${e.name} feeHistory rewards`);
        eq(fh.reward[0].length, 2, `${e.name} feeHistory percentiles`);
        const fp = await e.pub.getFeeHistory({ blockCount: 2, blockTag: 'pending', rewardPercentiles: [50] });
        assert(fp.baseFeePerGas.length >= 2, `${e.name} pending feeHistory`);
        const tip = await e.pub.estimateMaxPriorityFeePerGas();
        assert(tip > 0n, `${e.name} maxPriorityFeePerGas ${tip}`);
        const fees = await e.pub.estimateFeesPerGas();
        assert(fees.maxFeePerGas > fees.maxPriorityFeePerGas, `${e.name} estimateFeesPerGas ${fees.maxFeePerGas}`);
        assert((await e.pub.getGasPrice()) > 0n, `${e.name} gasPrice`);
        assert((await e.pub.getBlobBaseFee()) > 0n, `${e.name} blobBaseFee`);
      }
    });
  } finally {
    await n.stop();
  }
  await runDefaultTiming(report, { start, artifact });
}

// runDefaultTiming uses the dev chain as people run it (pre-confirmations every 200 ms, a
// block every 2 s) and just waits for receipts.
async function runDefaultTiming(report, { start, artifact }) {
  await report.run('viem', 'default-timing', async () => {
    const n = await start({ name: 'viem-timing', manual: false });
    try {
      const ep = clients(n);
      const std = ep.standard;
      const pre = ep['pre-confirmed'];
      const times = [];
      for (const e of [std, pre]) {
        let t0 = Date.now();
        const hash = await e.wallets[0].deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: [1n] });
        const r = await e.pub.waitForTransactionReceipt({ hash });
        eq(r.status, 'success', `${e.name} deployment`);
        times.push(`${e.name} deploy ${Date.now() - t0} ms`);
        t0 = Date.now();
        const h2 = await e.wallets[0].writeContract({ address: r.contractAddress, abi: artifact.abi, functionName: 'setCount', args: [3n] });
        const r2 = await e.pub.waitForTransactionReceipt({ hash: h2 });
        eq(r2.status, 'success', `${e.name} setCount`);
        times.push(`${e.name} call ${Date.now() - t0} ms`);
        eq(await e.pub.readContract({ address: r.contractAddress, abi: artifact.abi, functionName: 'count' }), 3n, `${e.name} count`);
      }
      console.log(`        receipts: ${times.join(', ')}`);
    } finally {
      await n.stop();
    }
  });
}


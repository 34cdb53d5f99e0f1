// ethers.mjs: the client suite's scenarios written with ethers v6's own API.
import { Contract, ContractFactory, Interface, JsonRpcProvider, Network, WebSocketProvider, Wallet, getAddress, isError, parseEther } from 'ethers';

import { chainId, chainType, dev } from './lib/node.mjs';
import { assert, eq, eqi, eventually, rejects } from './lib/report.mjs';
import { REASON, SINK } from './lib/scenarios.mjs';

const network = new Network('flashrpc-dev', chainId);

// clients builds a provider and wallets (dev accounts 0 and 1) for both endpoints.
function clients(n, pollingInterval = 50) {
  const out = {};
  for (const [name, url, wsURL, pre] of [
    ['standard', n.std, n.stdWs, false],
    ['pre-confirmed', n.pre, n.preWs, true],
  ]) {
    const provider = new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval, cacheTimeout: -1 });
    out[name] = {
      name,
      pre,
      provider,
      wallets: dev.map((d) => new Wallet(d.key, provider)),
      ws: () => new WebSocketProvider(wsURL, network, { staticNetwork: network }),
    };
  }
  return out;
}

// deploy deploys ClientSuite(start) from dev account 0 through endpoint e, pre-confirms and
// seals, and returns the contract.
async function deploy(n, e, artifact, start = 7n) {
  const c = await new ContractFactory(artifact.abi, artifact.bytecode, e.wallets[0]).deploy(start);
  await n.preconfirm();
  await n.seal();
  await c.waitForDeployment();
  return c;
}

// revertReason returns the reason ethers decoded from a CALL_EXCEPTION.
function revertReason(err, what) {
  assert(isError(err, 'CALL_EXCEPTION'), `${what}: ${err.code} ${err.shortMessage ?? err.message}, want CALL_EXCEPTION`);
  return err.reason;
}

export async function runEthers(report, { start, artifact }) {
  const n = await start({ name: 'ethers', manual: true });
  const { abi } = artifact;
  const iface = new Interface(abi);
  const ep = clients(n);
  const std = ep.standard;
  const pre = ep['pre-confirmed'];
  const both = [std, pre];
  const run = (name, fn) => report.run('ethers', name, fn);
  try {
    await run('chain-id', async () => {
      for (const e of both) {
        eq((await e.provider.getNetwork()).chainId, chainId, `${e.name} getNetwork`);
        eq(BigInt(await e.provider.send('eth_chainId', [])), chainId, `${e.name} eth_chainId`);
      }
    });

    await run('blocks-by-tag', async () => {
      for (const e of both) {
        for (const tag of ['latest', 'earliest', 'safe', 'finalized', 'pending']) {
          const b = await e.provider.getBlock(tag); // ethers throws on a null number
          assert(b && typeof b.number === 'number' && b.hash, `${e.name} ${tag}: ${b && b.number}`);
        }
      }
      const tx = await pre.wallets[0].sendTransaction({ to: SINK, value: 1n });
      await n.preconfirm();
      const head = await std.provider.getBlock('latest');
      const pending = await pre.provider.getBlock('pending', true);
      eq(pending.number, head.number + 1, 'pre-confirmed pending number');
      eq(pending.parentHash, head.hash, 'pending parentHash');
      assert(pending.transactions.includes(tx.hash), 'pending block lists the transaction');
      // An OP Stack block opens with its L1-attributes deposit (type 126), which ethers parses.
      if (chainType === 'op') eq(pending.prefetchedTransactions[0].type, 126, 'prefetched L1-attributes deposit');
      eq(pending.prefetchedTransactions.at(-1).hash, tx.hash, 'prefetched pending transaction');
      const stdPending = await std.provider.getBlock('pending');
      // The standard endpoint's pending is the next block as forecast: nothing pre-confirmed.
      eq(stdPending.number, head.number + 1, 'standard pending number (the next block as forecast)');
      eq(stdPending.parentHash, head.hash, 'standard pending parentHash');
      eq(stdPending.transactions.length, 0, 'standard pending transactions (none pre-confirmed)');
      eq((await pre.provider.getBlock(head.number)).hash, head.hash, 'block by number');
      eq((await pre.provider.getBlock(head.hash)).number, head.number, 'block by hash');
      await n.seal();
      const sealed = await std.provider.getBlock('latest');
      eq(sealed.hash, pending.hash, 'sealed hash = last pre-confirmation hash');
      eq(await pre.provider.getBlockNumber(), sealed.number, 'getBlockNumber');
    });

    await run('send-and-receipt', async () => {
      const value = parseEther('1');
      const before = await std.provider.getBalance(SINK);
      const tx = await std.wallets[1].sendTransaction({ to: SINK, value });
      await n.preconfirm();
      const r = await pre.provider.getTransactionReceipt(tx.hash);
      eq(r?.status, 1, 'pre-confirmed receipt status');
      eq(r.blockNumber, (await std.provider.getBlockNumber()) + 1, 'pre-confirmed receipt blockNumber');
      eq(await std.provider.getTransactionReceipt(tx.hash), null, 'standard receipt before sealing');
      eq(await pre.provider.getBalance(SINK, 'pending'), before + value, 'pending balance (pre-confirmed)');
      eq(await std.provider.getBalance(SINK, 'pending'), before, 'pending balance (standard)');
      const got = await pre.provider.getTransaction(tx.hash);
      eq(got.from, dev[1].address, 'pre-confirmed transaction from');
      // tx.wait() on the pre-confirmed endpoint returns the pre-confirmed receipt.
      eq((await (await pre.provider.getTransaction(tx.hash)).wait()).status, 1, 'wait() on the pre-confirmed endpoint');
      const waiting = tx.wait();
      await n.seal();
      const sealed = await std.provider.getBlock('latest');
      const rs = await waiting;
      eq(rs.status, 1, 'sealed receipt status');
      eq(rs.blockHash, sealed.hash, 'sealed receipt blockHash');
      eq(await std.provider.getBalance(SINK), before + value, 'balance after sealing');
    });

    await run('nonce-pending', async () => {
      // Wallet takes the next nonce from eth_getTransactionCount(pending): two sends in a row,
      // before any pre-confirmation, must get consecutive nonces on either endpoint.
      for (const e of both) {
        const t1 = await e.wallets[0].sendTransaction({ to: SINK, value: 1n });
        const t2 = await e.wallets[0].sendTransaction({ to: SINK, value: 2n });
        eq(t2.nonce, t1.nonce + 1, `${e.name}: consecutive nonces`);
        await n.preconfirm();
        for (const t of [t1, t2]) eq((await pre.provider.getTransactionReceipt(t.hash)).status, 1, `${e.name} receipt`);
      }
      await n.seal();
    });

    let contract; // address of a sealed ClientSuite
    await run('deploy-and-call', async () => {
      const c = await new ContractFactory(abi, artifact.bytecode, pre.wallets[0]).deploy(7n);
      await n.preconfirm();
      const r = await c.deploymentTransaction().wait(); // the pre-confirmed receipt
      eq(r.status, 1, 'deployment status');
      const address = await c.getAddress();
      eq(r.contractAddress, address, 'receipt contractAddress');
      eq(await c.count({ blockTag: 'pending' }), 7n, 'count (pending)');
      // ethers estimates gas without a block parameter, which means `latest` (service.md 4.3):
      // the sealed head, where the pre-confirmed contract does not exist yet. A transaction
      // that depends on a pre-confirmed one carries its own gas limit.
      const set = await c.setCount(42n, { gasLimit: 100_000n });
      await n.preconfirm();
      eq((await set.wait()).status, 1, 'setCount status');
      eq(await c.count({ blockTag: 'pending' }), 42n, 'count after setCount (pending)');
      await n.seal();
      const sealed = new Contract(address, abi, std.provider);
      eq(await sealed.count(), 42n, 'count (standard, sealed)');
      eq(await sealed.check(21n), 42n, 'check(21)');
      contract = address;
    });

    await run('estimate-gas-revert', async () => {
      contract ??= await (await deploy(n, std, artifact)).getAddress();
      for (const e of both) {
        const c = new Contract(contract, abi, e.wallets[0]);
        const gas = await c.setCount.estimateGas(5n);
        assert(gas > 21_000n && gas < 100_000n, `${e.name}: estimate ${gas}`);
        const raw = await e.wallets[0].estimateGas({ to: contract, data: iface.encodeFunctionData('transfer', [SINK, 1n]) });
        assert(raw > 21_000n, `${e.name}: raw estimate ${raw}`);
        for (const [what, fn] of [
          ['estimateGas', () => c.setCount.estimateGas(101n)],
          ['staticCall', () => c.setCount.staticCall(101n)],
          ['view call', () => c.check(101n)],
          ['wallet.estimateGas', () => e.wallets[0].estimateGas({ to: contract, data: iface.encodeFunctionData('setCount', [101n]) })],
          ['sendTransaction', () => c.setCount(101n)],
        ]) {
          const err = await rejects(fn, `${e.name} ${what}(101)`);
          eq(revertReason(err, `${e.name} ${what}`), REASON, `${e.name} ${what} decoded reason`);
        }
        // A custom error: staticCall decodes it with the contract's ABI (err.revert); for
        // estimateGas ethers hands over the revert data (err.data) for the ABI to parse.
        let err = await rejects(() => c.setCountStrict.staticCall(101n), `${e.name} staticCall setCountStrict(101)`);
        revertReason(err, `${e.name} staticCall setCountStrict`);
        eq(err.revert?.name, 'TooLarge', `${e.name} staticCall custom error name`);
        eq(err.revert.args.join(','), '101,100', `${e.name} staticCall custom error args`);
        err = await rejects(() => c.setCountStrict.estimateGas(101n), `${e.name} estimateGas setCountStrict(101)`);
        revertReason(err, `${e.name} estimateGas setCountStrict`);
        const parsed = c.interface.parseError(err.data);
        eq(parsed?.name, 'TooLarge', `${e.name} estimateGas custom error name (data ${err.data})`);
        eq(parsed.args.join(','), '101,100', `${e.name} estimateGas custom error args`);
      }
    });

    await run('pending-code', async () => {
      const c = await new ContractFactory(abi, artifact.bytecode, std.wallets[1]).deploy(1n);
      await n.preconfirm();
      const address = await c.getAddress();
      eq(await pre.provider.getCode(address, 'pending'), artifact.deployedBytecode, 'pending code (pre-confirmed)');
      eq(await pre.provider.getCode(address, 'latest'), '0x', 'latest code before sealing');
      eq(await std.provider.getCode(address, 'pending'), '0x', 'pending code (standard)');
      await n.seal();
      await c.waitForDeployment();
      for (const e of both) eq(await e.provider.getCode(address), artifact.deployedBytecode, `${e.name} code after sealing`);
    });

    await run('get-logs', async () => {
      const c = await deploy(n, std, artifact);
      const address = await c.getAddress();
      const [r1, r2, r3] = ['0xa1', '0xa2', '0xa3'].map((x) => getAddress('0x' + x.slice(2).padStart(40, '0')));
      await c.connect(std.wallets[0]).transfer(r1, 10n);
      await c.connect(std.wallets[1]).transfer(r2, 20n);
      await n.preconfirm();
      await n.seal();
      const sealedHead = await std.provider.getBlock('latest');
      await c.connect(pre.wallets[0]).transfer(r3, 30n);
      await n.preconfirm();
      for (const e of both) {
        const ce = c.connect(e.provider);
        const logs = await ce.queryFilter(ce.filters.Transfer(), 0, 'latest');
        eq(logs.length, 2, `${e.name} sealed logs`);
        eq(logs[0].args.from, dev[0].address, 'decoded from');
        eq(logs[1].args.value, 20n, 'decoded value');
        const byTo = await ce.queryFilter(ce.filters.Transfer(null, r2), 0);
        eq(byTo.length, 1, `${e.name} logs by indexed to`);
        eq(byTo[0].args.from, dev[1].address, 'log by indexed to: from');
        const byFrom = await ce.queryFilter(ce.filters.Transfer(dev[0].address), 0, 'pending');
        eq(byFrom.length, e.pre ? 2 : 1, `${e.name} logs by indexed from, to pending`);
        const raw = await e.provider.getLogs({ address, topics: [iface.getEvent('Transfer').topicHash], blockHash: sealedHead.hash });
        eq(raw.length, 2, `${e.name} logs by blockHash`);
      }
      const pendingOnly = await pre.provider.getLogs({ address, fromBlock: 'pending', toBlock: 'pending' });
      eq(pendingOnly.length, 1, 'pre-confirmed logs only');
      eq(iface.parseLog(pendingOnly[0]).args.to, r3, 'pre-confirmed log decoded to');
      eq(pendingOnly[0].blockNumber, sealedHead.number + 1, 'pre-confirmed log blockNumber');
      eq((await pre.provider.getLogs({ address, fromBlock: 0, toBlock: 'pending' })).length, 3, 'sealed + pre-confirmed logs');
      await n.seal();
    });

    await run('ws-watch-blocks', async () => {
      const wsProviders = both.map((e) => e.ws());
      try {
        const seen = wsProviders.map(() => []);
        await Promise.all(wsProviders.map((p, i) => p.on('block', (number) => seen[i].push(number))));
        const first = (await std.provider.getBlockNumber()) + 1;
        await eventually(async () => {
          await n.seal();
          return seen.every((s) => s.filter((b) => b >= first).length >= 2);
        }, 'two sealed blocks over WebSocket', 10_000, 100);
        for (const [i, s] of seen.entries()) {
          const blocks = s.filter((b) => b >= first);
          eq(blocks[1], blocks[0] + 1, `${both[i].name}: consecutive blocks`);
        }
      } finally {
        await Promise.all(wsProviders.map((p) => p.destroy()));
      }
    });

    await run('ws-watch-events', async () => {
      const address = await (await deploy(n, std, artifact)).getAddress();
      const to = getAddress('0x00000000000000000000000000000000000000b1');
      const wsProviders = both.map((e) => e.ws());
      try {
        const seen = wsProviders.map(() => []);
        await Promise.all(
          wsProviders.map((p, i) => {
            const c = new Contract(address, abi, p);
            // With a topic filter ethers passes the event payload only; its args are decoded.
            return c.on(c.filters.Transfer(null, to), (...args) => seen[i].push(args.at(-1)));
          }),
        );
        await new Promise((r) => setTimeout(r, 200)); // let eth_subscribe complete
        const c = new Contract(address, abi, std.wallets[0]);
        await c.transfer(SINK, 1n); // filtered out
        await c.connect(std.wallets[1]).transfer(to, 77n);
        await n.preconfirm();
        await n.seal();
        await eventually(() => seen.every((s) => s.length > 0), 'Transfer over WebSocket');
        for (const [i, s] of seen.entries()) {
          eq(s.length, 1, `${both[i].name}: one matching event`);
          const payload = s[0];
          eq(payload.eventName, 'Transfer', `${both[i].name}: event name`);
          eq(payload.args.from, dev[1].address, `${both[i].name}: decoded from`);
          eq(payload.args.value, 77n, `${both[i].name}: decoded value`);
          eq(payload.log.address, address, `${both[i].name}: event log`);
        }
      } finally {
        await Promise.all(wsProviders.map((p) => p.destroy()));
      }
    });

    await run('http-filters', async () => {
      // contract.on over HTTP: ethers installs a filter (eth_newFilter, no block range) and
      // polls it (eth_getFilterChanges) each time its block poller sees a new block number;
      // provider.on('pending') does the same with eth_newPendingTransactionFilter. The
      // pre-confirmed endpoint's filters hold pre-confirmed logs and transactions, so a poll
      // made before the block seals already has the event; the standard endpoint's only once
      // it is sealed.
      const address = await (await deploy(n, std, artifact)).getAddress();
      const to = getAddress('0x00000000000000000000000000000000000000b2');
      const providers = [n.std, n.pre].map((url) => new JsonRpcProvider(url, network, { staticNetwork: network, pollingInterval: 500, cacheTimeout: -1 }));
      const events = providers.map(() => []);
      const pending = providers.map(() => []);
      try {
        for (const [i, p] of providers.entries()) {
          const c = new Contract(address, abi, p);
          await c.on(c.filters.Transfer(null, to), (...args) => events[i].push(args.at(-1)));
          await p.on('pending', (hash) => pending[i].push(hash));
        }
        await new Promise((r) => setTimeout(r, 300)); // let the first polls install the filters
        const [stdEvents, preEvents] = events;
        const sender = new Contract(address, abi, pre.wallets[1]);
        let early = null;
        for (let round = 0; round < 3 && !early; round++) {
          const value = 100n + BigInt(round);
          const tx = await sender.transfer(to, value, { gasLimit: 100_000n });
          // Seal a block without it, then pre-confirm it in the next: ethers' block poller
          // (every 500 ms) sees the sealed block and polls the filters while the transfer is
          // pre-confirmed only. (If it polled between the two calls, the round is repeated.)
          await n.seal();
          await n.preconfirm();
          const head = await std.provider.getBlockNumber();
          const found = await eventually(() => preEvents.find((e) => e.args.value === value), 'pre-confirmed event', 3_000).catch(() => null);
          if (found) {
            early = { found, head, tx, value };
            eq(found.log.blockNumber, head + 1, 'pre-confirmed event in the block in progress');
            eq(await std.provider.getBlockNumber(), head, 'the block is not sealed when the event arrives');
            assert(!stdEvents.some((e) => e.args.value === value), 'standard endpoint saw the event before sealing');
            eq(found.args.from, dev[1].address, 'decoded from (pre-confirmed)');
            assert(pending[1].includes(tx.hash), 'pending filter of the pre-confirmed endpoint has the transaction');
            assert(!pending[0].includes(tx.hash), 'pending filter of the standard endpoint has the transaction before sealing');
          }
          await n.seal();
          const sealed = await eventually(() => stdEvents.find((e) => e.args.value === value), 'sealed event on the standard endpoint');
          eq(sealed.log.blockHash, (await std.provider.getBlock('latest')).hash, 'sealed event blockHash');
          await eventually(() => pending[0].includes(tx.hash), 'standard endpoint pending filter after sealing');
        }
        assert(early, 'in 3 rounds the pre-confirmed endpoint never delivered the event before the block sealed');
        // Each event once: the pre-confirmed endpoint does not repeat it when its block seals.
        await n.seal();
        await new Promise((r) => setTimeout(r, 1_200)); // two more polls
        eq(preEvents.filter((e) => e.args.value === early.value).length, 1, 'pre-confirmed endpoint: the event once');
        eq(stdEvents.filter((e) => e.args.value === early.value).length, 1, 'standard endpoint: the event once');
      } finally {
        for (const p of providers) p.destroy();
      }
    });

    await run('simulate', async () => {
      contract ??= await (await deploy(n, std, artifact)).getAddress();
      const from = dev[0].address;
      await new Contract(contract, abi, pre.wallets[0]).setCount(9n);
      await n.preconfirm();
      const calls = [
        { from, to: contract, data: iface.encodeFunctionData('count') },
        { from, to: contract, data: iface.encodeFunctionData('transfer', [SINK, 5n]) },
        { from, to: contract, data: iface.encodeFunctionData('check', [101n]) },
      ];
      const [block] = await pre.provider.send('eth_simulateV1', [{ blockStateCalls: [{ calls }] }, 'pending']);
      eq(BigInt(block.number), BigInt(await std.provider.getBlockNumber()) + 1n, 'simulated block number (block in progress)');
      const [count, transfer, failed] = block.calls;
      eq(count.status, '0x1', 'count status');
      eq(iface.decodeFunctionResult('count', count.returnData)[0], 9n, 'count sees the pre-confirmed setCount');
      eq(transfer.logs.length, 1, 'transfer log');
      eq(iface.parseLog(transfer.logs[0]).args.value, 5n, 'simulated log decoded');
      eq(failed.status, '0x0', 'check(101) status');
      const err = iface.makeError(failed.error.data, { data: calls[2].data, to: contract });
      eq(err.reason, REASON, 'simulated revert decoded by ethers');
      const e2 = await rejects(() => std.provider.send('eth_simulateV1', [{ blockStateCalls: [{ calls }] }, 'latest']), 'standard simulate');
      assert(isError(e2, 'UNSUPPORTED_OPERATION'), `standard endpoint: ${e2.code}, want UNSUPPORTED_OPERATION`);
      eq(e2.info?.error?.code, -32601, `standard endpoint: ${e2.shortMessage}`);
      await n.seal();
    });

    await run('fee-data', async () => {
      for (const e of both) {
        const fd = await e.provider.getFeeData();
        assert(fd.gasPrice > 0n && fd.maxPriorityFeePerGas > 0n && fd.maxFeePerGas > fd.maxPriorityFeePerGas, `${e.name} getFeeData ${fd.maxFeePerGas}`);
        eq(fd.maxPriorityFeePerGas, BigInt(await e.provider.send('eth_maxPriorityFeePerGas', [])), `${e.name} maxPriorityFeePerGas`);
        for (const tag of ['latest', 'pending']) {
          const fh = await e.provider.send('eth_feeHistory', ['0x4', tag, [25, 75]]);
          assert(fh.baseFeePerGas.length >= 2 && BigInt(fh.baseFeePerGas[0]) > 0n, `${e.name} feeHistory ${tag}`);
          eq(fh.reward.length, fh.gasUsedRatio.length, `${e.name} feeHistory ${tag} rewards`);
        }
      }
    });
  } finally {
    for (const e of both) e.provider.destroy();
    await n.stop();
  }
  await runDefaultTiming(report, { start, artifact });
}

// runDefaultTiming uses the dev chain as people run it (pre-confirmations every 200 ms, a block
// every 2 s) and just waits: waitForDeployment() and tx.wait().
async function runDefaultTiming(report, { start, artifact }) {
  await report.run('ethers', 'default-timing', async () => {
    const n = await start({ name: 'ethers-timing', manual: false });
    const ep = clients(n, 250);
    try {
      const times = [];
      for (const e of [ep.standard, ep['pre-confirmed']]) {
        let t0 = Date.now();
        const c = await new ContractFactory(artifact.abi, artifact.bytecode, e.wallets[0]).deploy(1n);
        const r = await c.deploymentTransaction().wait();
        eq(r.status, 1, `${e.name} deployment`);
        times.push(`${e.name} deploy ${Date.now() - t0} ms`);
        t0 = Date.now();
        const tx = await c.setCount(3n, { gasLimit: 100_000n }); // estimates run on `latest`
        eq((await tx.wait()).status, 1, `${e.name} setCount`);
        times.push(`${e.name} call ${Date.now() - t0} ms`);
        eq(await c.count({ blockTag: 'pending' }), 3n, `${e.name} count`);
      }
      await ep.standard.wallets[0].sendTransaction({ to: SINK, value: 1n }).then((tx) => tx.wait());
      console.log(`        receipts: ${times.join(', ')}`);
    } finally {
      for (const e of Object.values(ep)) e.provider.destroy();
      await n.stop();
    }
  });
}

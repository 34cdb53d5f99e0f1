// viem-opstack.mjs: the OP Stack scenarios written with viem/op-stack: its chain config
// (formatters of deposit transactions and receipts with the L1 fee fields) and its L2 public
// actions (getL1BaseFee, estimateL1Fee, estimateOperatorFee, estimateTotalFee).
import { createPublicClient, createWalletClient, defineChain, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { chainConfig, publicActionsL2 } from 'viem/op-stack';

import { chainId, dev } from './lib/node.mjs';
import { assert, eq, eqi } from './lib/report.mjs';
import { DEPOSITOR, GAS_CAP_ERROR, L1_BASE_FEE, L1_BLOB_BASE_FEE, L1_BLOCK, SINK } from './lib/scenarios.mjs';

// opClients builds viem clients with viem/op-stack's chain config for both endpoints.
function opClients(n) {
  const out = {};
  for (const [name, url, pre] of [
    ['standard', n.std, false],
    ['pre-confirmed', n.pre, true],
  ]) {
    const chain = defineChain({
      ...chainConfig,
      id: chainId,
      name: `flashrpc OP Stack dev${pre ? ' (pre-confirmed)' : ''}`,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [url] } },
      ...(pre ? { experimental_preconfirmationTime: 200 } : {}),
    });
    const transport = http(url, { retryCount: 0 });
    out[name] = {
      name,
      pre,
      pub: createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }).extend(publicActionsL2()),
      wallet: createWalletClient({ account: privateKeyToAccount(dev[0].key), chain, transport, pollingInterval: 50, cacheTime: 0 }),
    };
  }
  return out;
}

export async function runViemOPStack(report, { start }) {
  const n = await start({ name: 'viem-opstack', manual: true, extra: ['--l1.base-fee', String(L1_BASE_FEE), '--l1.blob-base-fee', String(L1_BLOB_BASE_FEE)] });
  const ep = opClients(n);
  const std = ep.standard;
  const pre = ep['pre-confirmed'];
  const run = (name, fn) => report.run('viem', name, fn);
  try {
    await run('op-fees', async () => {
      // The genesis block has no L1 attributes (the dev chain has no L1 start block): seal
      // block 1 so that `latest` has them too.
      await n.seal();
      for (const e of [std, pre]) eq(await e.pub.getL1BaseFee(), L1_BASE_FEE, `${e.name} getL1BaseFee (GasPriceOracle.l1BaseFee)`);
      const req = { account: pre.wallet.account, to: SINK, value: 1n };
      const [l1Fee, operatorFee, total, gasPrice] = await Promise.all([
        pre.pub.estimateL1Fee(req),
        pre.pub.estimateOperatorFee(req),
        pre.pub.estimateTotalFee(req),
        pre.pub.getGasPrice(),
      ]);
      assert(l1Fee > 0n, `estimateL1Fee ${l1Fee}`);
      eq(operatorFee, 0n, 'estimateOperatorFee (the dev chain charges none)');
      eq(total, l1Fee + 21_000n * gasPrice, 'estimateTotalFee = L1 fee + L2 gas × gas price');
      const hash = await pre.wallet.sendTransaction(req);
      await n.preconfirm();
      const r = await pre.pub.getTransactionReceipt({ hash });
      eq(r.status, 'success', 'pre-confirmed receipt');
      eq(r.l1Fee, l1Fee, 'pre-confirmed receipt l1Fee = estimateL1Fee');
      eq(r.l1GasPrice, L1_BASE_FEE, 'receipt l1GasPrice = --l1.base-fee');
      assert(r.l1GasUsed > 0n, `receipt l1GasUsed ${r.l1GasUsed}`);
      await n.seal();
      const sealed = await std.pub.getTransactionReceipt({ hash });
      eq(sealed.l1Fee, r.l1Fee, 'sealed receipt l1Fee = pre-confirmed');
      eq(sealed.l1GasUsed, r.l1GasUsed, 'sealed receipt l1GasUsed = pre-confirmed');
      // The block opens with the L1-attributes deposit, formatted by viem/op-stack.
      const block = await std.pub.getBlock({ blockNumber: sealed.blockNumber, includeTransactions: true });
      const info = block.transactions[0];
      eq(info.type, 'deposit', 'transaction 0 type');
      eqi(info.from, DEPOSITOR, 'L1-attributes deposit from');
      eqi(info.to, L1_BLOCK, 'L1-attributes deposit to');
      eq(info.isSystemTx, false, 'isSystemTx');
      eq(info.mint, 0n, 'mint');
      assert(/^0x[0-9a-f]{64}$/.test(info.sourceHash), `sourceHash ${info.sourceHash}`);
      const infoReceipt = await std.pub.getTransactionReceipt({ hash: info.hash });
      eq(infoReceipt.depositReceiptVersion, 1, 'L1-attributes deposit receipt version');
      eq(infoReceipt.l1Fee, null, 'a deposit pays no L1 fee');
    });

    await run('op-deposits', async () => {
      const from = '0x00000000000000000000000000000000000D3b05';
      const to = '0x00000000000000000000000000000000000D3b06';
      const hash = await n.rpc(n.pre, 'dev_deposit', [{ from, to, mint: '0xde0b6b3a7640000', value: '0x6f05b59d3b20000', gas: '0x186a0' }]);
      await n.seal(); // the deposit opens the next block, right after its L1-attributes deposit
      const pending = await pre.pub.getBlock({ blockTag: 'pending', includeTransactions: true });
      eq(pending.transactions.length, 2, 'pre-confirmation 0 of the next block');
      eq(pending.transactions[1].hash, hash, 'the deposit follows the L1-attributes deposit');
      const tx = await pre.pub.getTransaction({ hash });
      eq(tx.type, 'deposit', 'deposit type');
      eq(tx.mint, 10n ** 18n, 'deposit mint');
      eq(tx.value, 5n * 10n ** 17n, 'deposit value');
      eqi(tx.from, from, 'deposit from');
      eq(tx.isSystemTx, false, 'deposit isSystemTx');
      const r = await pre.pub.waitForTransactionReceipt({ hash });
      eq(r.status, 'success', 'deposit receipt');
      eq(r.depositNonce, 0n, 'depositNonce');
      eq(r.depositReceiptVersion, 1, 'depositReceiptVersion');
      eq(await pre.pub.getBalance({ address: to, blockTag: 'pending' }), 5n * 10n ** 17n, 'recipient balance');
      eq(await pre.pub.getBalance({ address: from, blockTag: 'pending' }), 5n * 10n ** 17n, 'sender keeps mint − value (no fees)');
      await n.seal();
      eq((await std.pub.getTransactionReceipt({ hash })).depositNonce, 0n, 'sealed deposit receipt');
    });

    await run('op-gas-cap', async () => {
      // EIP-7825's cap (Azul, Karst): 20M gas is refused at submission, with the message, nothing queued.
      const nonce = await pre.pub.getTransactionCount({ address: pre.wallet.account.address, blockTag: 'pending' });
      const err = await pre.wallet.sendTransaction({ to: SINK, value: 1n, gas: 20_000_000n }).then(
        () => null,
        (e) => e,
      );
      assert(err && `${err.details} ${err.message}`.includes(GAS_CAP_ERROR), `20M gas: ${err?.details ?? err}`);
      await n.preconfirm();
      eq(await pre.pub.getTransactionCount({ address: pre.wallet.account.address, blockTag: 'pending' }), nonce, 'nothing queued');
    });
  } finally {
    await n.stop();
  }
}

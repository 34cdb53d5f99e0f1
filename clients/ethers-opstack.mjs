// ethers-opstack.mjs: the OP Stack scenarios with ethers v6, which has no OP Stack helpers:
// blocks holding deposits parse, the L1 fee fields come from the raw receipt, and
// GasPriceOracle is an ordinary contract.
import { Contract, JsonRpcProvider, Network, Transaction, Wallet, getAddress } from 'ethers';

import { chainId, dev } from './lib/node.mjs';
import { assert, eq } from './lib/report.mjs';
import { DEPOSITOR, GAS_CAP_ERROR, GAS_PRICE_ORACLE, L1_BASE_FEE, L1_BLOB_BASE_FEE, L1_BLOCK, SINK } from './lib/scenarios.mjs';

const network = new Network('flashrpc-dev', chainId);
const gpoABI = ['function getL1Fee(bytes) view returns (uint256)', 'function l1BaseFee() view returns (uint256)', 'function blobBaseFee() view returns (uint256)'];

export async function runEthersOPStack(report, { start }) {
  const n = await start({ name: 'ethers-opstack', manual: true, extra: ['--l1.base-fee', String(L1_BASE_FEE), '--l1.blob-base-fee', String(L1_BLOB_BASE_FEE)] });
  const provider = new JsonRpcProvider(n.pre, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });
  const std = new JsonRpcProvider(n.std, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 });
  const wallet = new Wallet(dev[1].key, provider);
  const gpo = new Contract(GAS_PRICE_ORACLE, gpoABI, provider);
  const run = (name, fn) => report.run('ethers', name, fn);
  try {
    await run('op-fees', async () => {
      // The genesis block has no L1 attributes: block 1, in progress, has.
      eq(await gpo.l1BaseFee({ blockTag: 'pending' }), L1_BASE_FEE, 'GasPriceOracle.l1BaseFee()');
      eq(await gpo.blobBaseFee({ blockTag: 'pending' }), L1_BLOB_BASE_FEE, 'GasPriceOracle.blobBaseFee()');
      const before = await provider.getBalance(wallet.address, 'pending');
      const value = 12345n;
      const sent = await wallet.sendTransaction({ to: SINK, value, data: '0x' + 'ab'.repeat(200) });
      await n.preconfirm();
      const r = await provider.getTransactionReceipt(sent.hash);
      eq(r.status, 1, 'receipt status');
      const raw = await provider.send('eth_getTransactionReceipt', [sent.hash]);
      const l1Fee = BigInt(raw.l1Fee);
      assert(l1Fee > 0n, `l1Fee ${raw.l1Fee}`);
      eq(BigInt(raw.l1GasPrice), L1_BASE_FEE, 'l1GasPrice = --l1.base-fee');
      eq(BigInt(raw.l1BlobBaseFee), L1_BLOB_BASE_FEE, 'l1BlobBaseFee = --l1.blob-base-fee');
      // GasPriceOracle.getL1Fee of the unsigned transaction is the receipt's L1 fee.
      const unsigned = Transaction.from({ ...sent.toJSON(), signature: null, hash: null, from: null }).unsignedSerialized;
      eq(await gpo.getL1Fee(unsigned, { blockTag: 'pending' }), l1Fee, 'GasPriceOracle.getL1Fee(unsigned) = receipt l1Fee');
      // The sender pays value + gas × price + the L1 fee, to the wei.
      const after = await provider.getBalance(wallet.address, 'pending');
      eq(before - after, value + r.gasUsed * r.gasPrice + l1Fee, 'balance drop');
      // The block in progress opens with the L1-attributes deposit, which ethers parses.
      const block = await provider.getBlock('pending', true);
      const info = block.prefetchedTransactions[0];
      eq(info.type, 126, 'transaction 0 type');
      eq(info.from, DEPOSITOR, 'L1-attributes deposit from');
      eq(info.to, L1_BLOCK, 'L1-attributes deposit to');
      await n.seal();
      eq(BigInt((await std.send('eth_getTransactionReceipt', [sent.hash])).l1Fee), l1Fee, 'sealed l1Fee = pre-confirmed');
    });

    await run('op-deposits', async () => {
      const from = '0x00000000000000000000000000000000000D3B07';
      const hash = await provider.send('dev_deposit', [{ from, to: SINK, mint: '0x2386f26fc10000', value: '0x0', gas: '0x186a0' }]);
      await n.seal();
      const tx = await provider.getTransaction(hash);
      eq(tx.type, 126, 'deposit type');
      eq(tx.from, getAddress(from), 'deposit from');
      const r = await tx.wait();
      eq(r.status, 1, 'deposit receipt status');
      eq(r.index, 1, 'the deposit follows the L1-attributes deposit');
      eq(await provider.getBalance(from, 'pending'), 10n ** 16n, 'minted to the sender');
      const err = await provider.send('dev_deposit', [{ from, gas: '0x1' }]).then(
        () => null,
        (e) => e,
      );
      assert(err && err.error?.code === -32602 && /gas/.test(err.error.message), `bad gas: ${err?.error?.code} ${err?.error?.message}`);
      await n.seal();
    });

    await run('op-gas-cap', async () => {
      // EIP-7825's cap (Azul, Karst): 20M gas is refused at submission, with the message, nothing queued.
      const nonce = await provider.getTransactionCount(wallet.address, 'pending');
      const err = await wallet.sendTransaction({ to: SINK, value: 1n, gasLimit: 20_000_000n }).then(
        () => null,
        (e) => e,
      );
      const text = `${err?.message} ${err?.error?.message}`;
      assert(err && text.includes(GAS_CAP_ERROR), `20M gas: ${text}`);
      await n.preconfirm();
      eq(await provider.getTransactionCount(wallet.address, 'pending'), nonce, 'nothing queued');
    });
  } finally {
    provider.destroy();
    std.destroy();
    await n.stop();
  }
}

// check.mjs drives a flashrpc dev node in manual mode (--block-time 0 --preconf-interval 0)
// with viem and checks the pre-confirmation streams as an app sees them:
//
//   - pendingLogs (address filter) and newFlashblocks over viem's webSocket transport:
//     order, counts, shapes;
//   - retraction: dev_seal with a transaction list that leaves one out; the retracted logs come
//     again with removed: true, the moved one as sealed, and eth_getLogs never shows them;
//   - eth_sendRawTransactionSync (viem's sendRawTransactionSync) answered with the
//     pre-confirmed receipt.
//
// Environment: FLASHRPC_PRE_URL (pre-confirmed endpoint, http://…) and FLASHRPC_PRE_WS (its
// ws://… URL). cmd/flashrpc's TestViemPending starts a node and runs this script; by hand:
//
//   flashrpc dev --block-time 0 --preconf-interval 0 &
//   FLASHRPC_PRE_URL=http://127.0.0.1:8547 FLASHRPC_PRE_WS=ws://127.0.0.1:8547 node check.mjs
//
// It prints one line per check and a summary "viem-pending: N passed, M failed", and exits 1 if
// a check failed.
import { createPublicClient, createWalletClient, defineChain, http, keccak256, webSocket } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';

const PRE_URL = process.env.FLASHRPC_PRE_URL;
const PRE_WS = process.env.FLASHRPC_PRE_WS;
if (!PRE_URL || !PRE_WS) {
  console.error('set FLASHRPC_PRE_URL and FLASHRPC_PRE_WS to the pre-confirmed endpoint');
  process.exit(2);
}
const MNEMONIC = 'test test test test test test test test test test test junk';
const ZERO_HASH = `0x${'0'.repeat(64)}`;
// Init code of a contract whose every call emits LOG1(topic 0x…0f1a54) with the word 42 as data
// (the same bytes as logInit in cmd/flashrpc/node_test.go).
const EMITTER_INIT = `0x602c600c600039602c6000f3602a6000527f${'0'.repeat(58)}0f1a5460206000a100`;

const chain = defineChain({
  id: 1337,
  name: 'flashrpc dev',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [PRE_URL], webSocket: [PRE_WS] } },
});
const client = createPublicClient({ chain, transport: http(PRE_URL) });
const ws = createPublicClient({ chain, transport: webSocket(PRE_WS) });
const wallets = [0, 1, 2, 3, 4].map((i) =>
  createWalletClient({ account: mnemonicToAccount(MNEMONIC, { addressIndex: i }), chain, transport: http(PRE_URL) }),
);
const dev = (method, params = []) => client.request({ method, params });

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail ? `: ${detail}` : ''}`);
  }
}

// waitFor polls cond every 5 ms for up to 10 s (a hang guard, not a measurement).
async function waitFor(what, cond) {
  const deadline = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

async function main() {
  // A contract that emits one log per call, in its own sealed block.
  const deploy = await wallets[0].sendTransaction({ data: EMITTER_INIT, gas: 300_000n });
  await dev('dev_preconfirm');
  await dev('dev_seal');
  const { contractAddress: emitter } = await client.getTransactionReceipt({ hash: deploy });
  check('emitter deployed', !!emitter);

  const logs = [];
  const blocks = [];
  const onError = (err) => console.log(`subscription error: ${err?.message ?? err}`);
  const logSub = await ws.transport.subscribe({
    params: ['pendingLogs', { address: emitter }],
    onData: (d) => logs.push(d.result),
    onError,
  });
  const blockSub = await ws.transport.subscribe({ params: ['newFlashblocks'], onData: (d) => blocks.push(d.result), onError });

  // Two pre-confirmations: two calls, then one.
  const calls = [];
  calls.push(await wallets[1].sendTransaction({ to: emitter, gas: 60_000n }));
  calls.push(await wallets[2].sendTransaction({ to: emitter, gas: 60_000n }));
  await dev('dev_preconfirm');
  calls.push(await wallets[3].sendTransaction({ to: emitter, gas: 60_000n }));
  await dev('dev_preconfirm');
  await waitFor('3 pending logs and 2 flashblocks', () => logs.length >= 3 && blocks.length >= 2);
  const pending = await client.getBlock({ blockTag: 'pending' });

  check('pendingLogs: one log per call, in order', same(logs.map((l) => l.transactionHash), calls), JSON.stringify(logs));
  check(
    'pendingLogs: pre-confirmed shape (zero blockHash, pending number, removed false)',
    logs.every((l, i) => l.blockHash === ZERO_HASH && BigInt(l.blockNumber) === pending.number && l.removed === false && BigInt(l.logIndex) === BigInt(i)),
  );
  check('newFlashblocks: one block per pre-confirmation', blocks.length === 2, `${blocks.length}`);
  check(
    'newFlashblocks: the transactions so far, full objects with blockHash null',
    // An OP Stack block (the default dev chain) opens with its L1-attributes deposit (0x7e).
    same(blocks.map((b) => b.transactions.filter((tx) => tx.type !== '0x7e').map((tx) => tx.hash)), [calls.slice(0, 2), calls]) &&
      blocks.every((b) => b.transactions.every((tx) => tx.blockHash === null)),
  );
  check('newFlashblocks: last block is the pending block', blocks[1].hash === pending.hash && BigInt(blocks[1].number) === pending.number);

  // Retraction: seal without the middle call. Its log is retracted; the third moves up one
  // position, so its pre-confirmed log is retracted and its sealed log follows.
  const sealed = await dev('dev_seal', [{ transactions: [calls[0], calls[2]] }]);
  await waitFor('the retraction', () => logs.length >= 6);
  const [r1, r2, moved] = logs.slice(3, 6);
  check(
    'retraction: the dropped call\'s log again with removed: true',
    r1.transactionHash === calls[1] && r1.removed === true && BigInt(r1.logIndex) === 1n,
    JSON.stringify(r1),
  );
  check(
    'retraction: the moved call\'s pre-confirmed log with removed: true',
    r2.transactionHash === calls[2] && r2.removed === true && BigInt(r2.logIndex) === 2n,
    JSON.stringify(r2),
  );
  check(
    'retraction: the moved call\'s log as sealed',
    moved.transactionHash === calls[2] && moved.removed === false && BigInt(moved.logIndex) === 1n && moved.blockHash === sealed.hash,
    JSON.stringify(moved),
  );
  const found = await client.getLogs({ address: emitter, fromBlock: 0n, toBlock: 'pending' });
  check(
    'eth_getLogs never returns the retracted log',
    found.length === 2 && !found.some((l) => l.transactionHash === calls[1]),
    JSON.stringify(found.map((l) => l.transactionHash)),
  );
  let dropped = null;
  try {
    dropped = await client.getTransactionReceipt({ hash: calls[1] });
  } catch {
    // TransactionReceiptNotFoundError: what we want
  }
  check('the dropped call has no receipt', dropped === null);

  // eth_sendRawTransactionSync: the receipt comes back as soon as it is pre-confirmed.
  const request = await wallets[4].prepareTransactionRequest({ to: emitter, gas: 60_000n });
  const serializedTransaction = await wallets[4].signTransaction(request);
  const hash = keccak256(serializedTransaction);
  const receiptPromise = wallets[4].sendRawTransactionSync({ serializedTransaction, timeout: 5_000 });
  await waitFor('the transaction in the pool', () => poolHas(hash));
  await dev('dev_preconfirm');
  const receipt = await receiptPromise;
  check(
    'sendRawTransactionSync: pre-confirmed receipt',
    receipt.transactionHash === hash && receipt.status === 'success' && receipt.blockHash === ZERO_HASH,
    JSON.stringify(receipt, (_, v) => (typeof v === 'bigint' ? v.toString() : v)),
  );
  await waitFor('its pending log', () => logs.length >= 7);
  check('pendingLogs: the synchronous transaction\'s log', logs[6].transactionHash === hash && logs[6].removed === false);

  await logSub.unsubscribe();
  await blockSub.unsubscribe();
}

// poolHas is set by a background poll: viem's calls are async, waitFor's condition is not.
const pooled = new Set();
function poolHas(hash) {
  if (!pooled.has(hash)) {
    client.getTransaction({ hash }).then(() => pooled.add(hash), () => {});
  }
  return pooled.has(hash);
}

try {
  await main();
} catch (err) {
  failed++;
  console.log(`FAIL ${err?.stack ?? err}`);
}
console.log(`viem-pending: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

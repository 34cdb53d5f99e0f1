// node.mjs builds and starts flashrpc dev nodes for the client suite.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const toolsDir = join(repoRoot, '.tools');
export const binary = process.env.FLASHRPC_BIN ?? join(toolsDir, 'flashrpc');

// Dev account 0 and 1 of the test mnemonic (public and well known; never use on a real chain).
export const dev = [
  {
    address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    key: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  },
  {
    address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    key: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  },
];
export const chainId = 1337;

// build compiles ./cmd/flashrpc into .tools/flashrpc unless FLASHRPC_BIN names a binary.
export function build() {
  if (process.env.FLASHRPC_BIN) return;
  mkdirSync(toolsDir, { recursive: true });
  const r = spawnSync('go', ['build', '-o', binary, './cmd/flashrpc'], { cwd: repoRoot, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`go build ./cmd/flashrpc failed (exit ${r.status})`);
}

// start runs `flashrpc dev` on random loopback ports and resolves once both endpoints answer.
// manual: true sets --block-time 0 --preconf-interval 0 (dev_preconfirm / dev_seal only);
// otherwise the default timing (pre-confirmations every 200 ms, a block every 2 s).
// extra are more flags (--l1.base-fee …). FLASHRPC_CHAIN_TYPE=l1 runs plain Ethereum dev chains
// instead of the default OP Stack one; FLASHRPC_NETWORK=NAME runs `dev --network NAME` (that
// network's rules as of now and, outside manual mode, its cadence; chain id 1337 still). The
// node's output goes to .tools/clients-<name>.log.
export const network = process.env.FLASHRPC_NETWORK ?? '';
export const chainType = process.env.FLASHRPC_CHAIN_TYPE ?? 'op';
export async function start({ name, manual = true, extra = [] }) {
  const chainFlags = network ? ['--network', network] : ['--chain-type', chainType];
  const args = ['dev', '--http.port', '0', '--preconf.port', '0', '--feed.port', '0', ...chainFlags, ...extra];
  if (manual) args.push('--block-time', '0', '--preconf-interval', '0');
  const logPath = join(toolsDir, `clients-${name}.log`);
  const logFd = openSync(logPath, 'w');
  const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', logFd], detached: true });
  closeSync(logFd);
  let banner = '';
  const urls = await new Promise((resolveURLs, reject) => {
    const timer = setTimeout(() => reject(new Error(`node ${name}: no banner within 30 s (log ${logPath})`)), 30_000);
    proc.on('exit', (code) => reject(new Error(`node ${name} exited (${code}) before its banner; log ${logPath}`)));
    proc.stdout.on('data', (chunk) => {
      banner += chunk;
      const std = banner.match(/^\s*standard\s+(http:\/\/\S+)\s+\(WebSocket: (ws:\/\/\S+)\)/m);
      const pre = banner.match(/^\s*pre-confirmed\s+(http:\/\/\S+)\s+\(WebSocket: (ws:\/\/\S+)\)/m);
      if (std && pre) {
        clearTimeout(timer);
        resolveURLs({ std: std[1], stdWs: std[2], pre: pre[1], preWs: pre[2] });
      }
    });
  });
  proc.stdout.resume();
  if (network && !banner.includes(`(--network ${network}:`)) {
    await stop(proc);
    throw new Error(`node ${name}: the banner does not say it runs --network ${network}; log ${logPath}`);
  }
  for (const url of [urls.std, urls.pre]) await waitAnswers(url);
  return {
    ...urls,
    name,
    manual,
    logPath,
    // rpc sends one raw JSON-RPC request (for dev_preconfirm / dev_seal) and returns its result.
    rpc: (url, method, params = []) => rawCall(url, method, params),
    preconfirm: () => rawCall(urls.pre, 'dev_preconfirm', []),
    seal: () => rawCall(urls.std, 'dev_seal', []),
    stop: () => stop(proc),
  };
}

async function rawCall(url, method, params) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
  return body.result;
}

async function waitAnswers(url) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await rawCall(url, 'eth_chainId');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${url} does not answer: ${err.message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// stop sends SIGTERM to the node's process group, then SIGKILL after 5 s.
function stop(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const kill = setTimeout(() => {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {}
    }, 5_000);
    proc.on('exit', () => {
      clearTimeout(kill);
      done();
    });
    try {
      process.kill(-proc.pid, 'SIGTERM');
    } catch {
      clearTimeout(kill);
      done();
    }
  });
}

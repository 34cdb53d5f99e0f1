// run.mjs runs this Hardhat 2 project's tests (`npx hardhat test --network flashrpc`) against
// each endpoint of a flashrpc dev node, as clients/README.md ("Hardhat project") describes. It
// builds ./cmd/flashrpc as ../run.mjs does (or uses FLASHRPC_BIN) and compiles the contracts with
// the npm package solc (offline). It runs the tests first on Hardhat's own in-process network,
// the behaviour they are written against (a failure there is a wrong test, not a node bug), then,
// for each endpoint, starts a fresh node
// `flashrpc dev --client-version anvil/flashrpc --chain-type l1 --chain-id 31337` on the default
// timing, turns automine on (evm_setAutomine(true)) and runs them against it. It prints mocha's
// output, a line `hardhat <target>: N passed, M failed` per run and `hardhat: N passed, M failed`,
// and exits 1 on any failure.
//
//   npm ci && node run.mjs
import { spawn, spawnSync } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// The nodes run plain Ethereum dev chains whatever the environment asks of ../run.mjs.
process.env.FLASHRPC_CHAIN_TYPE = 'l1';
delete process.env.FLASHRPC_NETWORK;
const { binary, build, start } = await import('../lib/node.mjs');

const t0 = Date.now();
console.log('hardhat: building ./cmd/flashrpc');
build();
const compiled = spawnSync('npx', ['hardhat', 'compile', '--quiet'], { cwd: here, stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error(`hardhat: npx hardhat compile failed (exit ${compiled.status})`);
  process.exit(1);
}

// --disable-code-size-limit lets test/Big.js deploy a contract over EIP-170's limit; a flashrpc
// without the flag counts as one failure and the tests then check that the limit holds.
const help = spawnSync(binary, ['dev', '--help'], { encoding: 'utf8' });
const unlimited = `${help.stdout}${help.stderr}`.includes('-disable-code-size-limit');
let passed = 0;
let failed = 0;
if (!unlimited) {
  console.log('FAIL  flashrpc dev --help has no --disable-code-size-limit: Big is checked to be refused instead');
  failed++;
}

{
  console.log('\nhardhat: reference run on the in-process Hardhat network');
  const r = await mocha('hardhat', {
    FLASHRPC_CODE_SIZE_UNLIMITED: '1',
  });
  console.log(`hardhat reference: ${r.passed} passed, ${r.failed} failed`);
  passed += r.passed;
  failed += r.failed;
}

for (const [endpoint, key] of [
  ['standard', 'std'],
  ['pre-confirmed', 'pre'],
]) {
  const extra = ['--client-version', 'anvil/flashrpc', '--chain-id', '31337'];
  if (unlimited) extra.push('--disable-code-size-limit');
  let node;
  try {
    node = await start({ name: `hardhat-${key}`, manual: false, extra });
    const url = node[key];
    if ((await node.rpc(url, 'evm_setAutomine', [true])) !== true) throw new Error('evm_setAutomine(true) did not answer true');
    console.log(`\nhardhat: ${endpoint} endpoint ${url} (node log ${node.logPath})`);
    const r = await mocha('flashrpc', {
      FLASHRPC_URL: url,
      FLASHRPC_CODE_SIZE_UNLIMITED: unlimited ? '1' : '0',
    });
    console.log(`hardhat ${endpoint}: ${r.passed} passed, ${r.failed} failed`);
    passed += r.passed;
    failed += r.failed;
  } catch (err) {
    console.log(`FAIL  hardhat ${endpoint}: ${err.message}`);
    failed++;
  } finally {
    await node?.stop();
  }
}
console.log(`\nhardhat suite: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
console.log(`hardhat: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);

// mocha runs `npx hardhat test --network <network>` with env added, echoes its output and
// counts mocha's "N passing" / "M failing". A run that ends otherwise than mocha's summary says
// (a crash before the summary, a nonzero exit without failures) counts as one more failure.
function mocha(network, env) {
  return new Promise((done) => {
    const p = spawn('npx', ['hardhat', 'test', '--network', network, '--no-compile'], {
      cwd: here,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const echo = (chunk) => {
      out += chunk;
      process.stdout.write(chunk);
    };
    p.stdout.on('data', echo);
    p.stderr.on('data', echo);
    p.on('close', (code) => {
      const passing = Number(out.match(/^\s*(\d+) passing/m)?.[1] ?? 0);
      let failing = Number(out.match(/^\s*(\d+) failing/m)?.[1] ?? 0);
      if (code !== failing) failing++;
      done({ passed: passing, failed: failing });
    });
  });
}

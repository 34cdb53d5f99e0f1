// run.mjs runs the client suite: it builds ./cmd/flashrpc, then drives fresh dev nodes with
// viem, ethers and cast, and runs the go-ethereum ethclient scenarios (Go tests), each scenario
// against both endpoints. It prints PASS / FAIL per scenario, a summary line per client and
// `clients: N passed, M failed`, and exits 1 on any failure.
//
//   node run.mjs                   every client
//   node run.mjs viem cast         some of them (viem, ethers, cast, ethclient)
//
// FLASHRPC_NETWORK=op-mainnet runs the nodes with `dev --network op-mainnet` (lib/node.mjs);
// FLASHRPC_OP_ONLY=1 runs only the OP Stack scenarios (op-fees, op-deposits, op-gas-cap) of
// viem and ethers, as CI does on each network. FLASHRPC_DENIM_ONLY=1 (with
// FLASHRPC_NETWORK=base-mainnet or base-sepolia) runs only the denim scenario of viem, ethers
// and cast (denim.mjs, cast.sh): Base since Denim, 200 ms blocks without pre-confirmations.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { compile, artifactJSON } from './compile.mjs';
import { build, chainType, network, repoRoot, start, binary } from './lib/node.mjs';
import { Report } from './lib/report.mjs';
import { clientScenarios, opScenarioNames, scenarioNames } from './lib/scenarios.mjs';
import { runViem } from './viem.mjs';
import { runViemOPStack } from './viem-opstack.mjs';
import { runViemTestClient } from './viem-testclient.mjs';
import { runEthers } from './ethers.mjs';
import { runEthersOPStack } from './ethers-opstack.mjs';
import { runEthersDenim, runViemDenim } from './denim.mjs';

const here = join(repoRoot, 'clients');
const all = ['viem', 'ethers', 'cast', 'ethclient'];
const selected = process.argv.slice(2).length ? process.argv.slice(2) : all;
for (const c of selected) {
  if (!all.includes(c)) {
    console.error(`unknown client ${c}; want some of ${all.join(', ')}`);
    process.exit(2);
  }
}

const report = new Report();
const op = network !== '' || chainType === 'op';
const opOnlyRun = process.env.FLASHRPC_OP_ONLY === '1';
if (opOnlyRun && (!op || selected.some((c) => c !== 'viem' && c !== 'ethers'))) {
  console.error('FLASHRPC_OP_ONLY=1 runs the OP Stack scenarios of viem and ethers on an OP Stack chain only');
  process.exit(2);
}
const denimRun = process.env.FLASHRPC_DENIM_ONLY === '1';
if (denimRun && (!network.startsWith('base-') || selected.includes('ethclient'))) {
  console.error('FLASHRPC_DENIM_ONLY=1 runs the denim scenario of viem, ethers and cast with FLASHRPC_NETWORK=base-mainnet or base-sepolia only');
  process.exit(2);
}
const t0 = Date.now();

// The committed artifact is what the Go scenarios deploy; it must match the source.
const fresh = compile();
if (readFileSync(join(here, 'contracts', 'ClientSuite.json'), 'utf8') !== artifactJSON(fresh)) {
  console.error('clients/contracts/ClientSuite.json is stale: run `node compile.mjs` in clients/');
  process.exit(1);
}
const kind = network ? `--network ${network}` : op ? 'OP Stack' : 'plain Ethereum (--chain-type l1)';
console.log(`client suite: ${fresh.compiler}; ${kind} dev chains${opOnlyRun ? ', OP Stack scenarios only' : ''}${denimRun ? ', the denim scenario only' : ''}; building ./cmd/flashrpc`);
build();
const ctx = { start, artifact: fresh };

// A client whose setup fails (a node that does not start, say) counts as a failed scenario.
for (const [client, runClient, opOnly, denim] of [
  ['viem', runViem],
  ['viem', runViemOPStack, true],
  ['viem', runViemTestClient],
  ['viem', runViemDenim, false, true],
  ['ethers', runEthers],
  ['ethers', runEthersOPStack, true],
  ['ethers', runEthersDenim, false, true],
]) {
  if (!selected.includes(client) || (opOnly && !op) || (opOnlyRun && !opOnly) || Boolean(denim) !== denimRun) continue;
  try {
    await runClient(report, ctx);
  } catch (err) {
    report.add(client, 'setup', false, 0, err);
  }
}
if (selected.includes('cast')) await runScript('cast', 'bash', [join(here, 'cast.sh'), ...(denimRun ? ['denim'] : [])], { FLASHRPC_BIN: binary });
if (selected.includes('ethclient')) {
  await runScript('ethclient', 'go', ['test', '-count=1', '-run', '^TestClientSuite', '-v', './cmd/flashrpc/'], {});
}

const opScenarios = op ? opScenarioNames : [];
const perClient = { ...clientScenarios };
for (const client of ['viem', 'ethers']) {
  perClient[client] = [...(perClient[client] ?? []), ...opScenarios];
}
if (opOnlyRun) {
  for (const client of ['viem', 'ethers']) perClient[client] = opScenarios;
}
if (denimRun) {
  for (const client of ['viem', 'ethers', 'cast']) perClient[client] = ['denim'];
}
const failed = report.summary(selected, Date.now() - t0, opOnlyRun || denimRun ? [] : scenarioNames, perClient);
process.exit(failed > 0 ? 1 : 0);

// runScript runs a command whose output reports scenarios as lines `PASS name (N ms)` /
// `FAIL name …` (cast.sh) or as go test's `--- PASS: TestClientSuite/name (0.12s)`; it
// records each one under client and echoes the rest of the output, indented.
function runScript(client, cmd, args, env) {
  return new Promise((done) => {
    const p = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let seen = 0;
    const onLine = (line) => {
      let m = line.match(/^(PASS|FAIL)\s+(\S+)\s+\((\d+) ms\)/);
      if (!m) {
        const g = line.match(/^\s+--- (PASS|FAIL): TestClientSuite\/(\S+) \(([\d.]+)s\)/);
        if (g) m = [g[0], g[1], g[2], Math.round(Number(g[3]) * 1000)];
      }
      if (m) {
        seen++;
        report.add(client, m[2], m[1] === 'PASS', Number(m[3]), m[1] === 'FAIL' ? new Error('see the output above') : undefined);
      } else if (line.trim() !== '') {
        console.log('        ' + line);
      }
    };
    const onData = (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('close', (code) => {
      if (buf) onLine(buf);
      if (code !== 0 && report.results.every((r) => r.client !== client || r.ok)) {
        report.add(client, 'exit-status', false, 0, new Error(`${cmd} exited ${code}`));
      }
      done();
    });
  });
}

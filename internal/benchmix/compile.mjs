// compile.mjs compiles contracts/BenchMix.sol with solcjs (clients/'s pinned `solc`, which runs
// offline) and writes contracts/BenchMix.json (creation bytecode and ABI of Token and Pool),
// which benchmix embeds. Run from the repository root after `cd clients && npm ci`:
//
//   node internal/benchmix/compile.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const solc = createRequire(join(here, '..', '..', 'clients', 'package.json'))('solc');
const input = {
  language: 'Solidity',
  sources: { 'BenchMix.sol': { content: readFileSync(join(here, 'contracts', 'BenchMix.sol'), 'utf8') } },
  settings: {
    optimizer: { enabled: true, runs: 200 },
    evmVersion: 'cancun',
    metadata: { appendCBOR: false, bytecodeHash: 'none' },
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
if (errors.length > 0) throw new Error('solc: ' + errors.map((e) => e.formattedMessage).join('\n'));
const artifact = { compiler: 'solc ' + solc.version() };
for (const name of ['Token', 'Pool']) {
  const c = out.contracts['BenchMix.sol'][name];
  artifact[name] = { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object };
}
writeFileSync(join(here, 'contracts', 'BenchMix.json'), JSON.stringify(artifact, null, 1) + '\n');

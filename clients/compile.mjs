// compile.mjs compiles contracts/ClientSuite.sol with solcjs (the npm package `solc`, pinned in
// package.json; it runs offline) and writes contracts/ClientSuite.json: the ABI, the creation
// bytecode and the runtime bytecode. The JSON is committed because the Go ethclient scenarios
// (cmd/flashrpc/clients_test.go) read it without Node; run.mjs recompiles and fails when the
// committed file is stale.
//
//   node compile.mjs          write contracts/ClientSuite.json
//   node compile.mjs --check  exit 1 when contracts/ClientSuite.json differs from a fresh compile
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, 'contracts', 'ClientSuite.sol');
const artifact = join(here, 'contracts', 'ClientSuite.json');

export function compile() {
  const solc = createRequire(import.meta.url)('solc');
  const input = {
    language: 'Solidity',
    sources: { 'ClientSuite.sol': { content: readFileSync(source, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      // No metadata hash: the bytecode depends on the source only.
      metadata: { appendCBOR: false, bytecodeHash: 'none' },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error('solc: ' + errors.map((e) => e.formattedMessage).join('\n'));
  }
  const c = out.contracts['ClientSuite.sol'].ClientSuite;
  return {
    compiler: 'solc ' + solc.version(),
    abi: c.abi,
    bytecode: '0x' + c.evm.bytecode.object,
    deployedBytecode: '0x' + c.evm.deployedBytecode.object,
  };
}

export function artifactJSON(a) {
  return JSON.stringify(a, null, 2) + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const fresh = artifactJSON(compile());
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(artifact, 'utf8');
    } catch {}
    if (committed !== fresh) {
      console.error('contracts/ClientSuite.json is stale: run `node compile.mjs` in clients/');
      process.exit(1);
    }
    console.log('contracts/ClientSuite.json matches contracts/ClientSuite.sol');
  } else {
    writeFileSync(artifact, fresh);
    console.log('wrote contracts/ClientSuite.json');
  }
}

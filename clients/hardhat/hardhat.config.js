// A Hardhat 2 project as its users write one, pointed at a flashrpc dev node (network
// "flashrpc", FLASHRPC_URL; run.mjs starts the node and sets it). Contracts compile with solcjs,
// the npm package `solc` pinned in package.json: Hardhat 2 downloads compilers from
// binaries.soliditylang.org, which CI does not reach, so the subtask that finds the compiler
// answers with the package's soljson.js instead.
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

require("@nomicfoundation/hardhat-chai-matchers");
require("@nomicfoundation/hardhat-ethers");

const solcVersion = require("solc/package.json").version;

subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args) => {
  if (args.solcVersion !== solcVersion) {
    throw new Error(`solidity.version ${args.solcVersion} is not the npm package solc's ${solcVersion}`);
  }
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: solcVersion,
    longVersion: require("solc").version(),
  };
});

module.exports = {
  solidity: {
    version: solcVersion,
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" },
  },
  defaultNetwork: "flashrpc",
  networks: {
    // Hardhat's in-process network, the reference the tests are written against
    // (FLASHRPC_CODE_SIZE_UNLIMITED=1 npx hardhat test --network hardhat).
    hardhat: { allowUnlimitedContractSize: true },
    flashrpc: {
      url: process.env.FLASHRPC_URL ?? "http://127.0.0.1:8547",
      accounts: "remote",
      chainId: 31337,
    },
  },
  mocha: { timeout: 60_000 },
};

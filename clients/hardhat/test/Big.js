const { loadFixture } = require("@nomicfoundation/hardhat-network-helpers");
const { expect } = require("chai");
const { ethers } = require("hardhat");

// Big's runtime code is over EIP-170's 24,576 bytes. run.mjs starts the node with
// --disable-code-size-limit when flashrpc has the flag and then sets FLASHRPC_CODE_SIZE_UNLIMITED=1;
// on a node that keeps the limit the deployment must be refused.
const unlimited = process.env.FLASHRPC_CODE_SIZE_UNLIMITED === "1";
const EIP170_LIMIT = 24576;

describe("Big (over the code-size limit)", function () {
  if (!unlimited) {
    it("is refused by a node that keeps the code-size limit", async function () {
      await expect(ethers.deployContract("Big")).to.be.rejectedWith(/code size|code is too large/i);
    });
    return;
  }

  async function deployBigFixture() {
    const big = await ethers.deployContract("Big");
    return { big };
  }

  it("deploys with the limit lifted", async function () {
    const { big } = await loadFixture(deployBigFixture);
    const code = await ethers.provider.getCode(big.target);
    expect(ethers.dataLength(code)).to.be.greaterThan(EIP170_LIMIT);
    expect(await big.answer()).to.equal(42n);
  });

  it("returns its payload from its own code", async function () {
    const { big } = await loadFixture(deployBigFixture);
    const payload = ethers.getBytes(await big.payload());
    expect(payload.length).to.equal(Number(await big.PAYLOAD_SIZE()));
    expect(payload[250]).to.equal(250);
    expect(payload[251]).to.equal(0);
  });
});

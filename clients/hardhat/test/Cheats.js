const {
  impersonateAccount,
  loadFixture,
  mine,
  setBalance,
  setCode,
  setStorageAt,
  stopImpersonatingAccount,
  takeSnapshot,
} = require("@nomicfoundation/hardhat-network-helpers");
const { expect } = require("chai");
const { artifacts, ethers } = require("hardhat");

// WHALE has no key on the node: tests send from it by impersonation.
const WHALE = ethers.getAddress("0x00000000000000000000000000000000000fa11e");

describe("Network helpers' state cheats", function () {
  // The fixture ends with cheats that no transaction has sealed yet: loadFixture's snapshot must
  // keep them, and every later loadFixture must bring them back.
  async function impersonatedWhaleFixture() {
    const [owner, alice] = await ethers.getSigners();
    const token = await ethers.deployContract("Token", [ethers.parseEther("1000")]);
    await token.transfer(WHALE, ethers.parseEther("500"));
    await impersonateAccount(WHALE);
    await setBalance(WHALE, ethers.parseEther("10000"));
    const whale = await ethers.getSigner(WHALE);
    return { token, whale, owner, alice };
  }

  it("sends from an impersonated, funded account", async function () {
    const { token, whale, alice } = await loadFixture(impersonatedWhaleFixture);
    expect(await ethers.provider.getBalance(WHALE), "setBalance at latest").to.equal(ethers.parseEther("10000"));
    await expect(token.connect(whale).transfer(alice.address, 1n))
      .to.emit(token, "Transfer")
      .withArgs(WHALE, alice.address, 1n);
    await expect(whale.sendTransaction({ to: alice.address, value: ethers.parseEther("1") })).to.changeEtherBalance(
      alice,
      ethers.parseEther("1"),
    );
  });

  it("sends from the impersonated account again after loadFixture", async function () {
    const { token, whale, alice } = await loadFixture(impersonatedWhaleFixture);
    // The fixture's setBalance came after its last transaction: only the snapshot kept it.
    await expect(token.connect(whale).transfer(alice.address, 2n)).to.changeTokenBalances(
      token,
      [whale, alice],
      [-2n, 2n],
    );
    expect(await ethers.provider.getBalance(WHALE), "balance after a send").to.be.greaterThan(ethers.parseEther("9999"));
  });

  it("shows setBalance at latest at once", async function () {
    await loadFixture(impersonatedWhaleFixture);
    const account = ethers.Wallet.createRandom().address;
    await setBalance(account, 12345n);
    expect(await ethers.provider.getBalance(account, "pending"), "balance at pending").to.equal(12345n);
    expect(await ethers.provider.getBalance(account), "balance at latest").to.equal(12345n);
  });

  it("shows setCode at latest at once and runs it", async function () {
    await loadFixture(impersonatedWhaleFixture);
    const artifact = await artifacts.readArtifact("BoxV2");
    const target = ethers.Wallet.createRandom().address;
    await setCode(target, artifact.deployedBytecode);
    expect(await ethers.provider.getCode(target, "pending"), "code at pending").to.equal(artifact.deployedBytecode);
    expect(await ethers.provider.getCode(target), "code at latest").to.equal(artifact.deployedBytecode);
    const box = await ethers.getContractAt("BoxV2", target);
    expect(await box.version(), "call at latest").to.equal(2n);
    await expect(box.increment()).to.emit(box, "ValueChanged").withArgs(1n);
  });

  it("shows setStorageAt at latest at once", async function () {
    const { token } = await loadFixture(impersonatedWhaleFixture);
    // Slot 0 is totalSupply.
    await setStorageAt(token.target, 0n, 12345n);
    expect(await token.totalSupply({ blockTag: "pending" }), "call at pending").to.equal(12345n);
    expect(await token.totalSupply(), "call at latest").to.equal(12345n);
    await mine();
    expect(await token.totalSupply(), "call at latest after mine").to.equal(12345n);
  });

  it("takeSnapshot restores the state, as often as asked", async function () {
    const { token, owner, alice } = await loadFixture(impersonatedWhaleFixture);
    const head = await ethers.provider.getBlockNumber();
    const snapshot = await takeSnapshot();
    await token.transfer(alice.address, 10n);
    await mine(3);
    await snapshot.restore();
    expect(await ethers.provider.getBlockNumber()).to.equal(head);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
    await token.transfer(alice.address, 20n);
    await snapshot.restore();
    expect(await token.balanceOf(alice.address)).to.equal(0n);
    expect(await token.balanceOf(owner.address)).to.equal(ethers.parseEther("500"));
  });

  it("takeSnapshot keeps cheats made since the last block", async function () {
    await loadFixture(impersonatedWhaleFixture);
    const account = ethers.Wallet.createRandom().address;
    await setBalance(account, ethers.parseEther("10000"));
    const snapshot = await takeSnapshot();
    await setBalance(account, 1n);
    await snapshot.restore();
    const want = ethers.parseEther("10000");
    expect(await ethers.provider.getBalance(account, "pending"), "balance at pending after restore").to.equal(want);
    expect(await ethers.provider.getBalance(account), "balance at latest after restore").to.equal(want);
    await mine();
    expect(await ethers.provider.getBalance(account), "balance after restore and mine").to.equal(want);
  });

  it("refuses the account's sends once impersonation stops", async function () {
    const { whale, alice } = await loadFixture(impersonatedWhaleFixture);
    await stopImpersonatingAccount(WHALE);
    // The refusal as Hardhat, anvil and flashrpc word it (not, say, for a lack of funds).
    await expect(whale.sendTransaction({ to: alice.address, value: 1n })).to.be.rejectedWith(
      /unknown account|no signer|not impersonated/i,
    );
  });
});

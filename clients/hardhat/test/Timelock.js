const { loadFixture, mine, time } = require("@nomicfoundation/hardhat-network-helpers");
const { anyValue } = require("@nomicfoundation/hardhat-chai-matchers/withArgs");
const { expect } = require("chai");
const { ethers, network } = require("hardhat");

describe("Timelock", function () {
  const ONE_YEAR = 365 * 24 * 60 * 60;
  const LOCKED = ethers.parseEther("1");

  async function deployTimelockFixture() {
    const unlockTime = (await time.latest()) + ONE_YEAR;
    const [owner, other] = await ethers.getSigners();
    const lock = await ethers.deployContract("Timelock", [unlockTime], { value: LOCKED });
    return { lock, unlockTime, owner, other };
  }

  it("sets the unlock time, the owner and the funds", async function () {
    const { lock, unlockTime, owner } = await loadFixture(deployTimelockFixture);
    expect(await lock.unlockTime()).to.equal(unlockTime);
    expect(await lock.owner()).to.equal(owner.address);
    expect(await ethers.provider.getBalance(lock.target)).to.equal(LOCKED);
  });

  it("refuses an unlock time in the past", async function () {
    const latest = await time.latest();
    await expect(ethers.deployContract("Timelock", [latest], { value: 1n })).to.be.revertedWith(
      "Timelock: unlock time should be in the future",
    );
  });

  it("reverts a withdrawal before the unlock time", async function () {
    const { lock } = await loadFixture(deployTimelockFixture);
    await expect(lock.withdraw()).to.be.revertedWith("Timelock: too early");
  });

  it("reverts a withdrawal from another account after time.increaseTo", async function () {
    const { lock, unlockTime, other } = await loadFixture(deployTimelockFixture);
    await time.increaseTo(unlockTime);
    expect(await time.latest()).to.equal(unlockTime);
    expect(await lock.unlocked()).to.equal(true);
    await expect(lock.connect(other).withdraw()).to.be.revertedWith("Timelock: not the owner");
  });

  it("withdraws after time.increase, emits Withdrawal and moves the ether", async function () {
    const { lock, owner } = await loadFixture(deployTimelockFixture);
    const before = await time.latest();
    expect(await time.increase(ONE_YEAR)).to.equal(before + ONE_YEAR);
    await expect(lock.withdraw()).to.emit(lock, "Withdrawal").withArgs(LOCKED, anyValue);
    expect(await ethers.provider.getBalance(lock.target)).to.equal(0n);
    expect(owner.address).to.not.equal(ethers.ZeroAddress);
  });

  it("changes the owner's and the lock's ether balances", async function () {
    const { lock, owner } = await loadFixture(deployTimelockFixture);
    await time.increase(ONE_YEAR);
    await expect(lock.withdraw()).to.changeEtherBalances([owner, lock], [LOCKED, -LOCKED]);
  });

  it("is back to locked after loadFixture", async function () {
    const { lock, unlockTime } = await loadFixture(deployTimelockFixture);
    expect(await time.latest()).to.be.lessThan(unlockTime);
    expect(await lock.unlocked()).to.equal(false);
    expect(await ethers.provider.getBalance(lock.target)).to.equal(LOCKED);
  });

  it("withdraws in the block whose timestamp time.setNextBlockTimestamp set", async function () {
    const { lock, unlockTime } = await loadFixture(deployTimelockFixture);
    await time.setNextBlockTimestamp(unlockTime);
    // The next block runs at unlockTime: a call at pending sees it, and the estimate that
    // hardhat-ethers makes for the send runs there too.
    expect(await lock.unlocked({ blockTag: "pending" }), "unlocked() at pending").to.equal(true);
    await expect(lock.withdraw()).to.emit(lock, "Withdrawal").withArgs(LOCKED, unlockTime);
  });

  it("adds up evm_increaseTime calls made back to back", async function () {
    await loadFixture(deployTimelockFixture);
    const before = await time.latest();
    await network.provider.send("evm_increaseTime", [1000]);
    await network.provider.send("evm_increaseTime", [1000]);
    await mine();
    expect(await time.latest(), "the mined block's timestamp").to.be.at.least(before + 2000);
  });
});

describe("BlockInfo", function () {
  async function deployBlockInfoFixture() {
    const info = await ethers.deployContract("BlockInfo");
    return { info };
  }

  it("mine(n) seals n blocks, spaced by the interval", async function () {
    await loadFixture(deployBlockInfoFixture);
    const head = await time.latestBlock();
    await mine(100);
    expect(await time.latestBlock()).to.equal(head + 100);
    await mine(5, { interval: 3600 });
    expect(await time.latestBlock()).to.equal(head + 105);
    for (let n = head + 102; n <= head + 105; n++) {
      const [prev, block] = await Promise.all([ethers.provider.getBlock(n - 1), ethers.provider.getBlock(n)]);
      expect(block.timestamp - prev.timestamp, `block ${n}'s timestamp after its parent's`).to.equal(3600);
    }
  });

  it("answers the next block's number and time at pending after mine", async function () {
    const { info } = await loadFixture(deployBlockInfoFixture);
    await mine(4);
    const head = await time.latestBlock();
    expect(await info.number(), "block.number at latest").to.equal(head);
    expect(await info.number({ blockTag: "pending" }), "block.number at pending").to.equal(head + 1);
    await time.setNextBlockTimestamp((await time.latest()) + 500);
    expect(await info.timestamp({ blockTag: "pending" }), "block.timestamp at pending").to.equal(
      (await time.latest()) + 500,
    );
  });
});

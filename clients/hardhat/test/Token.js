const { loadFixture } = require("@nomicfoundation/hardhat-network-helpers");
const { expect } = require("chai");
const { ethers } = require("hardhat");

describe("Token", function () {
  const SUPPLY = ethers.parseEther("1000");

  async function deployTokenFixture() {
    const [owner, alice, bob] = await ethers.getSigners();
    const token = await ethers.deployContract("Token", [SUPPLY]);
    return { token, owner, alice, bob };
  }

  it("gives the whole supply to the deployer", async function () {
    const { token, owner } = await loadFixture(deployTokenFixture);
    expect(await token.totalSupply()).to.equal(SUPPLY);
    expect(await token.balanceOf(owner.address)).to.equal(SUPPLY);
  });

  it("transfers and emits Transfer", async function () {
    const { token, owner, alice } = await loadFixture(deployTokenFixture);
    await expect(token.transfer(alice.address, 50n))
      .to.emit(token, "Transfer")
      .withArgs(owner.address, alice.address, 50n);
    await expect(token.transfer(alice.address, 25n)).to.changeTokenBalances(token, [owner, alice], [-25n, 25n]);
    expect(await token.balanceOf(alice.address)).to.equal(75n);
  });

  it("starts every test from the fixture's state", async function () {
    const { token, alice } = await loadFixture(deployTokenFixture);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
  });

  it("reverts a transfer over the balance", async function () {
    const { token, alice, bob } = await loadFixture(deployTokenFixture);
    await expect(token.connect(alice).transfer(bob.address, 1n)).to.be.revertedWith("Token: insufficient balance");
  });

  it("reverts a transfer to the zero address with a custom error", async function () {
    const { token } = await loadFixture(deployTokenFixture);
    await expect(token.transfer(ethers.ZeroAddress, 1n)).to.be.revertedWithCustomError(token, "ZeroAddress");
  });

  it("spends an allowance with transferFrom", async function () {
    const { token, owner, alice, bob } = await loadFixture(deployTokenFixture);
    await expect(token.approve(alice.address, 100n)).to.emit(token, "Approval").withArgs(owner.address, alice.address, 100n);
    await expect(token.connect(alice).transferFrom(owner.address, bob.address, 101n)).to.be.revertedWith(
      "Token: insufficient allowance",
    );
    await token.connect(alice).transferFrom(owner.address, bob.address, 60n);
    expect(await token.allowance(owner.address, alice.address)).to.equal(40n);
    expect(await token.balanceOf(bob.address)).to.equal(60n);
  });
});

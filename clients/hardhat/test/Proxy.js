const { loadFixture, setStorageAt, getStorageAt } = require("@nomicfoundation/hardhat-network-helpers");
const { expect } = require("chai");
const { ethers } = require("hardhat");

// The EIP-1967 slots.
const IMPLEMENTATION_SLOT = "0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
const ADMIN_SLOT = "0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103";

const slotAddress = (word) => ethers.getAddress(ethers.dataSlice(word, 12));

describe("UpgradeableProxy (EIP-1967)", function () {
  async function deployProxyFixture() {
    const [admin, alice] = await ethers.getSigners();
    const v1 = await ethers.deployContract("BoxV1");
    const v2 = await ethers.deployContract("BoxV2");
    const init = v1.interface.encodeFunctionData("initialize", [7n]);
    const proxy = await ethers.deployContract("UpgradeableProxy", [v1.target, init]);
    const box = await ethers.getContractAt("BoxV2", proxy.target);
    return { proxy, box, v1, v2, admin, alice };
  }

  it("keeps the implementation and the admin in the EIP-1967 slots", async function () {
    const { proxy, v1, admin } = await loadFixture(deployProxyFixture);
    expect(slotAddress(await getStorageAt(proxy.target, IMPLEMENTATION_SLOT))).to.equal(v1.target);
    expect(slotAddress(await getStorageAt(proxy.target, ADMIN_SLOT))).to.equal(admin.address);
  });

  it("delegates to the implementation, initialized once", async function () {
    const { box } = await loadFixture(deployProxyFixture);
    expect(await box.value()).to.equal(7n);
    expect(await box.version()).to.equal(1n);
    await expect(box.initialize(8n)).to.be.revertedWith("Box: already initialized");
  });

  it("upgrades from the admin, emits Upgraded and keeps the storage", async function () {
    const { proxy, box, v2 } = await loadFixture(deployProxyFixture);
    await expect(proxy.upgradeTo(v2.target)).to.emit(proxy, "Upgraded").withArgs(v2.target);
    expect(await box.version()).to.equal(2n);
    await expect(box.increment()).to.emit(box, "ValueChanged").withArgs(8n);
  });

  it("refuses an upgrade from another account", async function () {
    const { proxy, v2, alice } = await loadFixture(deployProxyFixture);
    await expect(proxy.connect(alice).upgradeTo(v2.target)).to.be.revertedWith("Proxy: caller is not the admin");
  });

  it("runs the implementation written into its slot with setStorageAt", async function () {
    const { proxy, box, v2 } = await loadFixture(deployProxyFixture);
    await setStorageAt(proxy.target, IMPLEMENTATION_SLOT, ethers.zeroPadValue(v2.target, 32));
    expect(slotAddress(await getStorageAt(proxy.target, IMPLEMENTATION_SLOT)), "slot at latest").to.equal(v2.target);
    expect(await box.version(), "call at latest").to.equal(2n);
    expect(await box.value()).to.equal(7n);
  });

  it("takes upgrades from the admin written into its slot with setStorageAt", async function () {
    const { proxy, box, v2, alice } = await loadFixture(deployProxyFixture);
    await setStorageAt(proxy.target, ADMIN_SLOT, ethers.zeroPadValue(alice.address, 32));
    // hardhat-ethers estimates the send at pending.
    await expect(proxy.connect(alice).upgradeTo(v2.target)).to.emit(proxy, "Upgraded").withArgs(v2.target);
    expect(await box.version()).to.equal(2n);
  });

  it("is back to the first implementation after loadFixture", async function () {
    const { proxy, box, v1 } = await loadFixture(deployProxyFixture);
    expect(slotAddress(await getStorageAt(proxy.target, IMPLEMENTATION_SLOT))).to.equal(v1.target);
    expect(await box.version()).to.equal(1n);
  });
});

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// Timelock holds the ether it is deployed with until unlockTime (block.timestamp), then lets
// its owner withdraw it all.
contract Timelock {
    uint256 public immutable unlockTime;
    address payable public owner;

    event Withdrawal(uint256 amount, uint256 when);

    constructor(uint256 _unlockTime) payable {
        require(block.timestamp < _unlockTime, "Timelock: unlock time should be in the future");
        unlockTime = _unlockTime;
        owner = payable(msg.sender);
    }

    // unlocked answers whether the current block's time has reached unlockTime.
    function unlocked() external view returns (bool) {
        return block.timestamp >= unlockTime;
    }

    function withdraw() external {
        require(block.timestamp >= unlockTime, "Timelock: too early");
        require(msg.sender == owner, "Timelock: not the owner");
        uint256 amount = address(this).balance;
        emit Withdrawal(amount, block.timestamp);
        (bool ok, ) = owner.call{value: amount}("");
        require(ok, "Timelock: transfer failed");
    }
}

// BlockInfo answers the number and time of the block a call runs in.
contract BlockInfo {
    function number() external view returns (uint256) {
        return block.number;
    }

    function timestamp() external view returns (uint256) {
        return block.timestamp;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// ClientSuite is the contract every client of the client suite deploys and drives: a counter
/// with a constructor argument, a Transfer-like event with two indexed arguments, and a
/// function that reverts with Error(string) and one that reverts with a custom error, so clients
/// can decode both.
contract ClientSuite {
    event Transfer(address indexed from, address indexed to, uint256 value);

    error TooLarge(uint256 value, uint256 max);

    uint256 public count;

    constructor(uint256 start) {
        count = start;
    }

    /// transfer counts the call and emits Transfer(msg.sender, to, value).
    function transfer(address to, uint256 value) external returns (bool) {
        count += 1;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    /// check reverts with "ClientSuite: value too large" when value exceeds 100.
    function check(uint256 value) external pure returns (uint256) {
        require(value <= 100, "ClientSuite: value too large");
        return value * 2;
    }

    /// setCount stores value, reverting with the same reason when it exceeds 100.
    function setCount(uint256 value) external {
        require(value <= 100, "ClientSuite: value too large");
        count = value;
    }

    /// setCountStrict stores value, reverting with TooLarge(value, 100) when it exceeds 100.
    function setCountStrict(uint256 value) external {
        if (value > 100) revert TooLarge(value, 100);
        count = value;
    }
}

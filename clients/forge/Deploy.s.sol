// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ClientSuite} from "../contracts/ClientSuite.sol";

/// Vm is the part of forge's cheat code interface the script uses (forge-std is not
/// installed: no download is reachable).
interface Vm {
    function startBroadcast() external;
    function stopBroadcast() external;
}

/// Deploy deploys ClientSuite(7) and calls it three times: four transactions that forge sends
/// with consecutive nonces and whose receipts it waits for.
contract Deploy {
    Vm constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    function run() external returns (ClientSuite suite) {
        vm.startBroadcast();
        suite = new ClientSuite(7);
        suite.setCount(11);
        require(suite.transfer(address(0xdEaD), 5), "transfer");
        suite.setCount(42);
        vm.stopBroadcast();
    }
}

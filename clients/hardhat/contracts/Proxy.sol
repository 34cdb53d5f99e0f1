// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// UpgradeableProxy is an EIP-1967 proxy: the implementation and the admin live in the standard
// slots, every call but upgradeTo / implementation / admin is delegated.
contract UpgradeableProxy {
    // bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1)
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    // bytes32(uint256(keccak256("eip1967.proxy.admin")) - 1)
    bytes32 internal constant ADMIN_SLOT = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);
    event AdminChanged(address previousAdmin, address newAdmin);

    constructor(address implementation, bytes memory data) {
        _setImplementation(implementation);
        assembly {
            sstore(ADMIN_SLOT, caller())
        }
        emit AdminChanged(address(0), msg.sender);
        if (data.length > 0) {
            (bool ok, bytes memory ret) = implementation.delegatecall(data);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }

    function upgradeTo(address implementation) external {
        require(msg.sender == _admin(), "Proxy: caller is not the admin");
        _setImplementation(implementation);
    }

    function _setImplementation(address implementation) internal {
        require(implementation.code.length > 0, "Proxy: implementation is not a contract");
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
        }
        emit Upgraded(implementation);
    }

    function _admin() internal view returns (address a) {
        assembly {
            a := sload(ADMIN_SLOT)
        }
    }

    fallback() external payable {
        assembly {
            let impl := sload(IMPLEMENTATION_SLOT)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }

    receive() external payable {}
}

// BoxV1 is the first implementation behind the proxy: a stored value set once by initialize.
contract BoxV1 {
    uint256 public value;
    bool private initialized;

    event ValueChanged(uint256 value);

    function initialize(uint256 v) external {
        require(!initialized, "Box: already initialized");
        initialized = true;
        value = v;
        emit ValueChanged(v);
    }

    function version() external pure virtual returns (uint256) {
        return 1;
    }
}

// BoxV2 keeps BoxV1's storage layout and adds increment.
contract BoxV2 is BoxV1 {
    function version() external pure override returns (uint256) {
        return 2;
    }

    function increment() external {
        value += 1;
        emit ValueChanged(value);
    }
}

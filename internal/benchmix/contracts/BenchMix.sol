// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

// The contracts of the sequencer capacity benchmark's realistic mix (internal/benchmix): an
// ERC-20 token as OpenZeppelin's behaves (balances, allowances, Transfer and Approval events)
// with an open mint for the benchmark's set-up, and a Uniswap V2-style constant-product pool
// that swaps one token for the other through transferFrom / transfer, as a router's swap does.

contract Token {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_) {
        name = name_;
        symbol = symbol_;
    }

    // mint is open: the benchmark funds its senders with it.
    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "ERC20: insufficient allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) internal {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

contract Pool {
    Token public immutable token0;
    Token public immutable token1;
    uint112 public reserve0;
    uint112 public reserve1;
    uint32 public blockTimestampLast;
    uint256 public price0CumulativeLast;
    uint256 public price1CumulativeLast;

    event Sync(uint112 reserve0, uint112 reserve1);
    event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to);

    constructor(Token token0_, Token token1_) {
        token0 = token0_;
        token1 = token1_;
    }

    // sync takes the pool's token balances as its reserves (after tokens were minted to it).
    function sync() external {
        _update(token0.balanceOf(address(this)), token1.balanceOf(address(this)));
    }

    // swap takes amountIn of one token from the sender (approved beforehand) and sends back the
    // other at the constant-product price with Uniswap V2's 0.3% fee.
    function swap(uint256 amountIn, bool zeroForOne, uint256 minOut) external returns (uint256 amountOut) {
        (Token tin, Token tout) = zeroForOne ? (token0, token1) : (token1, token0);
        (uint256 rin, uint256 rout) = zeroForOne ? (uint256(reserve0), uint256(reserve1)) : (uint256(reserve1), uint256(reserve0));
        uint256 inWithFee = amountIn * 997;
        amountOut = (inWithFee * rout) / (rin * 1000 + inWithFee);
        require(amountOut >= minOut && amountOut > 0, "Pool: insufficient output amount");
        tin.transferFrom(msg.sender, address(this), amountIn);
        tout.transfer(msg.sender, amountOut);
        _update(token0.balanceOf(address(this)), token1.balanceOf(address(this)));
        if (zeroForOne) {
            emit Swap(msg.sender, amountIn, 0, 0, amountOut, msg.sender);
        } else {
            emit Swap(msg.sender, 0, amountIn, amountOut, 0, msg.sender);
        }
    }

    function _update(uint256 balance0, uint256 balance1) private {
        require(balance0 <= type(uint112).max && balance1 <= type(uint112).max, "Pool: overflow");
        uint32 t = uint32(block.timestamp);
        uint32 elapsed = t - blockTimestampLast;
        if (elapsed > 0 && reserve0 != 0 && reserve1 != 0) {
            unchecked {
                price0CumulativeLast += (uint256(reserve1) << 112) / reserve0 * elapsed;
                price1CumulativeLast += (uint256(reserve0) << 112) / reserve1 * elapsed;
            }
        }
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        blockTimestampLast = t;
        emit Sync(reserve0, reserve1);
    }
}

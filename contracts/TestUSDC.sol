// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestUSDC: a 6-decimal ERC-20 standing in for USDC on local test chains.
/// @notice Test-only: anyone may mint. `batchTransfer` emits many `Transfer` logs in one
///         transaction so benchmarks can put thousands of payments on chain quickly.
///         Compiled by scripts/compile-test-token.ts (npm `solc` 0.8.28) into TestUSDC.json.
contract TestUSDC {
    string public constant name = "Test USD Coin";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /// @notice Creates `amount` micro-units for `to` (test-only, unrestricted).
    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _transfer(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= amount, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _transfer(from, to, amount);
        return true;
    }

    /// @notice One `Transfer` from the caller to `to` per entry of `amounts`.
    function batchTransfer(address to, uint256[] calldata amounts) external {
        for (uint256 i = 0; i < amounts.length; i++) {
            _transfer(msg.sender, to, amounts[i]);
        }
    }

    function _transfer(address from, address to, uint256 amount) private {
        require(to != address(0), "zero address");
        uint256 balance = balanceOf[from];
        require(balance >= amount, "balance");
        unchecked {
            balanceOf[from] = balance - amount;
        }
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

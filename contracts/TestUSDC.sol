// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestUSDC: a 6-decimal ERC-20 standing in for USDC on local test chains.
/// @notice Test-only: anyone may mint. `batchTransfer` emits many `Transfer` logs in one
///         transaction so benchmarks can put thousands of payments on chain quickly.
///         EIP-3009 (`transferWithAuthorization`, `receiveWithAuthorization`,
///         `authorizationState`, `AuthorizationUsed`) as FiatToken v2 implements it, under the
///         EIP-712 domain of USDC on Base mainnet (name "USD Coin", version "2", the chain's id,
///         this contract), so x402's `exact` scheme settles against it as against real USDC.
///         Compiled by scripts/compile-test-token.ts (npm `solc` 0.8.28) into TestUSDC.json.
contract TestUSDC {
    /// @notice EIP-712 domain name, as USDC's `name()` on Base mainnet.
    string public constant name = "USD Coin";
    string public constant symbol = "USDC";
    /// @notice EIP-712 domain version, as USDC's `version()` (FiatToken v2).
    string public constant version = "2";
    uint8 public constant decimals = 6;
    uint256 public totalSupply;

    /// @notice keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)").
    bytes32 private constant EIP712_DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    /// @notice EIP-3009 type hash of `transferWithAuthorization`.
    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    /// @notice EIP-3009 type hash of `receiveWithAuthorization`.
    bytes32 public constant RECEIVE_WITH_AUTHORIZATION_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    /// @dev EIP-3009: authorizer => nonce => used.
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    /// @notice EIP-3009: `nonce` of `authorizer` was used.
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    /// @notice EIP-712 domain separator for the current chain (computed, so a fork keeps it right).
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(EIP712_DOMAIN_TYPEHASH, keccak256(bytes(name)), keccak256(bytes(version)), block.chainid, address(this))
        );
    }

    /// @notice EIP-3009: whether `authorizer` has used `nonce`.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    /// @notice EIP-3009: executes a transfer signed by `from` (anyone may submit it).
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        _useAuthorization(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

    /// @notice EIP-3009: as `transferWithAuthorization`, but only the payee `to` may submit it.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(to == msg.sender, "caller must be the payee");
        _useAuthorization(RECEIVE_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce, v, r, s);
        _transfer(from, to, value);
    }

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

    /// @dev Checks the validity window, the unused nonce and the EIP-712 signature; marks the nonce used.
    function _useAuthorization(
        bytes32 typeHash,
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) private {
        require(block.timestamp > validAfter, "authorization is not yet valid");
        require(block.timestamp < validBefore, "authorization is expired");
        require(!_authorizationStates[from][nonce], "authorization is used or canceled");
        bytes32 structHash = keccak256(abi.encode(typeHash, from, to, value, validAfter, validBefore, nonce));
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), structHash));
        address signer = ecrecover(digest, v, r, s);
        require(signer != address(0) && signer == from, "invalid signature");
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
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

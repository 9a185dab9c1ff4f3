// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// A minimal fiat-backed-stablecoin look-alike for tests: ERC-20 transfers, owner mint, and an
/// issuer freeze list in the style of USDC (blacklist / isBlacklisted) and USDT (destroyBlackFunds).
contract Stable {
    string public constant name = "Test Stable";
    string public constant symbol = "TUSD";
    uint8 public constant decimals = 6;
    address public immutable owner;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => bool) private blacklisted;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Blacklisted(address indexed account);
    event UnBlacklisted(address indexed account);
    event DestroyedBlackFunds(address indexed account, uint256 balance);

    constructor() {
        owner = msg.sender;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Stable: caller is not the owner");
        _;
    }

    function isBlacklisted(address account) external view returns (bool) {
        return blacklisted[account];
    }

    function mint(address to, uint256 value) external onlyOwner {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        require(!blacklisted[msg.sender] && !blacklisted[to], "Blacklistable: account is blacklisted");
        require(balanceOf[msg.sender] >= value, "Stable: balance too low");
        balanceOf[msg.sender] -= value;
        balanceOf[to] += value;
        emit Transfer(msg.sender, to, value);
        return true;
    }

    function blacklist(address account) external onlyOwner {
        blacklisted[account] = true;
        emit Blacklisted(account);
    }

    function unBlacklist(address account) external onlyOwner {
        blacklisted[account] = false;
        emit UnBlacklisted(account);
    }

    function destroyBlackFunds(address account) external onlyOwner {
        require(blacklisted[account], "Stable: account is not blacklisted");
        uint256 funds = balanceOf[account];
        balanceOf[account] = 0;
        totalSupply -= funds;
        emit DestroyedBlackFunds(account, funds);
    }
}

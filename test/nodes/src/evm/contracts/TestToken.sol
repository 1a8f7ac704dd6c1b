// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title TestToken
/// @notice A minimal ERC-20 for local chains (anvil): the sandbox USDC and the test tokens.
/// The deployer receives the initial supply and is the only account that may mint more.
/// `batchTransfer` pays many recipients in one transaction (one Transfer event each), so tests
/// and benchmarks can fill blocks with thousands of token transfers quickly.
contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    address public immutable owner;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error NotOwner(address caller);
    error LengthMismatch(uint256 recipients, uint256 amounts);
    error ZeroAddress();

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 initialSupply) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        owner = msg.sender;
        _mint(msg.sender, initialSupply);
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert NotOwner(msg.sender);
        _mint(to, amount);
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
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
            allowance[from][msg.sender] = allowed - amount;
        }
        _transfer(from, to, amount);
        return true;
    }

    /// @notice Pays amounts[i] to to[i] from the caller's balance, one Transfer event per recipient.
    function batchTransfer(address[] calldata to, uint256[] calldata amounts) external returns (bool) {
        if (to.length != amounts.length) revert LengthMismatch(to.length, amounts.length);
        for (uint256 i = 0; i < to.length; i++) {
            _transfer(msg.sender, to[i], amounts[i]);
        }
        return true;
    }

    function _transfer(address from, address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        uint256 balance = balanceOf[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
        }
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }

    function _mint(address to, uint256 amount) private {
        if (to == address(0)) revert ZeroAddress();
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }
}

/// @notice Refuses every payment: a plain value transfer to it is mined but fails (status 0), the
/// case of a deposit attempt that must never be credited.
contract RevertingReceiver {
    error PaymentRefused();

    receive() external payable {
        revert PaymentRefused();
    }
}

/// @notice Pays native coin on from inside a call, as a smart-contract wallet (Safe, ERC-4337
/// account) or an exchange's payout contract does: the value reaches each recipient through an
/// internal call only, never as a transaction's own value. The other methods make the internal
/// payments that must never count: one undone by a reverting frame above it, one whose whole
/// transaction reverts.
contract Forwarder {
    error ForwardFailed(address to);
    error LengthMismatch(uint256 recipients, uint256 amounts);
    error Undone();

    /// @notice Pays amounts[i] to to[i] out of msg.value; a failed payment reverts them all.
    function forward(address payable[] calldata to, uint256[] calldata amounts) external payable {
        if (to.length != amounts.length) revert LengthMismatch(to.length, amounts.length);
        for (uint256 i = 0; i < to.length; i++) {
            (bool ok, ) = to[i].call{value: amounts[i]}("");
            if (!ok) revert ForwardFailed(to[i]);
        }
    }

    /// @notice Pays `to` through `relay`, whose frame reverts after paying (so the payment is
    /// undone), and catches that failure: the transaction succeeds, the value stays here.
    function forwardViaRevertingRelay(RevertingRelay relay, address payable to) external payable {
        try relay.payThenRevert{value: msg.value}(to) {} catch {}
    }

    /// @notice Pays `to`, then reverts the whole transaction.
    function forwardThenRevert(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        if (!ok) revert ForwardFailed(to);
        revert Undone();
    }
}

/// @notice Pays `to` and then reverts its own frame: the payment happens in the trace but not on chain.
contract RevertingRelay {
    error Undone();

    function payThenRevert(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        if (ok) revert Undone();
    }
}

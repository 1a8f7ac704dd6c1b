// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice Chainlink's AggregatorV3Interface, declared as Chainlink declares it
/// (github.com/smartcontractkit/chainlink contracts/src/v0.8/shared/interfaces/AggregatorV3Interface.sol).
/// The rates test compares the ABI solc makes of it with Chainlink's published ABI.
interface AggregatorV3Interface {
  function decimals() external view returns (uint8);

  function description() external view returns (string memory);

  function version() external view returns (uint256);

  function getRoundData(
    uint80 _roundId
  ) external view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);

  function latestRoundData()
    external
    view
    returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}

/// @title MockAggregatorV3
/// @notice A price feed for anvil whose rounds the test writes: the rates provider reads it
/// exactly as it reads a Chainlink proxy on mainnet. Any round may be written, inconsistent ones
/// included (answer <= 0, answeredInRound < roundId, updatedAt 0), so that the refusals are tested.
contract MockAggregatorV3 is AggregatorV3Interface {
  struct Round {
    int256 answer;
    uint256 startedAt;
    uint256 updatedAt;
    uint80 answeredInRound;
  }

  error NoDataPresent(uint80 roundId);

  // Public getters, as in Chainlink's own aggregators: the ABI says `view` like the interface.
  uint8 public immutable override decimals;
  string public override description;
  uint256 public constant override version = 4;

  uint80 private latestRound;
  mapping(uint80 => Round) private rounds;

  constructor(uint8 decimals_, string memory description_) {
    decimals = decimals_;
    description = description_;
  }

  /// @notice Writes round `roundId` and makes it the latest.
  function setRound(
    uint80 roundId,
    int256 answer,
    uint256 startedAt,
    uint256 updatedAt,
    uint80 answeredInRound
  ) external {
    rounds[roundId] = Round(answer, startedAt, updatedAt, answeredInRound);
    latestRound = roundId;
  }

  function getRoundData(
    uint80 _roundId
  ) public view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
    Round memory round = rounds[_roundId];
    if (round.updatedAt == 0 && round.answer == 0) revert NoDataPresent(_roundId);
    return (_roundId, round.answer, round.startedAt, round.updatedAt, round.answeredInRound);
  }

  function latestRoundData()
    external
    view
    returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
  {
    return getRoundData(latestRound);
  }
}

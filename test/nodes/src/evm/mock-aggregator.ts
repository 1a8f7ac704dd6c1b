import { readFileSync } from "node:fs";
import { type Address, encodeDeployData, encodeFunctionData, type Hex, parseAbi } from "viem";
import type { AnvilNode } from "./anvil-node.ts";
import { compileSolidity } from "./compile.ts";

/**
 * contracts/MockAggregatorV3.sol, compiled at test time by compileSolidity (solc from npm, the
 * TestToken settings) and deployed on anvil: a price feed with Chainlink's exact
 * AggregatorV3Interface whose rounds the test writes (the rates provider's tests, the indexer's
 * stale-rate test, the production start of `payments serve`).
 */
const SOURCE_URL = new URL("./contracts/MockAggregatorV3.sol", import.meta.url);
const SOURCE_NAME = "MockAggregatorV3.sol";

export const mockAggregatorAbi = parseAbi([
  "constructor(uint8 decimals_, string description_)",
  "function setRound(uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)",
]);

export interface CompiledAggregator {
  /** The ABI solc made of the `AggregatorV3Interface` declared in the source. */
  interfaceAbi: Record<string, unknown>[];
  mockAbi: Record<string, unknown>[];
  bytecode: Hex;
}

export function compileMockAggregator(): CompiledAggregator {
  const compiled = compileSolidity(SOURCE_NAME, readFileSync(SOURCE_URL, "utf8"));
  const [iface, mock] = [compiled.AggregatorV3Interface, compiled.MockAggregatorV3];
  if (!iface || !mock) throw new Error("solc: MockAggregatorV3.sol did not yield both contracts");
  return { interfaceAbi: iface.abi, mockAbi: mock.abi, bytecode: mock.bytecode };
}

export interface Round {
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
  /** Default roundId (a round answered in itself). */
  answeredInRound?: bigint;
  /** Default updatedAt. */
  startedAt?: bigint;
}

export async function deployMockAggregator(
  node: AnvilNode,
  compiled: CompiledAggregator,
  decimals: number,
  description: string,
): Promise<Address> {
  const data = encodeDeployData({ abi: mockAggregatorAbi, bytecode: compiled.bytecode, args: [decimals, description] });
  const hash = await node.walletClient.sendTransaction({ data });
  const receipt = await node.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (!receipt.contractAddress) throw new Error("MockAggregatorV3 was not deployed");
  return receipt.contractAddress;
}

export async function setRound(node: AnvilNode, feed: Address, round: Round): Promise<void> {
  const data = encodeFunctionData({
    abi: mockAggregatorAbi,
    functionName: "setRound",
    args: [
      round.roundId,
      round.answer,
      round.startedAt ?? round.updatedAt,
      round.updatedAt,
      round.answeredInRound ?? round.roundId,
    ],
  });
  const hash = await node.walletClient.sendTransaction({ to: feed, data });
  const receipt = await node.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  if (receipt.status !== "success") throw new Error("setRound reverted");
}

import {
  type Address,
  encodeFunctionData,
  getAddress,
  keccak256,
  numberToHex,
  stringToHex,
  toEventSelector,
} from "viem";
import type { AnvilNode } from "./anvil-node.ts";
import { testTokenAbi } from "./test-contracts.ts";
import { batchTransferGas, type TestToken } from "./test-token.ts";
import { minedTransaction, sendFromUnlocked } from "./transactions.ts";

const TRANSFER_TOPIC = toEventSelector("Transfer(address,address,uint256)");

export interface SeedTransfersOptions {
  /** ERC-20 transfers to create (default 20,000). */
  transfers?: number;
  /** Blocks to spread them over, one batchTransfer per block (default 1,000). */
  blocks?: number;
  /** Watched addresses: `watchedShare` of the transfers go to them, round-robin. */
  recipients: readonly string[];
  /** Default 0.1: every 10th transfer pays a watched address. */
  watchedShare?: number;
  /**
   * Distinct unwatched addresses the other transfers cycle through (default 1,000). Bounded on
   * purpose: anvil re-hashes a contract's whole storage every block, so 18,000 fresh holders would
   * make seeding itself the slow part (35 ms a block by the end, instead of ~5 ms).
   */
  unwatchedAddresses?: number;
}

export interface SeededTransfers {
  fromBlock: number;
  toBlock: number;
  transfers: number;
  /** Transfers paying a watched recipient, and what each watched recipient received in total. */
  watchedTransfers: number;
  receivedByRecipient: ReadonlyMap<string, bigint>;
}

/**
 * Fills `blocks` consecutive blocks with `transfers` ERC-20 Transfer events (one batchTransfer
 * per block, from the token holder accounts[0]), a share of them to the watched `recipients` and
 * the rest to deterministic unwatched addresses: the workload of the indexer catch-up benchmark.
 * Amounts are distinct and deterministic.
 */
export async function seedTransfers(
  node: AnvilNode,
  token: Pick<TestToken, "address">,
  options: SeedTransfersOptions,
): Promise<SeededTransfers> {
  const transfers = options.transfers ?? 20_000;
  const blocks = options.blocks ?? 1_000;
  const watchedEvery = Math.round(1 / (options.watchedShare ?? 0.1));
  if (options.recipients.length === 0) throw new Error("seedTransfers needs at least one watched recipient");
  if (blocks < 1 || transfers < blocks) throw new Error("seedTransfers needs blocks >= 1 and transfers >= blocks");
  const holder = node.accounts[0];
  if (!holder) throw new Error("anvil node has no dev account");

  const watched = options.recipients.map((address) => getAddress(address));
  const unwatched = Array.from({ length: options.unwatchedAddresses ?? 1_000 }, (_, i) => unwatchedAddress(i));
  const receivedByRecipient = new Map<string, bigint>();
  // One block per batch, whatever the mining mode: transactions wait in the pool until mined.
  const automine = await node.testClient.getAutomine();
  if (automine) await node.setAutomine(false);
  let watchedTransfers = 0;
  let next = 0;
  let fromBlock = -1;
  let toBlock = -1;
  for (let block = 0; block < blocks; block++) {
    // Spread evenly: the first `transfers % blocks` blocks take one extra transfer.
    const count = Math.floor(transfers / blocks) + (block < transfers % blocks ? 1 : 0);
    const to: Address[] = [];
    const amounts: bigint[] = [];
    for (let i = 0; i < count; i++, next++) {
      const amount = 1_000_000n + BigInt(next);
      if (next % watchedEvery === 0) {
        const recipient = watched[(next / watchedEvery) % watched.length];
        if (recipient === undefined) throw new Error("unreachable: recipient index out of range");
        to.push(recipient);
        receivedByRecipient.set(recipient, (receivedByRecipient.get(recipient) ?? 0n) + amount);
        watchedTransfers++;
      } else {
        to.push(unwatched[next % unwatched.length] ?? unwatchedAddress(next));
      }
      amounts.push(amount);
    }
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: "batchTransfer", args: [to, amounts] });
    const hash = await sendFromUnlocked(node, {
      from: holder.address,
      to: token.address,
      data,
      gas: batchTransferGas(count),
    });
    await node.mine(1);
    if (block === 0 || block === blocks - 1) {
      const mined = await minedTransaction(node, hash);
      if (block === 0) fromBlock = mined.blockNumber;
      toBlock = mined.blockNumber;
    }
  }
  if (automine) await node.setAutomine(true);
  if (toBlock - fromBlock + 1 < blocks) {
    throw new Error(`seedTransfers expected ${blocks} blocks, got ${fromBlock}..${toBlock}`);
  }
  // One eth_getLogs proves every batch succeeded (a reverted one would leave its logs out).
  const logs = await node.publicClient.request({
    method: "eth_getLogs",
    params: [
      {
        address: token.address,
        topics: [TRANSFER_TOPIC],
        fromBlock: numberToHex(fromBlock),
        toBlock: numberToHex(toBlock),
      },
    ],
  });
  if (logs.length !== transfers) throw new Error(`seedTransfers made ${logs.length} transfers, not ${transfers}`);
  return { fromBlock, toBlock, transfers, watchedTransfers, receivedByRecipient };
}

/** A deterministic address nobody watches: keccak256("unwatched:<i>")[12..]. */
export function unwatchedAddress(index: number): Address {
  return getAddress(`0x${keccak256(stringToHex(`unwatched:${index}`)).slice(26)}`);
}

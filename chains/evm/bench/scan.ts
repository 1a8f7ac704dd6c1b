import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { resolveChainConfig } from "@mp/core";
import {
  type AnvilNode,
  deployTestToken,
  sendFromUnlocked,
  startAnvil,
  testTokenAbi,
  unwatchedAddress,
} from "@mp/test-nodes/evm";
import { type Address, encodeFunctionData, getAddress } from "viem";
import { createEvmAdapter } from "../src/index.ts";

/**
 * Scan throughput on real anvil: blocks that each hold one ERC-20 batch payout of 40 transfers and
 * 5 plain native payments (45 transfers a block), a 1,000,000-address watch set that 10% of the
 * transfers hit, timed end to end through HTTP: full blocks, eth_getLogs, receipts of the matched
 * native payments, validation and matching. Target of the indexer bench: >= 5,000 logs/s.
 */

const WATCH_SET_SIZE = 1_000_000;
const TOKEN_TRANSFERS_PER_BLOCK = 40;
const NATIVE_TRANSFERS_PER_BLOCK = 5;
const HIT_EVERY = 10;

/** Deterministic watched addresses, already in normalized (lowercase) form. */
function watchedAddress(index: number): string {
  return `0x${createHash("sha256").update(`watched:${index}`).digest().subarray(0, 20).toString("hex")}`;
}

export async function runScanBench(opts: { blocks?: number } = {}): Promise<{
  blocksPerSecond: number;
  transfersMatched: number;
}> {
  const blocks = opts.blocks ?? 500;
  const watchList: string[] = new Array(WATCH_SET_SIZE);
  const watch = new Set<string>();
  for (let i = 0; i < WATCH_SET_SIZE; i++) {
    const address = watchedAddress(i);
    watchList[i] = address;
    watch.add(address);
  }

  const node = await startAnvil();
  try {
    const usdc = await deployTestToken(node, { name: "USD Coin", symbol: "USDC", decimals: 6 });
    const { fromBlock, toBlock, expected, logs } = await buildBlocks(node, usdc.address, blocks, watchList);
    const adapter = createEvmAdapter(
      resolveChainConfig("BASE", {
        rpcUrl: node.url,
        tokens: [{ asset: "USDC", address: usdc.address, decimals: 6 }],
        batchSize: 2000,
      }),
    );
    await adapter.head();
    const started = performance.now();
    const transfers = await adapter.scan({ from: fromBlock, to: toBlock }, watch);
    const seconds = (performance.now() - started) / 1000;
    if (transfers.length !== expected) throw new Error(`bench matched ${transfers.length}, expected ${expected}`);
    process.stdout.write(
      `evm scan: ${blocks} blocks, ${logs} token logs, ${transfers.length} matched in ${seconds.toFixed(2)} s ` +
        `(${Math.round(logs / seconds)} logs/s)\n`,
    );
    return { blocksPerSecond: blocks / seconds, transfersMatched: transfers.length };
  } finally {
    await node.stop();
  }
}

/** One block per iteration: a batchTransfer and a few native payments, mined together. */
async function buildBlocks(node: AnvilNode, token: Address, blocks: number, watchList: readonly string[]) {
  const [treasury, payer] = node.accounts;
  if (!treasury || !payer) throw new Error("anvil dev accounts missing");
  const others = Array.from({ length: 1_000 }, (_, i) => unwatchedAddress(i));
  const recipient = (n: number): { address: Address; hit: boolean } => {
    if (n % HIT_EVERY === 0) return { address: getAddress(watchList[(n * 7919) % watchList.length] ?? ""), hit: true };
    return { address: others[n % others.length] ?? unwatchedAddress(n), hit: false };
  };
  await node.setAutomine(false);
  let n = 0;
  let expected = 0;
  const fromBlock = (await node.blockNumber()) + 1;
  for (let b = 0; b < blocks; b++) {
    const to: Address[] = [];
    const amounts: bigint[] = [];
    for (let i = 0; i < TOKEN_TRANSFERS_PER_BLOCK; i++, n++) {
      const { address, hit } = recipient(n);
      if (hit) expected++;
      to.push(address);
      amounts.push(1_000_000n + BigInt(n));
    }
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: "batchTransfer", args: [to, amounts] });
    await sendFromUnlocked(node, { from: treasury.address, to: token, data, gas: 2_000_000n });
    for (let i = 0; i < NATIVE_TRANSFERS_PER_BLOCK; i++, n++) {
      const { address, hit } = recipient(n);
      if (hit) expected++;
      await sendFromUnlocked(node, {
        from: payer.address,
        to: address,
        value: 1_000_000_000n + BigInt(n),
        gas: 21_000n,
      });
    }
    await node.mine(1);
  }
  await node.setAutomine(true);
  return { fromBlock, toBlock: fromBlock + blocks - 1, expected, logs: blocks * TOKEN_TRANSFERS_PER_BLOCK };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const blocks = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  const result = await runScanBench(blocks === undefined ? {} : { blocks });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

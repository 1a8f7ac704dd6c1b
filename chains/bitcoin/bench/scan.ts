import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { normalizeAddress, resolveChainConfig } from "@mp/core";
import { startBitcoinTestNode, type TestOutput } from "@mp/test-nodes/bitcoin";
import { address as bitcoinAddress, networks } from "bitcoinjs-lib";
import { createBitcoinAdapter } from "../src/bitcoin-adapter.ts";

/**
 * Scan throughput: blocks of 3,000 P2WPKH outputs (30 wallet transactions of 100 outputs, as a
 * payout batch looks) on the Bitcoin test node, a 1,000,000-address watch set of which 10% of the
 * outputs hit, timed end to end: JSON-RPC over HTTP, exact-decimal parsing, validation, matching.
 * Target: >= 2 blocks/s.
 */

const WATCH_SET_SIZE = 1_000_000;
const OUTPUTS_PER_BLOCK = 3_000;
const OUTPUTS_PER_TX = 100;
const HIT_EVERY = 10;

/** A deterministic P2WPKH address: the key hash is sha256(label) truncated to 20 bytes. */
function syntheticAddress(label: string): string {
  const keyHash = createHash("sha256").update(label).digest().subarray(0, 20);
  return bitcoinAddress.toBech32(keyHash, 0, networks.regtest.bech32);
}

export async function runScanBench(opts: { blocks?: number } = {}): Promise<{
  blocksPerSecond: number;
  transfersMatched: number;
}> {
  const blocks = opts.blocks ?? 20;
  const watchList: string[] = [];
  const watch = new Set<string>();
  for (let i = 0; i < WATCH_SET_SIZE; i++) {
    const address = syntheticAddress(`watched:${i}`);
    watchList.push(address);
    watch.add(normalizeAddress("BITCOIN", address));
  }

  // Enough mature coinbase rewards to fund every batch without long unconfirmed chains.
  const node = await startBitcoinTestNode({ premineBlocks: 101 + blocks });
  try {
    const from = node.height + 1;
    let expected = 0;
    let outputIndex = 0;
    for (let b = 0; b < blocks; b++) {
      for (let t = 0; t < OUTPUTS_PER_BLOCK / OUTPUTS_PER_TX; t++) {
        const outputs: TestOutput[] = [];
        for (let o = 0; o < OUTPUTS_PER_TX; o++, outputIndex++) {
          const hit = outputIndex % HIT_EVERY === 0;
          const address = hit
            ? (watchList[(outputIndex * 7919) % WATCH_SET_SIZE] as string)
            : syntheticAddress(`other:${outputIndex}`);
          if (hit) expected++;
          outputs.push({ address, amount: 1_000n + BigInt(outputIndex % 50_000) });
        }
        node.sendOutputs(outputs);
      }
      node.mine(1);
    }
    const to = node.height;

    const adapter = createBitcoinAdapter(
      resolveChainConfig("BITCOIN", { rpcUrl: node.url, network: "regtest", startHeight: from }),
    );
    await adapter.head();
    const started = performance.now();
    const transfers = await adapter.scan({ from, to }, watch);
    const seconds = (performance.now() - started) / 1000;
    if (transfers.length !== expected) {
      throw new Error(`bench matched ${transfers.length} transfers, expected ${expected}`);
    }
    return { blocksPerSecond: blocks / seconds, transfersMatched: transfers.length };
  } finally {
    await node.stop();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const blocks = Number(process.argv[2] ?? 20);
  const result = await runScanBench({ blocks });
  console.log(
    `bitcoin scan: ${blocks} blocks x ${OUTPUTS_PER_BLOCK} outputs, watch set ${WATCH_SET_SIZE}: ` +
      `${result.blocksPerSecond.toFixed(2)} blocks/s, ${result.transfersMatched} transfers matched (target >= 2 blocks/s)`,
  );
}

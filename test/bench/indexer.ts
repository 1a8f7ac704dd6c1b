import { printTable } from "./measure.ts";

const TARGETS: Record<string, { blocksPerSecond: number; load: string }> = {
  SOLANA: { blocksPerSecond: 5, load: "2,000 transactions per block" },
  BITCOIN: { blocksPerSecond: 2, load: "3,000 outputs per block" },
  TRON: { blocksPerSecond: 20, load: "300 transactions per block" },
};

/**
 * `pnpm bench indexer --chain C`: EVM chains run the end-to-end indexer bench on anvil (packages/indexer/bench);
 * Solana, Bitcoin and Tron parse and match realistic blocks from their test node against a
 * 1,000,000-address watch set (the adapter's scan is where their cost lies).
 */
export async function runIndexerBench(
  options: { chain?: string; blocks?: number; watched?: number; transfers?: number; cpuProf?: string } = {},
): Promise<void> {
  const chain = (options.chain ?? "BASE").toUpperCase();
  if (!TARGETS[chain]) {
    const { runIndexerBench: runEvm } = await import("../../packages/indexer/bench/indexer.ts");
    await runEvm({
      chain,
      ...(options.blocks === undefined ? {} : { blocks: options.blocks }),
      ...(options.watched === undefined ? {} : { watched: options.watched }),
      ...(options.transfers === undefined ? {} : { transfers: options.transfers }),
      ...(options.cpuProf === undefined ? {} : { cpuProf: options.cpuProf }),
    });
    return;
  }
  const blocks = options.blocks ?? 20;
  const target = TARGETS[chain];
  const bench =
    chain === "SOLANA"
      ? await import("../../chains/solana/bench/scan.ts")
      : chain === "BITCOIN"
        ? await import("../../chains/bitcoin/bench/scan.ts")
        : await import("../../chains/tron/bench/scan.ts");
  const result = await bench.runScanBench({ blocks });
  printTable(`${chain} blocks parsed and matched (${target.load}, 1,000,000 watched addresses, ${blocks} blocks)`, [
    {
      chain,
      "blocks/s": Number(result.blocksPerSecond.toFixed(2)),
      "transfers matched": result.transfersMatched,
      "target blocks/s": target.blocksPerSecond,
      "x target": Number((result.blocksPerSecond / target.blocksPerSecond).toFixed(2)),
    },
  ]);
}

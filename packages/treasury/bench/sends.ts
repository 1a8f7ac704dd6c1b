import { evmSendCheck } from "@mp/chain-evm";
import { type Hex, keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { printTable } from "../../../test/bench/measure.ts";
import { requestSend } from "../src/send-requests.ts";
import { type EvmTreasuryHarness, freshAddress } from "../test/support/evm-treasury.ts";
import { openEvmBenchTreasury } from "./bench-treasury.ts";

export interface SendsBenchResult {
  sends: number;
  /** Raw signed transfers from one address pushed to the same anvil, no database: the node's ceiling. */
  baselinePerSecond: number;
  /** Sends signed (nonce allocated under the row lock), stored and broadcast by one pipeline pass. */
  perSecond: number;
  seconds: number;
  /** Nonces missing between the first and the last allocated, plus nonces the chain did not reach. */
  nonceGaps: number;
  /** Nonces handed out twice. */
  nonceCollisions: number;
  landed: number;
  database: string;
}

/**
 * `pnpm bench sends`: EVM sends per second signed, stored and broadcast from one treasury address
 * against anvil (interval mining, as on a real chain), with the nonce invariant checked after all
 * landed (target >= 100/s, 0 gaps). Baseline in the same run: the same number of pre-signed raw
 * transfers pushed one by one to the same node, which bounds what any sender can reach.
 */
export async function runSendsBench(options: { sends?: number } = {}): Promise<SendsBenchResult> {
  const count = options.sends ?? 1_000;
  const { db, h, pipeline, close } = await openEvmBenchTreasury(1);
  try {
    const node = h.node;
    const baselinePerSecond = await rawBroadcastRate(h, count);

    const to = freshAddress();
    for (let i = 0; i < count; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, (_, j) =>
          requestSend(
            db,
            {
              chain: "BASE",
              asset: "USDC",
              to,
              amountRaw: 1_000n + BigInt(i + j),
              purpose: "operator",
              idempotencyKey: `bench-${i + j}`,
            },
            evmSendCheck,
          ),
        ),
      );
    }
    const first = await node.publicClient.getTransactionCount({ address: h.treasury, blockTag: "pending" });
    const started = performance.now();
    try {
      await pipeline.tick("BASE");
    } finally {
      await pipeline.stop();
    }
    const seconds = (performance.now() - started) / 1000;

    const { rows } = await db.query<{ nonce: string; state: string }>(
      "SELECT guard->>'nonce' AS nonce, state FROM treasury_attempts WHERE chain = 'BASE' ORDER BY 1",
    );
    const broadcast = rows.filter((r) => r.state === "broadcast").length;
    const nonces = rows.map((r) => Number(r.nonce));
    const distinct = new Set(nonces);
    // Every nonce from the first to first + count - 1, once: anything else is a gap or a collision.
    let gaps = 0;
    for (let n = first; n < first + count; n++) if (!distinct.has(n)) gaps++;
    const deadline = Date.now() + 120_000;
    let mined = first;
    while (mined < first + count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      mined = await node.publicClient.getTransactionCount({ address: h.treasury, blockTag: "latest" });
    }
    gaps += first + count - mined;
    const result: SendsBenchResult = {
      sends: count,
      baselinePerSecond,
      perSecond: broadcast / seconds,
      seconds,
      nonceGaps: gaps,
      nonceCollisions: nonces.length - distinct.size,
      landed: mined - first,
      database: process.env.DATABASE_URL ? "PostgreSQL server" : "embedded PGlite",
    };
    printTable(`EVM sends from one address against anvil (1 s blocks, USDC transfer, database: ${result.database})`, [
      {
        measure: `baseline: ${count} pre-signed raw transfers pushed one by one (no database)`,
        value: `${Math.round(baselinePerSecond)} tx/s`,
      },
      {
        measure: `pipeline: ${count} queued sends prepared, signed + stored (nonce row lock), broadcast`,
        value: `${Math.round(result.perSecond)} sends/s (${seconds.toFixed(2)} s; target >= 100/s)`,
      },
      { measure: "landed on chain", value: `${result.landed} of ${count}` },
      { measure: "nonce gaps / collisions", value: `${result.nonceGaps} / ${result.nonceCollisions}` },
      {
        measure: "pipeline / baseline",
        value: `${(result.perSecond / baselinePerSecond).toFixed(2)}x (target >= 0.7x)`,
      },
    ]);
    return result;
  } finally {
    await close();
  }
}

/** Pre-signs `count` native transfers from anvil's account 1 and times pushing them to the node. */
async function rawBroadcastRate(h: EvmTreasuryHarness, count: number): Promise<number> {
  const dev = h.node.accounts[1];
  if (!dev) throw new Error("anvil has no account 1");
  const account = privateKeyToAccount(dev.privateKey);
  const start = await h.node.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
  const block = await h.node.publicClient.getBlock();
  const tip = 1_000_000_000n;
  const maxFeePerGas = (block.baseFeePerGas ?? 1_000_000_000n) * 2n + tip;
  const to = freshAddress();
  const raws: Hex[] = [];
  for (let i = 0; i < count; i++) {
    raws.push(
      await account.signTransaction({
        chainId: h.node.chainId,
        type: "eip1559",
        nonce: start + i,
        to,
        value: 1n,
        gas: 21_000n,
        maxFeePerGas,
        maxPriorityFeePerGas: tip,
      }),
    );
  }
  const started = performance.now();
  for (const raw of raws) {
    const hash = await h.node.publicClient.request({ method: "eth_sendRawTransaction", params: [raw] });
    if (hash !== keccak256(raw)) throw new Error(`the node answered ${hash} for ${keccak256(raw)}`);
  }
  return count / ((performance.now() - started) / 1000);
}

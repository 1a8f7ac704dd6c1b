import { bitcoinSendCheck } from "@mp/chain-bitcoin";
import { printTable } from "../../../test/bench/measure.ts";
import { requestSend } from "../src/send-requests.ts";
import { freshRecipients } from "../test/support/bitcoin-treasury.ts";
import { openBitcoinBenchTreasury } from "./bench-treasury.ts";

/**
 * Issue 14's Bitcoin figure: `sends` queued sends (default 200) batched and broadcast. The sends are
 * queued first (requestSend), then one pass of the send pipeline signs, stores and broadcasts them
 * against the Bitcoin test node, which validates every input's signature as Core would. Its table:
 * the sends, the transactions they were batched into, and the pass's milliseconds (prepare, coin
 * selection, change address, signing, storing and broadcasting).
 */
export async function runBitcoinSendsBench(options: { sends?: number } = {}): Promise<void> {
  const count = options.sends ?? 200;
  const { db, h, pipeline, close } = await openBitcoinBenchTreasury();
  try {
    await h.fund([5n * 100_000_000n, 5n * 100_000_000n]);
    const recipients = freshRecipients(count);
    for (const [i, to] of recipients.entries()) {
      await requestSend(
        db,
        {
          chain: "BITCOIN",
          asset: "BTC",
          to,
          amountRaw: 100_000n + BigInt(i),
          purpose: "operator",
          idempotencyKey: `bench-btc-${i}`,
        },
        bitcoinSendCheck,
      );
    }
    const started = performance.now();
    await pipeline.tick("BITCOIN");
    const passMs = performance.now() - started;
    await pipeline.stop();
    const { rows } = await db.query<{ transactions: string; broadcast: string }>(
      `SELECT count(DISTINCT a.id)::text AS transactions, count(*) FILTER (WHERE s.state = 'broadcast')::text AS broadcast
         FROM treasury_sends s JOIN treasury_attempt_sends x ON x.send_id = s.id JOIN treasury_attempts a ON a.id = x.attempt_id`,
    );
    const broadcast = Number(rows[0]?.broadcast ?? 0);
    if (broadcast !== count) throw new Error(`only ${broadcast} of ${count} sends were broadcast`);
    if (h.node.mempool().length !== Number(rows[0]?.transactions))
      throw new Error("the node's mempool misses a transaction");
    printTable("Bitcoin: queued sends batched, signed, stored and broadcast in one pipeline pass (target < 1 s)", [
      { sends: count, transactions: Number(rows[0]?.transactions ?? 0), "pass ms": Math.round(passMs) },
    ]);
  } finally {
    await close();
  }
}

import { bitcoinSendCheck, createBitcoinSender } from "@mp/chain-bitcoin";
import { silentLogger } from "@mp/core";
import { Transaction } from "bitcoinjs-lib";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { bitcoinBroadcast } from "../../../test/fuzz/broadcast-refusals.ts";
import { findSend, requestSend } from "../src/send-requests.ts";
import { freshRecipients, paidOnChain, startBitcoinTreasury } from "./support/bitcoin-treasury.ts";
import { until } from "./support/evm-treasury.ts";
import { testPipelines } from "./support/test-pipelines.ts";
import { useTreasuryHarness } from "./support/use-treasury.ts";

/** The treasury's one coin: a payout of it less 400 sat leaves no change (what is left is below dust). */
const COIN = 1_000_000n;

/**
 * A payout the node refused for good, requested again with the same coin to the same output: the
 * Bitcoin sender signs it again, and at the same tip height (nLockTime) that is the refused
 * attempt's own hash, which the store holds once. The send pipeline refuses just that transaction
 * for the pass (counted), never the whole pass; above the next tip the payout is a new transaction.
 */
describe("Bitcoin sender: a payout signed again to a stored attempt's hash", () => {
  const { t, h } = useTreasuryHarness((db) => startBitcoinTreasury(db, { txindex: false }));
  const pipelines = testPipelines("BITCOIN", () => t.db);

  beforeAll(async () => {
    await h.fund([COIN]);
  }, 60_000);

  afterEach(async () => {
    await pipelines.stopAll();
  });

  // The node refuses every broadcast while `refusing`, and bytes it refused ever after (as Core would).
  let refusing = false;
  const refused = new Set<string>();
  const node: typeof globalThis.fetch = async (url, init) => {
    const broadcast = bitcoinBroadcast(String(url), String(init?.body ?? ""));
    if (broadcast && refusing) refused.add(broadcast.key);
    if (broadcast && refused.has(broadcast.key)) return broadcast.refusal();
    return fetch(url, init);
  };

  const send = async (to: string, amountRaw: bigint, key: string) =>
    (
      await requestSend(
        t.db,
        { chain: "BITCOIN", asset: "BTC", to, amountRaw, purpose: "operator", idempotencyKey: key },
        bitcoinSendCheck,
      )
    ).send;

  const attemptsOf = async (sendId: string) =>
    (
      await t.db.query<{ tx_hash: string; raw: string; state: string }>(
        `SELECT a.tx_hash, a.raw, a.state FROM treasury_attempts a
           JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = $1 ORDER BY a.created_at`,
        [sendId],
      )
    ).rows;

  it("is refused for that pass and counted, the pass goes on, and it lands once above the next tip", async () => {
    const [to] = freshRecipients(1) as [string];
    const amount = COIN - 400n;
    const pipeline = pipelines.start(
      createBitcoinSender({ config: h.config, keys: h.keys, db: t.db, logger: silentLogger(), fetch: node }),
    );

    const first = await send(to, amount, "same-hash-1");
    refusing = true;
    await pipeline.tick("BITCOIN");
    refusing = false;
    expect((await findSend(t.db, first.id))?.state).toBe("failed");
    const [failed] = await attemptsOf(first.id);
    const signed = Transaction.fromHex(failed?.raw as string);
    // nLockTime is the tip it was signed above (anti-fee-sniping); one output, no change.
    expect(signed.locktime).toBe(h.node.height);
    expect(signed.outs).toHaveLength(1);

    // Requested again at the same tip: the same coin, output and nLockTime, so the same hash.
    const again = await send(to, amount, "same-hash-2");
    await pipeline.tick("BITCOIN");
    expect((await findSend(t.db, again.id))?.state).toBe("queued");
    expect(await attemptsOf(again.id)).toEqual([]);
    const { rows: refusals } = await t.db.query(
      "SELECT tx_hash, refusals::int, attempt_state, signed_by FROM treasury_hash_refusals WHERE chain = 'BITCOIN'",
    );
    expect(refusals).toEqual([{ tx_hash: failed?.tx_hash, refusals: 1, attempt_state: "failed", signed_by: "send" }]);

    // Above the next tip it is another transaction, and it pays once.
    await h.mine(1);
    await until(t.db, [again.id], "confirmed", async () => {
      await pipeline.tick("BITCOIN");
      await h.mine(1);
    });
    const landed = await attemptsOf(again.id);
    expect(landed.map((a) => a.state)).toEqual(["mined"]);
    expect(landed[0]?.tx_hash).not.toBe(failed?.tx_hash);
    expect(await paidOnChain(h.node, landed[0]?.tx_hash as string, to)).toBe(amount);
    expect(await paidOnChain(h.node, failed?.tx_hash as string, to)).toBe(0n);
  }, 120_000);
});

import { type ReconcileTarget, reconcileChains, requestSend } from "@mp/treasury";
import { beforeAll, describe, expect, it } from "vitest";
import { freshRecipients, startBitcoinTreasury } from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { testPipelines } from "../../packages/treasury/test/support/test-pipelines.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { sendCheckOf } from "../../services/payments/src/chain-families.ts";
import { addWallet, createMerchant } from "../indexer/indexer-fixtures.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";

describe("payments reconcile chains on the Bitcoin test node", () => {
  const { t: database, h } = useTreasuryHarness(startBitcoinTreasury);
  const pipelines = testPipelines("BITCOIN", () => database.db);
  const [deposit = "", recipient = ""] = freshRecipients(2);
  const targets = (): ReconcileTarget[] => [reconcileTarget(h.config, [{ asset: "BTC", address: null, decimals: 8 }])];

  beforeAll(async () => {
    const db = database.db;
    await addWallet(db, await createMerchant(db), "BITCOIN", deposit);
    // An operator's top-up (two outputs to the treasury) and a customer's deposit.
    await h.fund([20_000_000n, 30_000_000n]);
    h.node.sendOutputs([{ address: deposit, amount: 5_000_000n }]);
    await h.mine(3);
    const { send } = await requestSend(
      db,
      {
        chain: "BITCOIN",
        asset: "BTC",
        to: recipient,
        amountRaw: 7_000_000n,
        purpose: "operator",
        idempotencyKey: "reconcile-btc",
      },
      sendCheckOf("BITCOIN"),
    );
    await pipelines.runUntilConfirmed(h.sender(), [send.id], () => h.mine(1));
    await h.mine(3);
  }, 120_000);

  it("records the top-up as float and our change as our own, and agrees to the satoshi (exit 0)", async () => {
    const db = database.db;
    const receipts = await db.query<{ kind: string; amount_raw: string; status: string; tx_hash: string }>(
      "SELECT kind, amount_raw::text, status, tx_hash FROM treasury_receipts ORDER BY kind, amount_raw",
    );
    expect(receipts.rows.filter((r) => r.kind === "float").map((r) => r.amount_raw)).toEqual(["20000000", "30000000"]);
    // The send's change came back to a treasury (change) address: custody that never left, no float.
    const attempts = await db.query<{ tx_hash: string }>("SELECT tx_hash FROM treasury_attempts WHERE state = 'mined'");
    expect(receipts.rows.filter((r) => r.kind === "own").map((r) => r.tx_hash)).toEqual(
      attempts.rows.map((a) => a.tx_hash),
    );
    expect(receipts.rows.every((r) => r.status === "CONFIRMED")).toBe(true);

    const report = await reconcileChains(db, targets());
    expect(report.exitCode).toBe(0);
    const [btc] = report.lines;
    const fee = BigInt(btc?.breakdown.fees ?? "0");
    expect(fee).toBeGreaterThan(0n);
    const held = 20_000_000n + 30_000_000n + 5_000_000n - 7_000_000n - fee;
    expect(btc).toMatchObject({
      status: "agrees",
      chain_holdings: held.toString(),
      expected: held.toString(),
      difference: "0",
      breakdown: { deposits: "5000000", operator_float: "50000000", sent: "7000000" },
    });
  });

  it("a recorded deposit the chain no longer has (reorganised away, not yet indexed) is a difference until the indexer reverses it", async () => {
    const { txid } = h.node.sendOutputs([{ address: deposit, amount: 1_000_000n }]);
    await h.mine(1);
    expect((await reconcileChains(database.db, targets())).exitCode).toBe(0);
    // The deposit's block replaced by one without it, and the indexer not run yet: records say more.
    h.node.reorg(1, { drop: [txid] });
    const report = await reconcileChains(database.db, targets());
    expect(report.exitCode).toBe(1);
    expect(report.lines[0]).toMatchObject({ status: "unexplained", difference: "-1000000" });
    expect(report.lines[0]?.explanation).toContain("less than our records say");
    await h.catchUp();
    expect((await reconcileChains(database.db, targets())).exitCode).toBe(0);
  });
});

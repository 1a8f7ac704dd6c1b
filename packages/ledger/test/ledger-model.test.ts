import { randomUUID } from "node:crypto";
import { ConflictError, InsufficientFundsError } from "@mp/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { checkLedger, getMerchantBalance, placeHold, releaseHold, settleHold } from "../src/index.ts";
import {
  createMerchant,
  creditBankDeposit,
  creditDeposit,
  type MerchantFixture,
  reverseDeposit,
} from "./ledger-fixtures.ts";

const t = useTestDatabase();

const amount = fc.bigInt({ min: 1n, max: 50_000_000n });
const pick = fc.nat({ max: 1000 });
const operation = fc.oneof(
  fc.record({ op: fc.constant("credit" as const), gross: amount, feeBps: fc.integer({ min: 0, max: 10_000 }) }),
  fc.record({ op: fc.constant("reverse" as const), pick }),
  fc.record({ op: fc.constant("bank" as const), amount }),
  fc.record({ op: fc.constant("hold" as const), amount }),
  fc.record({ op: fc.constant("settle" as const), pick }),
  fc.record({ op: fc.constant("release" as const), pick }),
);

type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

interface ModelHold {
  id: string;
  amount: bigint;
  status: "HELD" | "SETTLED" | "RELEASED";
  resolutionEntryId?: string;
}

/** What the ledger should say, computed without it. */
class Model {
  available = 0n;
  reserved = 0n;
  readonly deposits: Array<{ id: string; net: bigint; reversed: boolean; reversalEntryId?: string }> = [];
  readonly holds: ModelHold[] = [];
}

async function apply(m: MerchantFixture, model: Model, step: Operation): Promise<void> {
  switch (step.op) {
    case "credit": {
      const fee = (step.gross * BigInt(step.feeBps)) / 10_000n;
      const { depositId } = await creditDeposit(t.db, m, { gross: step.gross, fee });
      model.deposits.push({ id: depositId, net: step.gross - fee, reversed: false });
      model.available += step.gross - fee;
      return;
    }
    case "reverse": {
      const deposit = model.deposits[step.pick % Math.max(model.deposits.length, 1)];
      if (!deposit) return;
      const reversal = await reverseDeposit(t.db, m, deposit.id);
      if (deposit.reversed) {
        // A repeat answers the first reversal and moves nothing.
        expect(reversal?.entryId).toBe(deposit.reversalEntryId);
        return;
      }
      deposit.reversed = true;
      if (reversal) deposit.reversalEntryId = reversal.entryId;
      model.available -= deposit.net;
      return;
    }
    case "bank":
      await creditBankDeposit(t.db, m, step.amount);
      model.available += step.amount;
      return;
    case "hold": {
      const id = randomUUID();
      const attempt = t.db.tx((c) =>
        placeHold(c, { holdId: id, merchantId: m.merchantId, amountUsdMicros: step.amount }),
      );
      if (model.available < step.amount) {
        await expect(attempt).rejects.toBeInstanceOf(InsufficientFundsError);
        return;
      }
      await attempt;
      model.holds.push({ id, amount: step.amount, status: "HELD" });
      model.available -= step.amount;
      model.reserved += step.amount;
      return;
    }
    case "settle":
    case "release": {
      const hold = model.holds[step.pick % Math.max(model.holds.length, 1)];
      if (!hold) return;
      const target = step.op === "settle" ? "SETTLED" : "RELEASED";
      const attempt = t.db.tx((c) =>
        (step.op === "settle" ? settleHold : releaseHold)(c, { holdId: hold.id, merchantId: m.merchantId }),
      );
      if (hold.status === target) {
        expect((await attempt).entryId).toBe(hold.resolutionEntryId);
        return;
      }
      if (hold.status !== "HELD") {
        await expect(attempt).rejects.toBeInstanceOf(ConflictError);
        return;
      }
      if (target === "SETTLED" && model.available < 0n) {
        // A reversal took back money the hold stood on: no settle until available is back at zero.
        await expect(attempt).rejects.toBeInstanceOf(InsufficientFundsError);
        return;
      }
      hold.resolutionEntryId = (await attempt).entryId;
      hold.status = target;
      model.reserved -= hold.amount;
      if (target === "RELEASED") model.available += hold.amount;
      return;
    }
  }
}

describe("ledger model", () => {
  it("keeps checkLedger ok and balances equal to the model under random operation sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 14 }), async (steps) => {
        const m = await createMerchant(t.db);
        const model = new Model();
        for (const step of steps) {
          await apply(m, model, step);
          expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
            available: model.available,
            reserved: model.reserved,
            held: 0n,
          });
        }
        // This run's merchant only, so a failure shrinks to its own sequence (the ledger is shared).
        const check = await checkLedger(t.db);
        expect(check.problems.filter((p) => p.includes(m.merchantId))).toEqual([]);
      }),
      { numRuns: 20 },
    );
    // And the whole ledger, system accounts included, after every run.
    expect(await checkLedger(t.db)).toMatchObject({ ok: true, problems: [] });
  });
});

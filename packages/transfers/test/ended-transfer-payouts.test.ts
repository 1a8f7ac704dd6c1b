import type { Queryable } from "@mp/db";
import { describe, expect, it } from "vitest";
import { endedTransferPayouts } from "../src/transfer-execution.ts";
import type { EndedSend, TransferTreasury } from "../src/transfer-treasury.ts";

/** `count` PROCESSING transfers, oldest first, answered a page at a time by their keyset, as the database does. */
function processing(count: number): { sql: Queryable; pages: number } {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
    merchant_id: "m",
    created_at: new Date(1_700_000_000_000 + i),
  }));
  const state = { pages: 0 };
  const sql = {
    async query(_text: string, params: unknown[]) {
      state.pages += 1;
      const [after, afterId, size] = params as [Date | null, string | null, number];
      const from = after === null ? 0 : rows.findIndex((r) => r.id === afterId) + 1;
      return { rows: rows.slice(from, from + size) };
    },
  } as unknown as Queryable;
  return {
    sql,
    get pages() {
      return state.pages;
    },
  };
}

/** A treasury whose sends of these transfer ids ended. */
function treasuryWith(ended: Record<string, EndedSend>): TransferTreasury {
  return {
    async requestSend() {},
    async endedSends(_sql, keys) {
      return new Map(keys.filter((key) => ended[key]).map((key) => [key, ended[key] as EndedSend]));
    },
  };
}

const idOf = (i: number) => `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`;

describe("endedTransferPayouts", () => {
  it("finds the ended sends behind a page of sends still under way, oldest first, at most the limit", async () => {
    const db = processing(1_203);
    const treasury = treasuryWith({
      [idOf(3)]: { state: "failed", reason: "reverted" },
      [idOf(1_100)]: { state: "confirmed", reason: null },
      [idOf(1_201)]: { state: "confirmed", reason: null },
    });
    expect(await endedTransferPayouts(db.sql, treasury, 2)).toEqual([
      { id: idOf(3), merchantId: "m", sendState: "failed", reason: "reverted" },
      { id: idOf(1_100), merchantId: "m", sendState: "confirmed", reason: null },
    ]);
    expect(db.pages).toBe(3);
    expect((await endedTransferPayouts(db.sql, treasury, 50)).map((t) => t.id)).toEqual([
      idOf(3),
      idOf(1_100),
      idOf(1_201),
    ]);
  });

  it("answers nothing when no send ended", async () => {
    expect(await endedTransferPayouts(processing(7).sql, treasuryWith({}), 50)).toEqual([]);
  });
});

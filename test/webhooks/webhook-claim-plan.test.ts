import { randomUUID } from "node:crypto";
import { createMerchant } from "@mp/api";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIM_SQL, claimDueDeliveries } from "../../packages/webhooks/src/claimed-delivery.ts";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Plans?: PlanNode[];
}

function scansOf(node: PlanNode): string[] {
  const own = node["Node Type"] === "Seq Scan" ? [node["Relation Name"] ?? "?"] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

/**
 * The claim reads its deliveries and their events by id, never the whole tables: with a join on the
 * claim's CTE the planner sized it by the free slots (256) and hashed all of webhook_deliveries and
 * events on every claim, a cost growing with the backlog (the webhooks bench's first drain).
 */
describe("the webhook claim's plan", () => {
  let testDb: TestDatabase;
  const endpointId = randomUUID();
  beforeAll(async () => {
    testDb = await createTestDatabase();
    const { merchantId } = await createMerchant(testDb.db, { name: "claim-plan", environment: "sandbox" });
    await testDb.db.query(
      "INSERT INTO webhook_endpoints (id, merchant_id, url, enabled_events) VALUES ($1, $2, 'https://example.com/hook', '{*}')",
      [endpointId, merchantId],
    );
    // A backlog: the fan-out trigger gives each event its delivery.
    await testDb.db.query(
      `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, data)
       SELECT gen_random_uuid(), $1, 'sandbox', 'deposit.confirmed', 'deposit', gen_random_uuid()::text, 1,
              jsonb_build_object('id', gen_random_uuid(), 'status', 'CONFIRMED', 'amount', '12.500000', 'n', n)
         FROM generate_series(1, 5000) n`,
      [merchantId],
    );
    await testDb.db.query("ANALYZE webhook_deliveries");
    await testDb.db.query("ANALYZE events");
  });
  afterAll(() => testDb?.drop());

  it("scans neither webhook_deliveries nor events whole, with a backlog of 5,000", async () => {
    const { rows } = await testDb.db.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (FORMAT JSON) ${CLAIM_SQL}`,
      [[], [], 32, 256, 60, 8, [], []],
    );
    const plan = rows[0]?.["QUERY PLAN"][0]?.Plan;
    expect(plan).toBeDefined();
    expect(scansOf(plan as PlanNode)).toEqual([]);
  });

  it("keeps that shape in the generic plan a prepared claim settles on (it runs as a named statement)", async () => {
    const plan = await testDb.db.tx(async (c) => {
      await c.query(`PREPARE claim_generic AS ${CLAIM_SQL}`);
      await c.query("SET LOCAL plan_cache_mode = force_generic_plan");
      const { rows } = await c.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        "EXPLAIN (FORMAT JSON) EXECUTE claim_generic('{}', '{}', 32, 256, 60, 8, '{}', '{}')",
      );
      await c.query("DEALLOCATE claim_generic");
      return rows[0]?.["QUERY PLAN"][0]?.Plan;
    });
    expect(plan).toBeDefined();
    // The endpoints are walked by design (a seq scan of a small table is the planner's choice).
    expect(scansOf(plan as PlanNode).filter((table) => table !== "webhook_endpoints")).toEqual([]);
  });

  it("claims nothing, and fails not, for an endpoint holding more than its depth (a depth that shrank as it slowed)", async () => {
    const rows = await claimDueDeliveries(testDb.db, {
      held: new Map([[endpointId, { claimed: 40, depth: 32, minClaim: 8 }]]),
      baseDepth: 32,
      baseMinClaim: 8,
      free: 256,
      leaseMs: 60_000,
    });
    expect(rows).toEqual([]);
  });
});

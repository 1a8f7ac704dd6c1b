import type { startWebhookWorker } from "@mp/webhooks";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/api-harness.ts";
import { createEndpoint, emitEvent } from "../support/webhook-fixtures.ts";
import { startReceiver } from "../support/webhook-receiver.ts";
import { spawnWorkerProcess, startSurvivor, useCrashTestHarness } from "./crash-workers.ts";

describe("a worker killed mid-delivery", () => {
  const { api, merchant } = useCrashTestHarness();

  it("leaves the delivery to be retried after its lease: delivered, same webhook-id, never lost", async () => {
    let hangFirst = true;
    const hooks = await startReceiver((_received, res) => {
      // The first request is never answered: the worker is killed while it waits.
      if (hangFirst) {
        hangFirst = false;
        return;
      }
      res.end("ok");
    });
    const endpoint = await createEndpoint(api, merchant, hooks.url);
    const { child, exited } = await spawnWorkerProcess(api);
    let survivor: Awaited<ReturnType<typeof startWebhookWorker>> | undefined;
    try {
      const eventId = await emitEvent(api.db, merchant.merchantId);
      await eventually(async () => (hooks.received.length === 1 ? true : undefined), 20_000, 20);
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // The process that held the claim is gone, not orphaned somewhere.
      expect(() => process.kill(child.pid ?? 0, 0)).toThrow(/ESRCH/);
      const claimed = await api.db.query<{ status: string; attempts: number; claimed_until_ms: string }>(
        `SELECT status, attempts, (extract(epoch FROM claimed_until) * 1000)::bigint::text AS claimed_until_ms
           FROM webhook_deliveries WHERE endpoint_id = $1`,
        [endpoint.id],
      );
      expect(claimed.rows).toEqual([{ status: "pending", attempts: 1, claimed_until_ms: expect.any(String) }]);
      const leaseEnd = Number(claimed.rows[0]?.claimed_until_ms);

      // Another worker takes over once the dead one's lease ends.
      survivor = await startSurvivor(api.db, api.deps.encryption);
      const second = await eventually(async () => hooks.received[1], 20_000, 20);
      expect(second.headers["webhook-id"]).toBe(eventId);
      // Not before the dead worker's lease ended (it began at the claim, before the first request was
      // sent: measured from that request, a loaded machine's slow send made it look 1,848 ms long).
      expect(second.at).toBeGreaterThanOrEqual(leaseEnd - 5);
      new Webhook(endpoint.secret).verify(second.body, second.headers);
      const done = await eventually(async () => {
        const { rows } = await api.db.query<{ status: string; attempts: number }>(
          "SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1",
          [endpoint.id],
        );
        return rows[0]?.status === "succeeded" ? rows : undefined;
      });
      expect(done).toEqual([{ status: "succeeded", attempts: 2 }]);
    } finally {
      child.kill("SIGKILL");
      await survivor?.stop();
      await hooks.stop();
    }
  }, 90_000);
});

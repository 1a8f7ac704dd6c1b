import { randomUUID } from "node:crypto";
import { silentLogger } from "@mp/core";
import { startWebhookWorker } from "@mp/webhooks";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { addWallet, catchUp, newIndexer } from "../indexer/indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain } from "../indexer/test-chains.ts";
import { eventually, useApiHarness } from "../support/api-harness.ts";
import { useStarted } from "../support/use-started.ts";
import { createEndpoint } from "../support/webhook-fixtures.ts";
import { startReceiver } from "../support/webhook-receiver.ts";

/**
 * The whole path a merchant relies on: a payment on a real EVM node (anvil), the indexer confirming
 * and crediting it (its `deposit.confirmed` event appended in the crediting transaction), and the
 * delivery worker pushing that event, signed, to the merchant's endpoint exactly once.
 */
describe("a deposit confirming on anvil is pushed to the merchant's webhook", () => {
  const { api, merchant } = useApiHarness();
  // Started in this order, stopped in the reverse one (vitest runs afterAll hooks as a stack).
  const chain = useStarted("the EVM test chain", startEvmChain, (c) => c.close());
  const receiver = useStarted("the webhook receiver", startReceiver, (r) => r.stop());
  useStarted(
    "the delivery worker",
    () =>
      startWebhookWorker({
        db: api.db,
        keyring: api.deps.encryption,
        logger: silentLogger(),
        environment: "sandbox",
        pollIntervalMs: 50,
      }),
    (worker) => worker.stop(),
  );
  const indexer = useStarted(
    "the indexer",
    async () => newIndexer(api.db, chain),
    (i) => i.stop(),
  );

  it("delivers deposit.confirmed once, signed, with the confirmed deposit as data", async () => {
    const customerId = randomUUID();
    await api.db.query(
      "INSERT INTO customers (id, merchant_id, type, status) VALUES ($1, $2, 'INDIVIDUAL', 'APPROVED')",
      [customerId, merchant.merchantId],
    );
    const address = chain.address();
    await addWallet(
      api.db,
      { merchantId: merchant.merchantId, customerId, feeBps: 0, feeFixedMicros: 0n },
      chain.chain,
      address,
    );
    const endpoint = await createEndpoint(api, merchant, `${receiver.url}`, ["deposit.confirmed"]);

    await catchUp(indexer);
    const txHash = await chain.pay(address, chain.amount(5));
    await catchUp(indexer);
    await chain.mine(CONFIRMATIONS);
    await catchUp(indexer);

    const [got] = await eventually(
      async () => (receiver.received.length > 0 ? receiver.received : undefined),
      15_000,
      50,
    );
    if (!got) throw new Error("nothing received");
    const event = new Webhook(endpoint.secret).verify(got.body, got.headers) as Record<string, unknown>;
    expect(event).toMatchObject({
      type: "deposit.confirmed",
      object_type: "deposit",
      object_version: 2,
      data: { tx_hash: txHash, status: "CONFIRMED", to_address: address },
    });
    expect(got.headers["webhook-id"]).toBe(event.id);

    // More indexer iterations and worker polls send nothing more: one event, one delivery.
    await chain.mine(2);
    await catchUp(indexer);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received).toHaveLength(1);
    const { rows } = await api.db.query("SELECT status FROM webhook_deliveries WHERE event_id = $1", [event.id]);
    expect(rows).toEqual([{ status: "succeeded" }]);
  });
});

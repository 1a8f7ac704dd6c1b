import type { BankingProvider } from "@mp/providers";
import { createSandboxBankingProvider } from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { nextKey, tier2Customer } from "./verification-fixtures.ts";

/** How long the probe waits for the customer's row before calling it held. */
const PROBE_MS = 3_000;

/**
 * No outside provider call runs while a transaction or row lock is held (DESIGN.md): while the bank
 * opens a virtual account, another connection can lock the customer's row at once. The sandbox
 * bank, wrapped to look at the database from inside its own call.
 */
describe("opening a virtual account asks the bank outside any transaction", () => {
  let api: ApiHarness;
  let merchant: TestMerchant;
  const seen: string[] = [];

  beforeAll(async () => {
    const bank = createSandboxBankingProvider({ activationDelayMs: 100 });
    const probing: BankingProvider = {
      ...bank,
      async openAccount(request) {
        seen.push(await probeCustomerRow(request.customerId));
        return bank.openAccount(request);
      },
    };
    api = await startApiHarness({ workers: true, overrides: { banking: probing } });
    merchant = await api.merchant();
  });
  afterAll(() => api?.stop());

  /** "free" when another connection locks the row at once; "locked" or "blocked" when it cannot. */
  async function probeCustomerRow(customerId: string): Promise<string> {
    const probe = api.db
      .tx(async (c) => {
        await c.query("SELECT 1 FROM customers WHERE id = $1 FOR UPDATE NOWAIT", [customerId]);
        return "free";
      })
      .catch(() => "locked");
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("blocked"), PROBE_MS).unref());
    return Promise.race([probe, timeout]);
  }

  it("leaves the customer's row unlocked while the bank answers, and still opens one account", async () => {
    const customerId = await tier2Customer(api, merchant);
    const open = (key: string) =>
      api.call(merchant.apiKey, "/v1/virtual-accounts", {
        method: "POST",
        idempotencyKey: key,
        json: { customer_id: customerId, currency: "USD" },
      });
    const created = await open(nextKey("va"));
    expect(created.status).toBe(201);
    expect(seen).toEqual(["free"]);

    const again = await open(nextKey("va"));
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(created.body.data.id);
    // The customer has its account: the bank is not asked again.
    expect(seen).toEqual(["free"]);
  });
});

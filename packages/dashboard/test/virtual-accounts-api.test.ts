import { beforeAll, describe, expect, it } from "vitest";
import { tier2Customer } from "../../../test/api/verification-fixtures.ts";
import { eventually, type TestMerchant } from "../../../test/support/api-harness.ts";
import { merchantsWithRoleUsers } from "./support/dashboard-client.ts";
import { expectHiddenFromOtherMerchant } from "./support/expect-get-status.ts";
import { useServedDashboard } from "./support/use-dashboard-site.ts";

/**
 * The virtual accounts page's routes: the merchant's accounts (a customer's when asked), masked;
 * one account (full instructions once ACTIVE) and its bank deposits, as /v1 answers them; another
 * merchant's account or customer is 404 or absent.
 */
describe("dashboard virtual accounts routes", () => {
  const { api, dashboard } = useServedDashboard({ workers: true });
  let a: TestMerchant;
  let b: TestMerchant;
  let customerOfA: string;
  let accountOfA: string;
  let accountOfB: string;
  const open = async (m: TestMerchant, customerId: string) => {
    const res = await api.call(m.apiKey, "/v1/virtual-accounts", {
      method: "POST",
      idempotencyKey: `va-${customerId}`,
      json: { customer_id: customerId, currency: "USD" },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data.id as string;
  };

  beforeAll(async () => {
    ({ a, b } = await merchantsWithRoleUsers(api, { a: ["viewer"], b: ["owner"] }));
    customerOfA = await tier2Customer(api, a);
    const otherOfA = await tier2Customer(api, a, { lastName: "Byron" });
    accountOfA = await open(a, customerOfA);
    await open(a, otherOfA);
    accountOfB = await open(b, await tier2Customer(api, b));
  }, 120_000);

  it("lists the merchant's accounts masked, a customer's alone, and refuses a bad filter", async () => {
    const viewer = await dashboard.signedIn("viewer@a.example");
    const all = await viewer.call("GET", `/merchants/${a.merchantId}/virtual-accounts`);
    expect(all.status).toBe(200);
    expect(all.headers.get("cache-control")).toBe("no-store");
    expect(all.body.total).toBe(2);
    expect(all.body.items.map((x: { id: string }) => x.id)).not.toContain(accountOfB);
    for (const item of all.body.items) {
      expect(Object.keys(item.deposit_instructions).sort()).toEqual(["account_number", "account_type", "bank_name"]);
      expect(item.deposit_instructions.account_number).toMatch(/^\*\*\*\*\d{4}$/);
    }
    const one = await viewer.call("GET", `/merchants/${a.merchantId}/virtual-accounts?customer_id=${customerOfA}`);
    expect(one.body.items.map((x: { id: string }) => x.id)).toEqual([accountOfA]);
    const bad = await viewer.call("GET", `/merchants/${a.merchantId}/virtual-accounts?customer_id=nope`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("customer_id");
  });

  it("shows one account in full once ACTIVE, with its bank deposits", async () => {
    const viewer = await dashboard.signedIn("viewer@a.example");
    const account = await eventually(async () => {
      const res = await viewer.call("GET", `/merchants/${a.merchantId}/virtual-accounts/${accountOfA}`);
      return res.body.status === "ACTIVE" ? res : undefined;
    }, 30_000);
    expect(account.body.deposit_instructions.bank_account_number).toMatch(/^\d+$/);
    const credited = await api.call(a.apiKey, "/v1/sandbox/bank-deposits", {
      method: "POST",
      idempotencyKey: "bank-1",
      json: { virtual_account_id: accountOfA, amount: "125.50", reference: "INV-1" },
    });
    expect(credited.status, credited.text).toBe(201);
    const deposits = await viewer.call("GET", `/merchants/${a.merchantId}/virtual-accounts/${accountOfA}/deposits`);
    expect(deposits.status).toBe(200);
    expect(deposits.body.items).toMatchObject([{ amount: "125.500000", reference: "INV-1", customer_id: customerOfA }]);
  });

  it("answers 404 for another merchant's account, and for another merchant's path", async () => {
    const owner = await dashboard.signedIn("owner@b.example");
    const merchants = { owner: a.merchantId, viewer: b.merchantId };
    await expectHiddenFromOtherMerchant(owner, merchants, `virtual-accounts/${accountOfA}`, ["deposits"]);
    const own = await owner.call("GET", `/merchants/${b.merchantId}/virtual-accounts`);
    expect(own.body.items.map((x: { id: string }) => x.id)).toEqual([accountOfB]);
  });
});

import { checkLedger, getMerchantBalance } from "@mp/ledger";
import { createSandboxBankingProvider, isValidAbaRoutingNumber, isValidIban } from "@mp/providers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, eventually, startApiHarness, type TestMerchant } from "../support/api-harness.ts";
import { createCustomer, decided, individualTier1, nextKey, submit, tier2Customer } from "./verification-fixtures.ts";

const MASKED_FIELDS = ["account_number", "account_type", "bank_name"];
const FULL_FIELDS = [
  "account_type",
  "bank_account_number",
  "bank_address",
  "bank_beneficiary_address",
  "bank_beneficiary_name",
  "bank_name",
  "bank_routing_number",
  "bic",
  "deposit_message",
  "iban",
  "payment_rails",
];

describe("USD virtual accounts", () => {
  let api: ApiHarness;
  let a: TestMerchant;
  let b: TestMerchant;
  // The sandbox bank activates 1.5 s after opening: long enough to see PROVISIONING for sure.
  beforeAll(async () => {
    api = await startApiHarness({
      workers: true,
      overrides: { banking: createSandboxBankingProvider({ activationDelayMs: 1_500 }) },
    });
    a = await api.merchant();
    b = await api.merchant();
  });
  afterAll(() => api.stop());

  const open = (m: TestMerchant, json: unknown, idempotencyKey = nextKey("va")) =>
    api.call(m.apiKey, "/v1/virtual-accounts", { method: "POST", idempotencyKey, json });
  const get = (m: TestMerchant, id: string) => api.call(m.apiKey, `/v1/virtual-accounts/${id}`);
  const active = (m: TestMerchant, id: string) =>
    eventually(async () => {
      const res = await get(m, id);
      return res.body.data.status === "PROVISIONING" ? undefined : res;
    }, 20_000);

  it("refuses customers not verified at Tier 2 (422 customer_not_verified), validates the body", async () => {
    const fresh = await createCustomer(api, a);
    const refused = await open(a, { customer_id: fresh, currency: "USD" });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: "customer_not_verified", status: "error", data: {} });

    const tier1Only = await createCustomer(api, a);
    const t1 = await submit(api, a, tier1Only, individualTier1());
    expect((await decided(api, a, tier1Only, t1.body.data.id)).status).toBe("APPROVED");
    expect((await open(a, { customer_id: tier1Only, currency: "USD" })).status).toBe(422);

    for (const [json, field] of [
      [{ customer_id: fresh, currency: "EUR" }, "currency"],
      [{ customer_id: fresh }, "currency"],
      [{ customer_id: "nope", currency: "USD" }, "customer_id"],
      [{ customer_id: fresh, currency: "USD", extra: 1 }, "extra"],
    ] as const) {
      const res = await open(a, json);
      expect(res.status, field).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const missing = await open(a, { customer_id: "00000000-0000-4000-8000-000000000000", currency: "USD" });
    expect(missing.status).toBe(404);
    const list = await api.db.query("SELECT 1 FROM virtual_accounts");
    expect(list.rowCount).toBe(0);
  });

  it("opens one live account per customer: 201 masked and PROVISIONING, then 200 with the same account", async () => {
    const customerId = await tier2Customer(api, a);
    const created = await open(a, { customer_id: customerId, currency: "USD" }, "va-first");
    expect(created.status).toBe(201);
    const account = created.body.data;
    expect(account).toMatchObject({
      customer_id: customerId,
      currency: "USD",
      status: "PROVISIONING",
      failure_reason: null,
    });
    expect(account.supported_rails).toEqual(["ACH", "WIRE", "SWIFT"]);
    expect(Object.keys(account.deposit_instructions).sort()).toEqual(MASKED_FIELDS);
    expect(account.deposit_instructions.account_number).toMatch(/^\*{4}\d{4}$/);
    expect(account.deposit_instructions).toMatchObject({ account_type: "CHECKING", bank_name: "Sandbox Bank, N.A." });

    const replay = await open(a, { customer_id: customerId, currency: "USD" }, "va-first");
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(created.text);
    const second = await open(a, { customer_id: customerId, currency: "USD" });
    expect(second.status).toBe(200);
    expect(second.body.data.id).toBe(account.id);
    expect(second.body.data.deposit_instructions).toEqual(account.deposit_instructions);

    // Masked while PROVISIONING, never cached.
    const early = await get(a, account.id);
    expect(early.status).toBe(200);
    expect(early.headers.get("cache-control")).toBe("no-store");
    expect(early.body.data.status).toBe("PROVISIONING");
    expect(Object.keys(early.body.data.deposit_instructions).sort()).toEqual(MASKED_FIELDS);
  });

  it("answers the full instructions once ACTIVE (valid routing number and IBAN), with no-store", async () => {
    const customerId = await tier2Customer(api, a, { lastName: "Hopper" });
    const created = await open(a, { customer_id: customerId, currency: "USD" });
    const id = created.body.data.id;
    const res = await active(a, id);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const account = res.body.data;
    expect(account.status).toBe("ACTIVE");
    const full = account.deposit_instructions;
    expect(Object.keys(full).sort()).toEqual(FULL_FIELDS);
    expect(full.bank_account_number).toMatch(/^\d{12}$/);
    expect(full.bank_account_number.slice(-4)).toBe(created.body.data.deposit_instructions.account_number.slice(-4));
    expect(isValidAbaRoutingNumber(full.bank_routing_number)).toBe(true);
    expect(isValidIban(full.iban)).toBe(true);
    expect(full.bic).toMatch(/^[A-Z]{6}[A-Z0-9]{2}$/);
    expect(full.bank_beneficiary_name).toBe("Augusta Hopper");
    expect(full.bank_beneficiary_address).toBe("12 Saint James Square, London SW1Y 4JH, GB");
    expect(full.payment_rails).toEqual(["ACH", "WIRE", "SWIFT"]);
    expect(full.deposit_message).toMatch(/^SBX/);

    // A second POST still answers masked (creation responses are always masked).
    const again = await open(a, { customer_id: customerId, currency: "USD" });
    expect(again.status).toBe(200);
    expect(Object.keys(again.body.data.deposit_instructions).sort()).toEqual(MASKED_FIELDS);
    expect(again.text).not.toContain(full.bank_account_number);

    // At rest: ciphertext only, bound to the account id.
    const row = await api.db.query<{ ct: Buffer; key_id: string; json: string }>(
      "SELECT instructions_ciphertext AS ct, instructions_key_id AS key_id, row_to_json(v)::text AS json FROM virtual_accounts v WHERE id = $1",
      [id],
    );
    const stored = row.rows[0];
    if (!stored) throw new Error("no row");
    for (const secret of [full.bank_account_number, full.iban, full.bank_beneficiary_name, full.deposit_message]) {
      expect(stored.ct.includes(Buffer.from(secret)), secret).toBe(false);
      expect(stored.json).not.toContain(secret);
    }
    const sealed = { keyId: stored.key_id, ciphertext: stored.ct };
    expect(api.deps.encryption.openJson(sealed, id)).toMatchObject({
      accountNumber: full.bank_account_number,
      iban: full.iban,
    });
    expect(() => api.deps.encryption.open(sealed, customerId)).toThrow();
  });

  it("opens only one account under concurrent requests with different keys", async () => {
    const customerId = await tier2Customer(api, a, { lastName: "Turing" });
    const answers = await Promise.all([1, 2, 3].map(() => open(a, { customer_id: customerId, currency: "USD" })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(1);
    const rows = await api.db.query("SELECT 1 FROM virtual_accounts WHERE customer_id = $1", [customerId]);
    expect(rows.rowCount).toBe(1);
  });

  it("marks an account the bank declines (magic name Decline) FAILED, and then opens a new one", async () => {
    const customerId = await tier2Customer(api, a, { lastName: "Decline" });
    const first = await open(a, { customer_id: customerId, currency: "USD" });
    expect(first.status).toBe(201);
    const failed = (await active(a, first.body.data.id)).body.data;
    expect(failed.status).toBe("FAILED");
    expect(failed.failure_reason).toContain("declined");
    expect(Object.keys(failed.deposit_instructions).sort()).toEqual(MASKED_FIELDS);
    const retry = await open(a, { customer_id: customerId, currency: "USD" });
    expect(retry.status).toBe(201);
    expect(retry.body.data.id).not.toBe(first.body.data.id);
  });

  it("credits bank deposits to the merchant's USD balance exactly once, lists them, and keeps tenants apart", async () => {
    const m = await api.merchant();
    const customerId = await tier2Customer(api, m, { lastName: "Noether" });
    const account = (await open(m, { customer_id: customerId, currency: "USD" })).body.data;
    const deposit = (json: unknown, key = nextKey("dep"), who = m) =>
      api.call(who.apiKey, "/v1/sandbox/bank-deposits", { method: "POST", idempotencyKey: key, json });

    const tooEarly = await deposit({ virtual_account_id: account.id, amount: "10.00" });
    expect(tooEarly.status).toBe(409);
    await active(m, account.id);

    for (const [amount, why] of [
      ["0", "zero"],
      ["0.000000", "zero"],
      ["1.2345678", "7 dp"],
      ["-5", "negative"],
      ["1e3", "exponent"],
      ["", "empty"],
    ]) {
      const res = await deposit({ virtual_account_id: account.id, amount });
      expect(res.status, why).toBe(400);
      expect(res.body.message).toContain("amount");
    }
    const before = await getMerchantBalance(api.db, m.merchantId);
    const first = await deposit({ virtual_account_id: account.id, amount: "1250.50", reference: "INV-1" }, "dep-once");
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      virtual_account_id: account.id,
      customer_id: customerId,
      amount: "1250.500000",
      currency: "USD",
      reference: "INV-1",
      status: "CREDITED",
    });
    const replay = await deposit({ virtual_account_id: account.id, amount: "1250.50", reference: "INV-1" }, "dep-once");
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    const afterOne = await getMerchantBalance(api.db, m.merchantId);
    expect(afterOne.available - before.available).toBe(1_250_500_000n);

    const second = await deposit({ virtual_account_id: account.id, amount: "0.000001" });
    expect(second.status).toBe(201);
    const afterTwo = await getMerchantBalance(api.db, m.merchantId);
    expect(afterTwo.available - before.available).toBe(1_250_500_001n);
    expect((await getMerchantBalance(api.db, a.merchantId)).available).toBe(0n);
    // One balanced bank_deposit entry per deposit (none for the replay), reconciled with bank_deposits.
    const entries = await api.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'bank_deposit' AND merchant_id = $1",
      [m.merchantId],
    );
    expect(entries.rows[0]?.n).toBe(2);
    const ledger = await checkLedger(api.db);
    expect(ledger.problems).toEqual([]);
    expect(ledger.ok).toBe(true);

    const list = await api.call(m.apiKey, `/v1/virtual-accounts/${account.id}/deposits?limit=1&page=2`);
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ limit: 1, page: 2, total: 2, total_pages: 2 });
    expect(list.body.data.items.map((d: { id: string }) => d.id)).toEqual([first.body.data.id]);

    // Tenant isolation on every route.
    expect((await get(b, account.id)).status).toBe(404);
    expect((await api.call(b.apiKey, `/v1/virtual-accounts/${account.id}/deposits`)).status).toBe(404);
    expect((await open(b, { customer_id: customerId, currency: "USD" })).status).toBe(404);
    expect((await deposit({ virtual_account_id: account.id, amount: "5" }, nextKey("x"), b)).status).toBe(404);
    expect((await getMerchantBalance(api.db, m.merchantId)).available).toBe(afterTwo.available);
    const notFound = await get(b, account.id);
    expect(notFound.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses simulated bank deposits with production keys (403)", async () => {
    const live = await api.merchant("production");
    const res = await api.call(live.apiKey, "/v1/sandbox/bank-deposits", {
      method: "POST",
      idempotencyKey: nextKey("live"),
      json: { virtual_account_id: "00000000-0000-4000-8000-000000000000", amount: "1.00" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "forbidden", status: "error" });
  });
});

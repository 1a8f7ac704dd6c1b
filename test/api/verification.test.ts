import { randomBytes } from "node:crypto";
import { createEncryptionKeyring, DecryptionError } from "@mp/encryption";
import pino from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { eventually, type TestMerchant, useApiHarness } from "../support/api-harness.ts";
import {
  businessTier1,
  businessTier2,
  createCustomer,
  decided,
  individualTier1,
  individualTier2,
  stringValues,
  submit,
} from "./verification-fixtures.ts";

const RESOURCE_FIELDS = [
  "completed_at",
  "created_at",
  "customer_id",
  "customer_type",
  "id",
  "rejection_reasons",
  "status",
  "submitted_at",
  "tier",
  "updated_at",
];

describe("verification submissions", () => {
  const logLines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logLines.push(line) });
  const { api, merchant: a } = useApiHarness({ workers: true, overrides: { logger } });
  /** Another merchant, for the checks that one never sees the other's customers. */
  let b: TestMerchant;
  beforeAll(async () => {
    b = await api.merchant();
  });

  const customer = (id: string) => api.call(a.apiKey, `/v1/customers/${id}`).then((r) => r.body.data);

  it("validates the payload for the tier and the customer's type, naming the field, storing nothing", async () => {
    const person = await createCustomer(api, a, "INDIVIDUAL");
    const business = await createCustomer(api, a, "BUSINESS");
    const owner = (businessTier2().beneficial_owners as Array<Record<string, unknown>>)[0] ?? {};
    const cases: Array<[string, unknown, string]> = [
      [person, {}, "tier"],
      [person, { ...individualTier1(), tier: "TIER_3" }, "tier"],
      [person, individualTier1({ date_of_birth: undefined }), "date_of_birth"],
      [person, individualTier1({ date_of_birth: "2020-02-30" }), "date_of_birth"],
      [person, individualTier1({ date_of_birth: new Date().toISOString().slice(0, 10) }), "date_of_birth"],
      [person, individualTier1({ nationality: "gb" }), "nationality"],
      [person, individualTier1({ email: "not-an-email-xyz" }), "email"],
      [
        person,
        individualTier1({ residential_address: { line1: "x", city: "y", postal_code: "z" } }),
        "residential_address.country",
      ],
      [person, individualTier1({ legal_name: "Acme" }), "legal_name"],
      [person, individualTier2({ identity_document: undefined }), "identity_document"],
      [
        person,
        individualTier2({
          identity_document: { type: "PASSPORT", number: "P1", issuing_country: "GB", expiry_date: "2099-01-01" },
        }),
        "identity_document.number",
      ],
      [
        person,
        individualTier2({
          identity_document: { type: "PASSPORT", number: "P1234567", issuing_country: "GB", expiry_date: "2001-01-01" },
        }),
        "identity_document.expiry_date",
      ],
      [person, individualTier2({ tax_id: undefined }), "tax_id"],
      [person, individualTier2({ source_of_funds: "LOTTERY" }), "source_of_funds"],
      [person, businessTier1(), "first_name"],
      [business, individualTier1(), "legal_name"],
      [business, businessTier1({ registration_number: undefined }), "registration_number"],
      [business, businessTier1({ incorporation_country: "XXX" }), "incorporation_country"],
      [business, businessTier2({ beneficial_owners: [] }), "beneficial_owners"],
      [
        business,
        businessTier2({ beneficial_owners: [{ ...owner, identity_document: undefined }] }),
        "beneficial_owners.0.identity_document",
      ],
      [
        business,
        businessTier2({ beneficial_owners: [{ ...owner, ownership_percentage: 101 }] }),
        "beneficial_owners.0.ownership_percentage",
      ],
      [
        business,
        businessTier2({ beneficial_owners: [owner, { ...owner, ownership_percentage: 50 }] }),
        "beneficial_owners",
      ],
    ];
    for (const [customerId, json, field] of cases) {
      const res = await submit(api, a, customerId, json);
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(res.body.error).toBe("validation_error");
      expect(res.body.message).toContain(field);
      expect(res.text).not.toContain("not-an-email-xyz");
    }
    for (const id of [person, business]) {
      const list = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions`);
      expect(list.body.data.total).toBe(0);
    }
  });

  it("answers 202 with the safe state only, then the sandbox approves it and the customer becomes APPROVED at Tier 1", async () => {
    const id = await createCustomer(api, a);
    const payload = individualTier1({ first_name: "Wilhelmina", email: "wilhelmina.k@example.com" });
    const res = await submit(api, a, id, payload);
    expect(res.status).toBe(202);
    expect(res.body.status).toBe("success");
    const sub = res.body.data;
    expect(Object.keys(sub).sort()).toEqual(RESOURCE_FIELDS);
    expect(sub).toMatchObject({
      customer_id: id,
      customer_type: "INDIVIDUAL",
      tier: "TIER_1",
      status: "SUBMITTED",
      rejection_reasons: [],
      completed_at: null,
    });
    expect(Date.parse(sub.submitted_at)).not.toBeNaN();
    for (const value of stringValues(payload).filter((v) => v.length > 3 && v !== "TIER_1")) {
      expect(res.text).not.toContain(value);
    }
    expect((await customer(id)).status).toBe("UNDER_REVIEW");

    const final = await decided(api, a, id, sub.id);
    expect(final).toMatchObject({ status: "APPROVED", rejection_reasons: [], submitted_at: sub.submitted_at });
    expect(Date.parse(final.completed_at)).toBeGreaterThanOrEqual(Date.parse(sub.submitted_at));
    const got = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions/${sub.id}`);
    expect(Object.keys(got.body.data).sort()).toEqual(RESOURCE_FIELDS);
    expect(got.text).not.toContain("Wilhelmina");
    expect(await customer(id)).toMatchObject({
      status: "APPROVED",
      tier_1_complete: true,
      tier_2_complete: false,
      capabilities: { crypto_deposits: true, virtual_accounts: false, payouts: false },
      rejection_reasons: [],
    });
  });

  it("stores the payload only as AES-256-GCM ciphertext bound to the submission id, nowhere else in clear", async () => {
    const id = await createCustomer(api, a);
    const payload = individualTier1({
      first_name: "Hypatia",
      last_name: "Alexandrina",
      email: "hypatia.alx@example.org",
    });
    const res = await submit(api, a, id, payload);
    const subId = res.body.data.id;
    await decided(api, a, id, subId);
    const row = await api.db.query<{ payload_ciphertext: Buffer; payload_key_id: string; row: string }>(
      "SELECT payload_ciphertext, payload_key_id, row_to_json(s)::text AS row FROM verification_submissions s WHERE id = $1",
      [subId],
    );
    const stored = row.rows[0];
    if (!stored) throw new Error("no row");
    expect(stored.payload_key_id).toBe(api.deps.encryption.currentKeyId);
    // Every personal value (the tier is metadata the row shows in clear).
    const values = stringValues(payload).filter((v) => v.length >= 6 && v !== payload.tier);
    expect(values.length).toBeGreaterThan(4);
    for (const value of values) {
      expect(stored.payload_ciphertext.includes(Buffer.from(value)), value).toBe(false);
      expect(stored.row).not.toContain(value);
    }
    // Nor in the idempotency record, the job queue, or any log line.
    const elsewhere = await api.db.query<{ text: string }>(
      `SELECT string_agg(response_body, ' ') AS text FROM idempotency_keys
       UNION ALL SELECT string_agg(data::text, ' ') FROM pgboss.job`,
    );
    const logs = logLines.join("\n");
    for (const value of values) {
      for (const r of elsewhere.rows) expect(r.text ?? "").not.toContain(value);
      expect(logs).not.toContain(value);
    }
    // It opens with the deployment's key and this id only.
    const sealed = { keyId: stored.payload_key_id, ciphertext: stored.payload_ciphertext };
    expect(api.deps.encryption.openJson(sealed, subId)).toEqual(payload);
    expect(() => api.deps.encryption.open(sealed, res.body.data.customer_id)).toThrow(DecryptionError);
    expect(() => createEncryptionKeyring({ current: randomBytes(32) }).open(sealed, subId)).toThrow(DecryptionError);
    const tampered = Buffer.from(stored.payload_ciphertext);
    tampered[20] = (tampered[20] ?? 0) ^ 0xff;
    expect(() => api.deps.encryption.open({ ...sealed, ciphertext: tampered }, subId)).toThrow(DecryptionError);
  });

  it("applies each sandbox magic value: Review -> REQUIRES_REVIEW, Reject -> REJECTED (individual and business)", async () => {
    const cases: Array<[string, "INDIVIDUAL" | "BUSINESS", Record<string, unknown>, string, string]> = [
      [
        "individual review",
        "INDIVIDUAL",
        individualTier1({ last_name: "Review" }),
        "REQUIRES_REVIEW",
        "REQUIRES_REVIEW",
      ],
      ["individual reject", "INDIVIDUAL", individualTier1({ last_name: "reject" }), "REJECTED", "REJECTED"],
      ["business review", "BUSINESS", businessTier1({ legal_name: "Review" }), "REQUIRES_REVIEW", "REQUIRES_REVIEW"],
      ["business reject", "BUSINESS", businessTier1({ legal_name: "Reject" }), "REJECTED", "REJECTED"],
      ["business approve", "BUSINESS", businessTier1(), "APPROVED", "APPROVED"],
    ];
    for (const [name, type, payload, submissionStatus, customerStatus] of cases) {
      const id = await createCustomer(api, a, type);
      const res = await submit(api, a, id, payload);
      expect(res.status, name).toBe(202);
      const final = await decided(api, a, id, res.body.data.id);
      expect(final.status, name).toBe(submissionStatus);
      const c = await customer(id);
      expect(c.status, name).toBe(customerStatus);
      if (submissionStatus === "APPROVED") {
        expect(final.rejection_reasons).toEqual([]);
        expect(c.capabilities.crypto_deposits).toBe(true);
      } else {
        expect(final.rejection_reasons.length, name).toBeGreaterThan(0);
        expect(c.rejection_reasons).toEqual(final.rejection_reasons);
        expect(c.tier_1_complete).toBe(false);
        // Only a rejection stops crypto; a request for corrections does not (docs/operating.md "Held deposits").
        expect(c.capabilities).toEqual({
          crypto_deposits: customerStatus !== "REJECTED",
          virtual_accounts: false,
          payouts: false,
        });
      }
    }
  });

  it("enforces a rejection: no new wallet (422 customer_not_verified, replayed alike), existing wallets stay", async () => {
    const wallet = (id: string, idempotencyKey: string) =>
      api.call(a.apiKey, "/v1/wallets", { method: "POST", idempotencyKey, json: { customer_id: id, label: "main" } });
    const id = await createCustomer(api, a);
    expect((await wallet(id, `w-before-${id}`)).status).toBe(201);
    const sub = await submit(api, a, id, individualTier1({ last_name: "Reject" }));
    expect((await decided(api, a, id, sub.body.data.id)).status).toBe("REJECTED");
    expect((await customer(id)).capabilities.crypto_deposits).toBe(false);

    const refused = await wallet(id, `w-after-${id}`);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ data: {}, error: "customer_not_verified", status: "error" });
    expect(refused.body.message).toContain("rejected");
    const replay = await wallet(id, `w-after-${id}`);
    expect(replay.status).toBe(422);
    expect(replay.text).toBe(refused.text);
    const count = await api.db.query("SELECT count(*)::int AS n FROM wallets WHERE customer_id = $1", [id]);
    expect(count.rows[0]?.n).toBe(1);
    const openapi = await api.call(undefined, "/openapi.json");
    expect(Object.keys(openapi.body.paths["/v1/wallets"].post.responses)).toContain("422");

    // A customer asked for corrections is not refused.
    const review = await createCustomer(api, a);
    const flagged = await submit(api, a, review, individualTier1({ last_name: "Review" }));
    expect((await decided(api, a, review, flagged.body.data.id)).status).toBe("REQUIRES_REVIEW");
    expect((await wallet(review, `w-review-${review}`)).status).toBe(201);
  });

  it("refuses a second attempt while one is unresolved, accepts a corrected one after REQUIRES_REVIEW, refuses after APPROVED", async () => {
    const id = await createCustomer(api, a);
    const first = await submit(api, a, id, individualTier1({ last_name: "Review" }));
    expect(first.status).toBe(202);
    const whileOpen = await submit(api, a, id, individualTier1());
    expect(whileOpen.status).toBe(409);
    expect(whileOpen.body).toMatchObject({ error: "conflict", status: "error" });
    expect(whileOpen.body.message).toMatch(/SUBMITTED|PENDING/);
    expect((await decided(api, a, id, first.body.data.id)).status).toBe("REQUIRES_REVIEW");
    expect(await customer(id)).toMatchObject({ status: "REQUIRES_REVIEW", tier_1_complete: false });

    const corrected = await submit(api, a, id, individualTier1({ last_name: "Lovelace" }));
    expect(corrected.status).toBe(202);
    expect(corrected.body.data.id).not.toBe(first.body.data.id);
    expect((await decided(api, a, id, corrected.body.data.id)).status).toBe("APPROVED");
    expect(await customer(id)).toMatchObject({ status: "APPROVED", tier_1_complete: true, rejection_reasons: [] });

    // The first attempt is unchanged: attempts are immutable records.
    const old = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions/${first.body.data.id}`);
    expect(old.body.data.status).toBe("REQUIRES_REVIEW");

    const again = await submit(api, a, id, individualTier1());
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("already approved");

    const list = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions`);
    expect(list.body.data).toMatchObject({ total: 2, page: 1, limit: 50, total_pages: 1 });
    expect(list.body.data.items.map((s: { id: string }) => s.id)).toEqual([corrected.body.data.id, first.body.data.id]);
  });

  it("refuses a REJECTED tier for good", async () => {
    const id = await createCustomer(api, a);
    const first = await submit(api, a, id, individualTier1({ last_name: "Reject" }));
    expect((await decided(api, a, id, first.body.data.id)).status).toBe("REJECTED");
    const again = await submit(api, a, id, individualTier1());
    expect(again.status).toBe(409);
    expect(again.body.message).toContain("rejected");
  });

  it("refuses Tier 2 before Tier 1 is approved, then reaches Tier 2 with every capability", async () => {
    const id = await createCustomer(api, a);
    const early = await submit(api, a, id, individualTier2());
    expect(early.status).toBe(409);
    expect(early.body.message).toContain("TIER_1");
    const t1 = await submit(api, a, id, individualTier1());
    const stillEarly = await submit(api, a, id, individualTier2());
    expect(stillEarly.status).toBe(409);
    expect((await decided(api, a, id, t1.body.data.id)).status).toBe("APPROVED");

    const t2 = await submit(api, a, id, individualTier2());
    expect(t2.status).toBe(202);
    expect(t2.body.data.tier).toBe("TIER_2");
    // Under review again while Tier 2 is, but Tier 1's capability stays.
    expect(await customer(id)).toMatchObject({ status: "UNDER_REVIEW", tier_1_complete: true, tier_2_complete: false });
    expect((await decided(api, a, id, t2.body.data.id)).status).toBe("APPROVED");
    expect(await customer(id)).toMatchObject({
      status: "APPROVED",
      tier_1_complete: true,
      tier_2_complete: true,
      capabilities: { crypto_deposits: true, virtual_accounts: true, payouts: true },
    });
  });

  it("reviews a business Tier 2 with beneficial owners; an owner named Review sends it back for correction", async () => {
    const id = await createCustomer(api, a, "BUSINESS");
    const t1 = await submit(api, a, id, businessTier1());
    expect((await decided(api, a, id, t1.body.data.id)).status).toBe("APPROVED");
    const owners = businessTier2().beneficial_owners as Array<Record<string, unknown>>;
    const flagged = await submit(
      api,
      a,
      id,
      businessTier2({ beneficial_owners: [{ ...owners[0], last_name: "Review" }] }),
    );
    expect(flagged.status).toBe(202);
    expect((await decided(api, a, id, flagged.body.data.id)).status).toBe("REQUIRES_REVIEW");
    expect(await customer(id)).toMatchObject({
      status: "REQUIRES_REVIEW",
      tier_1_complete: true,
      tier_2_complete: false,
    });
    const fixed = await submit(api, a, id, businessTier2());
    expect((await decided(api, a, id, fixed.body.data.id)).status).toBe("APPROVED");
    expect(await customer(id)).toMatchObject({ status: "APPROVED", tier_2_complete: true });
  });

  it("accepts a submission while the customer is still PROVISIONING", async () => {
    const res = await api.call(a.apiKey, "/v1/customers", {
      method: "POST",
      idempotencyKey: `prov-${Date.now()}`,
      json: { type: "INDIVIDUAL", first_name: "Early", last_name: "Bird" },
    });
    const id = res.body.data.id;
    const sub = await submit(api, a, id, individualTier1());
    expect(sub.status).toBe(202);
    expect((await decided(api, a, id, sub.body.data.id)).status).toBe("APPROVED");
    const profile = await api.db.query<{ provider_profile_id: string | null }>(
      "SELECT provider_profile_id FROM customers WHERE id = $1",
      [id],
    );
    expect(profile.rows[0]?.provider_profile_id).toMatch(/^kycp_sbx_/);
    expect((await customer(id)).status).toBe("APPROVED");
  });

  it("replays an idempotent submission without creating a second attempt", async () => {
    const id = await createCustomer(api, a);
    const first = await submit(api, a, id, individualTier1(), "same-key-1");
    const replay = await submit(api, a, id, individualTier1(), "same-key-1");
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    const list = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions`);
    expect(list.body.data.total).toBe(1);
  });

  it("isolates merchants and customers: every route answers 404 for another's customer or submission", async () => {
    const mine = await createCustomer(api, a);
    const other = await createCustomer(api, a);
    const sub = await submit(api, a, mine, individualTier1());
    const subId = sub.body.data.id;
    const paths = [
      `/v1/customers/${mine}/verification-submissions`,
      `/v1/customers/${mine}/verification-submissions/${subId}`,
    ];
    for (const path of paths) {
      const res = await api.call(b.apiKey, path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ data: {}, error: "not_found", status: "error" });
    }
    const post = await submit(api, b, mine, individualTier1());
    expect(post.status).toBe(404);
    // A's own submission under A's other customer is not found either.
    const crossed = await api.call(a.apiKey, `/v1/customers/${other}/verification-submissions/${subId}`);
    expect(crossed.status).toBe(404);
    const unknown = await submit(api, a, "00000000-0000-4000-8000-000000000000", individualTier1());
    expect(unknown.status).toBe(404);
  });

  it("lists with pagination and filters, and validates path and query parameters", async () => {
    const id = await createCustomer(api, a);
    const r1 = await submit(api, a, id, individualTier1({ last_name: "Review" }));
    await decided(api, a, id, r1.body.data.id);
    const r2 = await submit(api, a, id, individualTier1({ last_name: "Review" }));
    await decided(api, a, id, r2.body.data.id);
    const r3 = await submit(api, a, id, individualTier1());
    await decided(api, a, id, r3.body.data.id);
    const page = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions?limit=2&page=2`);
    expect(page.body.data).toMatchObject({ limit: 2, page: 2, total: 3, total_pages: 2 });
    expect(page.body.data.items.map((s: { id: string }) => s.id)).toEqual([r1.body.data.id]);
    const filtered = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions?status=REQUIRES_REVIEW`);
    expect(filtered.body.data.total).toBe(2);
    const byTier = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions?tier=TIER_2`);
    expect(byTier.body.data.total).toBe(0);
    for (const query of ["limit=0", "page=0", "tier=TIER_9", "status=DONE"]) {
      const res = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message).toContain(query.split("=")[0]);
    }
    const badId = await api.call(a.apiKey, `/v1/customers/${id}/verification-submissions/not-a-uuid`);
    expect(badId.status).toBe(400);
    expect(badId.body.message).toContain("submission_id");
  });

  it("documents the routes and the four payload shapes in OpenAPI", async () => {
    const doc = await api.call(undefined, "/openapi.json");
    const post = doc.body.paths["/v1/customers/{customer_id}/verification-submissions"].post;
    expect(post.responses["202"]).toBeDefined();
    expect(post.responses["409"]).toBeDefined();
    const schema = post.requestBody.content["application/json"].schema;
    expect(schema.oneOf).toHaveLength(4);
  });

  it("never logs a payload value", async () => {
    await eventually(async () => (logLines.length > 0 ? true : undefined));
    const logs = logLines.join("\n");
    for (const value of ["augusta@example.com", "QQ123456C", "P1234567", "Saint James Square"]) {
      expect(logs).not.toContain(value);
    }
    expect(logs).toContain("verification review decided");
  });
});

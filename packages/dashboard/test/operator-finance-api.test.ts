import { createEvmHoldingsReader, evmSendCheck } from "@mp/chain-evm";
import { type IndexerState, resolveChainConfig } from "@mp/core";
import { exportJournalCsv } from "@mp/ledger";
import { createManualKycProvider, recordSanctionsMatch, STATEMENT_CSV_COLUMNS } from "@mp/providers";
import { requestSend, storeTreasuryBalances } from "@mp/treasury";
import { Counter, Registry } from "prom-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createCustomer, individualTier1, submit } from "../../../test/api/verification-fixtures.ts";
import { eventually, type TestMerchant, useApiHarness } from "../../../test/support/api-harness.ts";
import { createMerchant as createLedgerMerchant, creditDeposit } from "../../ledger/test/ledger-fixtures.ts";
import { createDashboardRouter, createUser } from "../src/index.ts";
import { createRoleUsers, PASSWORD } from "./support/dashboard-client.ts";
import { expectGetStatus } from "./support/expect-get-status.ts";
import { useDashboardSite } from "./support/use-dashboard-site.ts";

const ADMIN = "admin@example.com";

/** Every operator route (and the platform-wide finance ones): the admin's only. */
const OPERATOR_READS = [
  "/operator/merchants",
  "/operator/chains",
  "/operator/jobs",
  "/operator/sanctions",
  "/operator/treasury",
  "/operator/kyc-reviews",
  "/finance/ledger-check",
  "/finance/journal.csv?from=2020-01-01&to=2030-01-01",
  "/finance/reconcile/chains",
  "/finance/reconcile/bank",
];

/** An indexer's state as the leases and progress tables give it (GET /v1/chains's source). */
function indexerState(chain: IndexerState["chain"], head: number, indexed: number): IndexerState {
  return {
    chain,
    headHeight: head,
    indexedHeight: indexed,
    lag: head - indexed,
    updatedAt: new Date(),
    stoppedError: null,
    leader: { host: "indexer-1", pid: 42, since: new Date(), epoch: 1 },
  };
}

describe("dashboard operator and finance routes (roles, CSRF, audit log)", () => {
  const { api, merchant } = useApiHarness({
    workers: true,
    overrides: (db) => ({ kyc: createManualKycProvider({ db }) }),
  });
  let other: TestMerchant;
  let states: IndexerState[];
  const metrics = new Registry();
  const rpcErrors = new Counter({
    name: "indexer_rpc_errors_total",
    help: "Failed calls to the chain's node",
    labelNames: ["chain"],
    registers: [metrics],
  });

  const audit = async (objectId: string) =>
    (
      await api.db.query<{ actor: string; action: string }>(
        "SELECT actor, action FROM operator_audit_log WHERE object_id = $1 ORDER BY id",
        [objectId],
      )
    ).rows;

  const dashboard = useDashboardSite(() =>
    createDashboardRouter({
      ...api.deps,
      metrics,
      indexerStates: async () => states,
      signInsPerMinute: 1000,
      // A configured chain whose node is down: the reconciliation says so instead of failing.
      chainTargets: () => {
        const config = resolveChainConfig("ARBITRUM", { rpcUrl: "http://127.0.0.1:9", network: "regtest" });
        const assets = [{ asset: "ETH", address: null, decimals: 18 }];
        return [{ config, assets, reader: createEvmHoldingsReader(config, assets) }];
      },
    }),
  );

  beforeAll(async () => {
    states = [indexerState("ETHEREUM", 120, 118)];
    other = await api.merchant();
    await createRoleUsers(api.db, merchant.merchantId);
  });

  it("answers 401 without a session and 403 to every merchant role on the operator routes", async () => {
    const anonymous = dashboard.client();
    await expectGetStatus(anonymous, 401, OPERATOR_READS);
    for (const email of ["owner@a.example", "finance@a.example", "viewer@a.example", "developer@a.example"]) {
      const client = await dashboard.signedIn(email);
      for (const path of OPERATOR_READS) {
        const answer = await client.call("GET", path);
        expect(answer.status, `${email} ${path}`).toBe(403);
        expect(answer.body.error).toBe("forbidden");
      }
      const writes = [
        ["/operator/merchants", { name: "Sneaky", environment: "sandbox" }],
        [`/operator/merchants/${other.merchantId}/disable`, undefined],
      ] as const;
      for (const [path, json] of writes) {
        expect((await client.call("POST", path, json ? { json } : {})).status, `${email} POST ${path}`).toBe(403);
      }
      expect((await client.call("POST", "/finance/bank-statements?file_name=x.csv", { text: "x" })).status).toBe(403);
    }
    const admin = await dashboard.signedIn(ADMIN);
    await expectGetStatus(
      admin,
      200,
      OPERATOR_READS.filter((p) => p !== "/finance/reconcile/chains"),
    );
  });

  it("creates a merchant (key shown once), disables it so its key answers 401 on /v1, and enables it: audited, CSRF-checked", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const body = { name: "Created in the dashboard", environment: "sandbox" };
    expect((await admin.call("POST", "/operator/merchants", { json: body, csrf: null })).status).toBe(403);
    expect((await admin.call("POST", "/operator/merchants", { json: { name: "", environment: "x" } })).status).toBe(
      400,
    );
    const created = await admin.call("POST", "/operator/merchants", { json: body });
    expect(created.status).toBe(201);
    expect(created.body.api_key).toMatch(/^sk_sandbox_/);
    const id: string = created.body.id;
    expect((await api.call(created.body.api_key, "/v1/balance")).status).toBe(200);
    const listed = await admin.call("GET", "/operator/merchants");
    expect(listed.body.items.find((m: { id: string }) => m.id === id)).toMatchObject({
      name: body.name,
      disabled_at: null,
    });

    expect((await admin.call("POST", `/operator/merchants/${id}/disable`, { csrf: null })).status).toBe(403);
    expect((await api.call(created.body.api_key, "/v1/balance")).status).toBe(200);
    const disabled = await admin.call("POST", `/operator/merchants/${id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body.disabled_at).not.toBeNull();
    const refused = await api.call(created.body.api_key, "/v1/balance");
    expect(refused.status).toBe(401);
    // The other merchants' keys are untouched.
    expect((await api.call(merchant.apiKey, "/v1/balance")).status).toBe(200);
    expect((await admin.call("POST", `/operator/merchants/${id}/enable`)).body.disabled_at).toBeNull();
    expect((await api.call(created.body.api_key, "/v1/balance")).status).toBe(200);
    expect((await admin.call("POST", "/operator/merchants/00000000-0000-4000-8000-000000000000/disable")).status).toBe(
      404,
    );
    expect(await audit(id)).toEqual([
      { actor: `dashboard:${ADMIN}`, action: "merchant.created" },
      { actor: `dashboard:${ADMIN}`, action: "merchant.disabled" },
      { actor: `dashboard:${ADMIN}`, action: "merchant.enabled" },
    ]);
  });

  it("shows each chain's head, indexed height, lag over time, RPC errors and state", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    rpcErrors.inc({ chain: "ETHEREUM" }, 3);
    await admin.call("GET", "/operator/chains");
    states = [indexerState("ETHEREUM", 150, 100)];
    const answer = await admin.call("GET", "/operator/chains");
    expect(answer.status).toBe(200);
    const [ethereum] = answer.body.items;
    expect(ethereum).toMatchObject({
      chain: "ETHEREUM",
      state: "lagging",
      head_height: 150,
      indexed_height: 100,
      lag: 50,
      rpc_errors: 3,
      leader: { host: "indexer-1", pid: 42 },
    });
    expect(ethereum.lag_history.map((s: { lag: number }) => s.lag).slice(-2)).toEqual([2, 50]);
    states = [{ ...indexerState("ETHEREUM", 150, 150), stoppedError: "wrong network: chain id 1, expected 31337" }];
    expect((await admin.call("GET", "/operator/chains")).body.items[0]).toMatchObject({
      state: "stopped",
      stopped_error: "wrong network: chain id 1, expected 31337",
    });
  });

  it("lists the job queues by state with the oldest waiting job, and the failed jobs", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    await api.deps.jobs.send("customer.provision", { customerId: "00000000-0000-4000-8000-000000000000" });
    await api.db.query(
      `UPDATE pgboss.job SET state = 'failed', completed_on = now(), output = '{"message":"boom"}'
        WHERE id = (SELECT id FROM pgboss.job WHERE name = 'customer.provision' ORDER BY created_on DESC LIMIT 1)`,
    );
    const answer = await admin.call("GET", "/operator/jobs");
    expect(answer.status).toBe(200);
    const provision = answer.body.queues.find((q: { queue: string }) => q.queue === "customer.provision");
    expect(provision.counts.failed).toBeGreaterThanOrEqual(1);
    expect(answer.body.failed[0]).toMatchObject({ queue: "customer.provision", error: "boom" });
  });

  it("lists sanctions matches, latest first (docs/sanctions.md)", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const hit = { address: "0x01e2919679362dFBC9ee1644Ba9C6da6D6245BB1", list: "sanctioned_addresses_ETH.txt" };
    await recordSanctionsMatch(api.db, { context: "quote", hit, chain: "BASE", merchantId: null, reference: null });
    await recordSanctionsMatch(api.db, {
      context: "treasury_send",
      hit,
      chain: "ETHEREUM",
      merchantId: null,
      reference: "op-key",
    });
    const answer = await admin.call("GET", "/operator/sanctions");
    expect(answer.status).toBe(200);
    expect(answer.body.held_deposits).toEqual([]);
    expect(answer.body.matches).toEqual([
      expect.objectContaining({ context: "treasury_send", chain: "ETHEREUM", reference: "op-key", ...hit }),
      expect.objectContaining({ context: "quote", chain: "BASE", reference: null, ...hit }),
    ]);
  });

  it("shows treasury balances and pending sends with their reasons, amounts as exact decimal strings", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    await storeTreasuryBalances(api.db, "ETHEREUM", [
      { asset: "USDC", amountRaw: 12_345_678_901_234_567n, decimals: 6 },
    ]);
    const { send } = await requestSend(
      api.db,
      {
        chain: "ETHEREUM",
        asset: "USDC",
        to: "0x000000000000000000000000000000000000dEaD",
        amountRaw: 1_000_001n,
        purpose: "operator",
        idempotencyKey: "dashboard-test",
      },
      evmSendCheck,
    );
    const answer = await admin.call("GET", "/operator/treasury");
    expect(answer.body.balances).toEqual([
      expect.objectContaining({ chain: "ETHEREUM", asset: "USDC", amount: "12345678901.234567" }),
    ]);
    expect(answer.body.pending_sends).toEqual([
      expect.objectContaining({ id: send.id, amount: "1.000001", state: send.state, reason: send.reason }),
    ]);
  });

  it("decides the manual KYC review queue as the CLI does: the customer follows, the decision is audited", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const pending = async () => {
      const customerId = await createCustomer(api, merchant);
      const res = await submit(api, merchant, customerId, individualTier1({ last_name: "Lovelace" }));
      expect(res.status).toBe(202);
      const submissionId: string = res.body.data.id;
      await eventually(async () => {
        const queue = await admin.call("GET", "/operator/kyc-reviews");
        return queue.body.items.some((r: { submission_id: string }) => r.submission_id === submissionId)
          ? true
          : undefined;
      });
      return { customerId, submissionId };
    };
    const customerStatus = async (customerId: string) =>
      (await api.call(merchant.apiKey, `/v1/customers/${customerId}`)).body.data.status;

    const first = await pending();
    const decision = `/operator/kyc-reviews/${first.submissionId}/decision`;
    expect((await admin.call("POST", decision, { json: { decision: "approve" }, csrf: null })).status).toBe(403);
    expect((await admin.call("POST", decision, { json: { decision: "reject", reasons: [] } })).status).toBe(400);
    const approved = await admin.call("POST", decision, { json: { decision: "approve" } });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: "APPROVED", decided_by: `dashboard:${ADMIN}` });
    await eventually(async () => ((await customerStatus(first.customerId)) === "APPROVED" ? true : undefined));
    expect((await admin.call("POST", decision, { json: { decision: "approve" } })).status).toBe(409);
    expect(await audit(first.submissionId)).toEqual([{ actor: `dashboard:${ADMIN}`, action: "kyc.approved" }]);

    const second = await pending();
    const review = await admin.call("POST", `/operator/kyc-reviews/${second.submissionId}/decision`, {
      json: { decision: "request_review", reasons: ["The date of birth does not match the document"] },
    });
    expect(review.body).toMatchObject({
      status: "REQUIRES_REVIEW",
      reasons: ["The date of birth does not match the document"],
    });
    const attempt = await eventually(async () => {
      const answer = await api.call(
        merchant.apiKey,
        `/v1/customers/${second.customerId}/verification-submissions/${second.submissionId}`,
      );
      return answer.body.data.status === "REQUIRES_REVIEW" ? answer.body.data : undefined;
    });
    expect(attempt.status).toBe("REQUIRES_REVIEW");
    const decided = await admin.call("GET", "/operator/kyc-reviews?status=ALL");
    expect(decided.body.items.map((r: { status: string }) => r.status)).toEqual(["APPROVED", "REQUIRES_REVIEW"]);
  });

  it("runs the ledger check, and streams the journal CSV the CLI writes: the platform's to the admin, a merchant's to its finance people", async () => {
    const from = new Date(Date.now() - 1000);
    const ledgerMerchant = await createLedgerMerchant(api.db);
    await creditDeposit(api.db, ledgerMerchant, { gross: 12_500_000n, fee: 250_000n });
    const to = new Date(Date.now() + 60_000);
    const admin = await dashboard.signedIn(ADMIN);
    const check = await admin.call("GET", "/finance/ledger-check");
    expect(check.body).toMatchObject({ ok: true, problems: [] });
    expect(check.body.entries).toBeGreaterThanOrEqual(1);

    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    const expected = async (merchantId?: string) => {
      const lines: string[] = [];
      await exportJournalCsv(api.db, { from, to, merchantId }, (line) => lines.push(line));
      return `${lines.join("\n")}\n`;
    };
    const all = await admin.call("GET", `/finance/journal.csv?${range}`);
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(all.headers.get("content-disposition")).toMatch(/^attachment; filename="journal-/);
    expect(all.text).toBe(await expected());
    expect(all.text.split("\n")).toHaveLength(5);
    expect((await admin.call("GET", "/finance/journal.csv?from=yesterday&to=2030-01-01")).status).toBe(400);

    // The finance user of the merchant of this ledger fixture: its own lines only.
    await createUser(api.db, {
      email: "finance@ledger.example",
      role: "finance",
      merchantId: ledgerMerchant.merchantId,
      password: PASSWORD,
      actor: "test",
    });
    const finance = await dashboard.signedIn("finance@ledger.example");
    const own = await finance.call("GET", `/merchants/${ledgerMerchant.merchantId}/finance/journal.csv?${range}`);
    expect(own.text).toBe(await expected(ledgerMerchant.merchantId));
    expect(own.text.split("\n")).toEqual([
      "entry_id,created_at,kind,reference,account,merchant_id,debit,credit,currency",
      expect.stringMatching(`,merchant_available,${ledgerMerchant.merchantId},,12.250000,USD$`),
      "",
    ]);
    expect((await finance.call("GET", `/merchants/${merchant.merchantId}/finance/journal.csv?${range}`)).status).toBe(
      404,
    );
    const viewer = await dashboard.signedIn("viewer@a.example");
    expect((await viewer.call("GET", `/merchants/${merchant.merchantId}/finance/journal.csv?${range}`)).status).toBe(
      403,
    );
    const exports = await api.db.query<{ actor: string }>(
      "SELECT actor FROM operator_audit_log WHERE action = 'ledger.exported' ORDER BY id",
    );
    expect(exports.rows.map((r) => r.actor).slice(-2)).toEqual([
      `dashboard:${ADMIN}`,
      "dashboard:finance@ledger.example",
    ]);
  });

  it("reconciles the chains, saying which cannot be read", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const answer = await admin.call("GET", "/finance/reconcile/chains");
    expect(answer.status).toBe(200);
    expect(answer.body.exit_code).toBe(2);
    expect(answer.body.unreadable).toEqual(["ARBITRUM"]);
    expect(answer.body.lines[0]).toMatchObject({ chain: "ARBITRUM", status: "unreadable", chain_holdings: null });
  });

  it("imports a bank statement (CSRF-checked, audited) and shows its unmatched lines in the bank reconciliation", async () => {
    const admin = await dashboard.signedIn(ADMIN);
    const csv = `${STATEMENT_CSV_COLUMNS.join(",")}\n2026-11-02,US000111222,CREDIT,250.10,USD,BANKREF-1,INV-7,ACME Corp\n`;
    const path = "/finance/bank-statements?file_name=november.csv";
    expect((await admin.call("POST", path, { text: csv, csrf: null })).status).toBe(403);
    const imported = await admin.call("POST", path, { text: csv });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body).toMatchObject({ format: "csv", lines: 1, credited: 0, unmatched: 1 });
    expect(imported.body.unmatched_lines).toEqual([
      expect.objectContaining({
        amount: "250.10",
        account: "US000111222",
        reason: "no virtual account has the number US000111222",
      }),
    ]);
    const bank = await admin.call("GET", "/finance/reconcile/bank");
    expect(bank.body.imports[0]).toMatchObject({
      id: imported.body.import_id,
      file_name: "november.csv",
      unmatched: 1,
      imported_by: `dashboard:${ADMIN}`,
    });
    expect(bank.body.unmatched).toHaveLength(1);
    expect(await audit(imported.body.import_id)).toEqual([
      { actor: `dashboard:${ADMIN}`, action: "bank_statement.imported" },
    ]);
    const broken = await admin.call("POST", path, { text: "not,a,statement\n1,2,3\n" });
    expect(broken.status).toBe(400);
  });
});

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@mp/core";
import {
  createListScreeningProvider,
  parseSanctionsList,
  registerSanctionsMetrics,
  SANDBOX_SANCTIONED_ADDRESSES,
} from "@mp/providers";
import { executeTransfersOnce } from "@mp/transfers";
import { beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { PAYEE, useTransfersApi } from "./transfers-support.ts";

/** The real OFAC lists (../shared/fixtures/sanctions, SOURCES.md), read where they live. */
const LISTS = fileURLToPath(new URL("../../../shared/fixtures/sanctions/", import.meta.url));
const haveLists = existsSync(LISTS);
if (!haveLists) console.warn(`skipping sanctioned destinations: ${LISTS} is absent (../shared not beside the repo)`);

/**
 * A payout to an address of the real OFAC SDN list is refused when quoting, 422
 * destination_sanctioned in the spec's error shape (every answer is checked against /openapi.json),
 * nothing stored but the match, which operators see (sanctions_matches, the audit log, /metrics).
 */
describe.skipIf(!haveLists)("transfers: no payout to a sanctioned address (real OFAC list)", () => {
  const { t, a, customer } = useTransfersApi();

  beforeAll(async () => {
    t.api.deps.sanctions = await createListScreeningProvider({ path: LISTS, sandbox: true, logger: silentLogger() });
    registerSanctionsMetrics(t.api.deps.metrics, t.api.db);
  });

  const quoteTo = (network: string, asset: string, address: string) =>
    t.requestQuote(a, customer.customerId, {
      source: { method: "BALANCE" },
      destination: { type: "CRYPTO_ADDRESS", asset, network, address },
      source_amount: "10.00",
    });

  it("refuses a listed EVM address in any case and the sandbox's magic one with 422 destination_sanctioned, and counts them", async () => {
    const eth = parseSanctionsList("ETH", readFileSync(`${LISTS}sanctioned_addresses_ETH.txt`, "utf8"));
    const listed = eth.find((address) => address !== address.toLowerCase());
    const [magic] = SANDBOX_SANCTIONED_ADDRESSES;
    if (!listed || !magic) throw new Error("a checksum-case listed address and a magic one");
    const before = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    for (const address of [listed, listed.toLowerCase(), magic]) {
      const refused = await quoteTo("BASE", "USDC", address);
      expect(refused.status, address).toBe(422);
      expect(refused.body).toMatchObject({
        status: "error",
        error: "destination_sanctioned",
        message: expect.stringMatching(
          /^destination\.address: .* is on a sanctions list \((sanctioned_addresses_ETH\.txt|sandbox)\)/,
        ),
      });
    }
    const after = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    expect(after.rows).toEqual(before.rows);
    const matches = await t.api.db.query<{ context: string; list: string; chain: string; merchant_id: string }>(
      "SELECT context, list, chain, merchant_id FROM sanctions_matches ORDER BY id",
    );
    expect(matches.rows).toEqual([
      { context: "quote", list: "sanctioned_addresses_ETH.txt", chain: "BASE", merchant_id: a.merchantId },
      { context: "quote", list: "sanctioned_addresses_ETH.txt", chain: "BASE", merchant_id: a.merchantId },
      { context: "quote", list: "sandbox", chain: "BASE", merchant_id: a.merchantId },
    ]);
    const audited = await t.api.db.query(
      "SELECT count(*)::int AS n FROM operator_audit_log WHERE action = 'destination_refused'",
    );
    expect(audited.rows).toEqual([{ n: 3 }]);
    const metrics = await t.api.call(undefined, "/metrics");
    expect(metrics.text).toContain('payments_sanctions_matches{context="quote"} 3');
    expect(metrics.text).toContain('payments_sanctions_matches{context="deposit"} 0');
    // An address on no list is quoted as ever.
    expect((await quoteTo("BASE", "USDC", PAYEE)).status).toBe(201);
  });

  it("fails a funded payout at once when its destination was listed after the quote: nothing sent, holds released", async () => {
    await t.credit(a, customer.virtualAccountId, "200");
    const before = await t.balance(a);
    const quote = await t.quote(a, customer.customerId, { source: { method: "BALANCE" } });
    const transfer = (await t.transfer(a, quote.id)).body.data;
    expect(transfer.status).toBe("FUNDED");
    // The operator's list now names the payee (a refreshed list file).
    const listFile = join(mkdtempSync(join(tmpdir(), "sanctions-payee-")), "sanctioned_addresses_ETH.txt");
    writeFileSync(listFile, `${PAYEE}\n`);
    const sanctions = await createListScreeningProvider({ path: listFile, sandbox: false, logger: silentLogger() });
    await executeTransfersOnce(t.api.db, transferTreasury, { sanctions });
    expect((await t.call(a, `/v1/transfers/${transfer.id}`)).body.data.status).toBe("FAILED");
    const sends = await t.api.db.query("SELECT 1 FROM treasury_sends WHERE idempotency_key = $1", [transfer.id]);
    expect(sends.rowCount).toBe(0);
    expect(await t.balance(a)).toEqual(before);
    const matches = await t.api.db.query<{ context: string; reference: string }>(
      "SELECT context, reference FROM sanctions_matches WHERE context = 'payout'",
    );
    expect(matches.rows).toEqual([{ context: "payout", reference: transfer.id }]);
    await t.expectLedgerClean();
  });
});

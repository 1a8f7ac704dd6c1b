import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createEvmAdapter } from "@mp/chain-evm";
import { resolveChainConfig, silentLogger } from "@mp/core";
import { createWatchSet } from "@mp/custody";
import type { TestDatabase } from "@mp/db/testing";
import { createTestDatabase } from "@mp/db/testing";
import { createIndexer, type Indexer } from "@mp/indexer";
import { getMerchantBalance } from "@mp/ledger";
import {
  type AddressScreening,
  createListScreeningProvider,
  createSandboxRateProvider,
  parseSanctionsList,
} from "@mp/providers";
import {
  type AnvilNode,
  minedTransaction,
  sendFromUnlocked,
  type TestToken,
  testTokenAbi,
  transferToken,
} from "@mp/test-nodes/evm";
import { type Address, encodeFunctionData, getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilWithUsdc, startAnvilWithUsdc } from "../support/anvil-usdc.ts";
import { addWallet, catchUp, createMerchant, depositsOf, expectedFee, expectLedgerOk } from "./indexer-fixtures.ts";

/** The real OFAC lists (../shared/fixtures/sanctions, SOURCES.md), read where they live. */
const LISTS = fileURLToPath(new URL("../../../shared/fixtures/sanctions/", import.meta.url));
const haveLists = existsSync(LISTS);
if (!haveLists)
  console.warn(`skipping sanctioned deposits on anvil: ${LISTS} is absent (../shared not beside the repo)`);

/**
 * A deposit sent on a local anvil from an address of the real OFAC SDN list (impersonated, the way
 * a sanctioned wallet would pay) is credited to the merchant's held account with held_reason
 * sanctions_match, never to available; the match is recorded once and audited.
 */
describe.skipIf(!haveLists)("deposits from a sanctioned sender (real OFAC list, anvil impersonation)", () => {
  let anvil: AnvilWithUsdc;
  let node: AnvilNode;
  let usdc: TestToken;
  let testDb: TestDatabase;
  let screening: AddressScreening;
  let sanctioned: Address;

  beforeAll(async () => {
    [anvil, testDb] = await Promise.all([startAnvilWithUsdc({ chainId: 8453 }), createTestDatabase()]);
    ({ node, usdc } = anvil);
    screening = await createListScreeningProvider({ path: LISTS, sandbox: false, logger: silentLogger() });
    const eth = parseSanctionsList("ETH", readFileSync(`${LISTS}sanctioned_addresses_ETH.txt`, "utf8"));
    // Checksum case on the list; the chain reports it in lower case: matched either way.
    const listed = eth.find((address) => address !== address.toLowerCase());
    if (!listed) throw new Error("the ETH list has checksum-case addresses");
    sanctioned = getAddress(listed);
    await node.testClient.impersonateAccount({ address: sanctioned });
    await node.testClient.setBalance({ address: sanctioned, value: 10n ** 18n });
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await testDb?.drop();
  });

  /** A USDC transfer signed by anvil on behalf of `from` (impersonated or a dev account). */
  async function payFrom(from: Address, to: string, amount: bigint): Promise<void> {
    const data = encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [getAddress(to), amount] });
    const mined = await minedTransaction(node, await sendFromUnlocked(node, { from, to: usdc.address, data }));
    expect(mined.status).toBe("success");
  }

  it("holds the deposit with sanctions_match, records the match once, and credits a clean sender's to available", async () => {
    const { db } = testDb;
    const config = resolveChainConfig("BASE", anvil.baseChain({ confirmations: 2, pollIntervalMs: 50, batchSize: 50 }));
    const indexer = createIndexer({
      db,
      adapter: createEvmAdapter(config, { timeoutMs: 10_000 }),
      config,
      watch: createWatchSet(db, "BASE"),
      rates: createSandboxRateProvider(),
      screening,
      logger: silentLogger(),
    });
    try {
      await depositsFromBoth(indexer);
    } finally {
      await indexer.stop();
    }
  }, 180_000);

  async function depositsFromBoth(indexer: Indexer): Promise<void> {
    const { db } = testDb;
    const merchant = await createMerchant(db);
    const address = privateKeyToAccount(generatePrivateKey()).address;
    await addWallet(db, merchant, "BASE", address);

    const amount = 7_000_123n;
    await transferToken(node, usdc, sanctioned, amount);
    await payFrom(sanctioned, address, amount);
    await node.mine(2);
    await catchUp(indexer);
    const [held] = await depositsOf(db, merchant.merchantId);
    expect(held?.status).toBe("CONFIRMED");
    const { rows } = await db.query<{ hold_status: string; held_reason: string; from_address: string }>(
      "SELECT hold_status, held_reason, from_address FROM deposits WHERE id = $1",
      [held?.id],
    );
    expect(rows[0]).toEqual({
      hold_status: "HELD",
      held_reason: "sanctions_match",
      from_address: sanctioned,
    });
    const net = amount - expectedFee(merchant, amount);
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: 0n, reserved: 0n, held: net });

    // A clean sender's deposit to the same address is credited to available as ever.
    const clean = node.accounts[1]?.address;
    if (!clean) throw new Error("anvil's second dev account");
    await transferToken(node, usdc, clean, amount);
    await payFrom(clean, address, amount);
    await node.mine(2);
    await catchUp(indexer);
    await indexer.tick();
    expect(await getMerchantBalance(db, merchant.merchantId)).toEqual({ available: net, reserved: 0n, held: net });
    await expectLedgerOk(db);

    const matches = await db.query<{ context: string; address: string; list: string; reference: string }>(
      "SELECT context, address, list, reference FROM sanctions_matches",
    );
    expect(matches.rows).toEqual([
      {
        context: "deposit",
        address: sanctioned,
        list: "sanctioned_addresses_ETH.txt",
        reference: held?.id,
      },
    ]);
    const audit = await db.query<{ actor: string; action: string }>(
      "SELECT actor, action FROM operator_audit_log WHERE object_type = 'sanctions_match'",
    );
    expect(audit.rows).toEqual([{ actor: "sanctions-screening", action: "deposit_held" }]);
  }
});

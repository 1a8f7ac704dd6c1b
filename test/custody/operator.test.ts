import { randomUUID } from "node:crypto";
import { NotFoundError, ValidationError } from "@mp/core";
import { createCustody, exportWalletsCsv, verifyCustody, WALLETS_CSV_HEADER } from "@mp/custody";
import { beforeAll, describe, expect, it } from "vitest";
import { ABANDON_MNEMONIC, TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { insertCustomer, insertMerchant, insertWallet } from "../../packages/custody/test/support-db.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";
import { useTestDatabase } from "../support/test-database.ts";

const custody = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

const testDb = useTestDatabase();
let merchantA: string;
let merchantB: string;
const walletsOfA: string[] = [];

beforeAll(async () => {
  merchantA = await insertMerchant(testDb.db, 0);
  merchantB = await insertMerchant(testDb.db, 1);
  for (const [merchantId, account, count] of [
    [merchantA, 0, 3],
    [merchantB, 1, 2],
  ] as const) {
    const customerId = await insertCustomer(testDb.db, merchantId);
    for (let index = 0; index < count; index++) {
      const walletId = await insertWallet(testDb.db, {
        merchantId,
        customerId,
        index,
        destinations: custody.deriveWalletAddresses(account, index),
      });
      if (merchantId === merchantA) walletsOfA.push(walletId);
    }
  }
});
describe("verifyCustody", () => {
  it("re-derives every destination and finds nothing wrong", async () => {
    const progress: number[] = [];
    const result = await verifyCustody(testDb.db, custody, { pageSize: 7, onProgress: (n) => progress.push(n) });
    expect(result).toEqual({ checked: 50, mismatches: [] });
    expect(progress.at(-1)).toBe(50);
    expect(await verifyCustody(testDb.db, custody, { merchantId: merchantB })).toEqual({ checked: 20, mismatches: [] });
  });

  it("reports every destination another mnemonic would not control", async () => {
    const other = createCustody(ABANDON_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const result = await verifyCustody(testDb.db, other, { merchantId: merchantB });
    expect(result.checked).toBe(20);
    expect(result.mismatches).toHaveLength(20);
    expect(new Set(result.mismatches.map((m) => m.problem))).toEqual(new Set(["address"]));
  });

  it("reports tampered rows, each with its problem", async () => {
    const db = testDb.db;
    const [w0, w1, w2] = walletsOfA;
    await db.query(
      "UPDATE destinations SET address = 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK' WHERE wallet_id = $1 AND chain = 'TRON'",
      [w0],
    );
    // Mainnet coin type under a regtest deployment.
    await db.query(
      "UPDATE destinations SET derivation_path = 'm/84''/0''/0''/0/1' WHERE wallet_id = $1 AND chain = 'BITCOIN'",
      [w1],
    );
    // Wallet 2's Solana row carrying the (genuine) address of index 7: right keys, wrong allocation.
    const index7 = custody.deriveAddress("SOLANA", 0, 7);
    await db.query(
      "UPDATE destinations SET address = $2, address_key = $2, derivation_path = $3 WHERE wallet_id = $1 AND chain = 'SOLANA'",
      [w2, index7.address, index7.path],
    );
    await db.query("UPDATE destinations SET address_key = address WHERE wallet_id = $1 AND chain = 'CELO'", [w2]);
    await db.query("UPDATE destinations SET derivation_path = 'm/0/1' WHERE wallet_id = $1 AND chain = 'BASE'", [w2]);
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
       VALUES ($1, $2, $3, 'DOGE', 'D1', 'D1', 'm/44''/3''/0''/0/0')`,
      [randomUUID(), w0, merchantA],
    );

    const result = await verifyCustody(db, custody, { merchantId: merchantA, pageSize: 4 });
    expect(result.checked).toBe(31);
    const found = result.mismatches.map((m) => [m.walletId, m.chain, m.problem]);
    expect(found).toEqual(
      expect.arrayContaining([
        [w0, "TRON", "address"],
        [w1, "BITCOIN", "path"],
        [w2, "SOLANA", "allocation"],
        [w2, "CELO", "address_key"],
        [w2, "BASE", "unparseable_path"],
        [w0, "DOGE", "unknown_chain"],
      ]),
    );
    expect(found).toHaveLength(6);
    const tron = result.mismatches.find((m) => m.chain === "TRON");
    expect(tron?.derived).toEqual(custody.deriveAddress("TRON", 0, 0));
    expect(tron?.stored.address).toBe("TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK");
    // Merchant B is untouched.
    expect((await verifyCustody(db, custody, { merchantId: merchantB })).mismatches).toEqual([]);
  });

  it("rejects a merchant id that is not a UUID", async () => {
    await expect(verifyCustody(testDb.db, custody, { merchantId: "m1" })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe("exportWalletsCsv", () => {
  it("writes the header, then one line per address of the merchant, wallets in index order", async () => {
    const lines: string[] = [];
    const written = await exportWalletsCsv(testDb.db, merchantB, (line) => lines.push(line), { pageSize: 3 });
    expect(written).toBe(20);
    expect(lines[0]).toBe(WALLETS_CSV_HEADER);
    expect(lines).toHaveLength(21);
    const rows = lines.slice(1).map((line) => line.split(","));
    const expected = [0, 1].flatMap((index) =>
      custody
        .deriveWalletAddresses(1, index)
        .map((d) => [d.chain, d.address, d.path])
        .sort(([a], [b]) => ((a ?? "") < (b ?? "") ? -1 : 1)),
    );
    expect(rows.map(([, chain, address, path]) => [chain, address, path])).toEqual(expected);
    const walletIds = rows.map(([walletId]) => walletId);
    expect(new Set(walletIds.slice(0, 10)).size).toBe(1);
    expect(new Set(walletIds.slice(10)).size).toBe(1);
    expect(walletIds[0]).not.toBe(walletIds[10]);
  });

  it("refuses an unknown merchant and a malformed id", async () => {
    const lines: string[] = [];
    await expect(exportWalletsCsv(testDb.db, randomUUID(), (l) => lines.push(l))).rejects.toBeInstanceOf(NotFoundError);
    await expect(exportWalletsCsv(testDb.db, "nope", (l) => lines.push(l))).rejects.toBeInstanceOf(ValidationError);
    expect(lines).toEqual([]);
  });
});

import { inspect } from "node:util";
import {
  CUSTODY_POOL_DEPTH,
  CustodyPoolEmptyError,
  type CustodyShortage,
  createCustody,
  createPublicCustody,
  ensureRootFingerprint,
  fillCustodyPools,
} from "@mp/custody";
import { createTestDatabase, type TestDatabase } from "@mp/db/testing";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { bytesToHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_JUNK_MNEMONIC } from "../../packages/custody/test/support.ts";
import { insertMerchant } from "../../packages/custody/test/support-db.ts";
import { KEY_SCHEMES } from "../../services/payments/src/chain-families.ts";

const custody = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
const pools = (db: TestDatabase["db"]) => ({ db, custody, bitcoinNetwork: "regtest" as const });

/** Merchants as createMerchant allocates them: the counter says which account is next. */
async function addMerchant(db: TestDatabase["db"]): Promise<{ id: string; account: number }> {
  const { rows } = await db.query<{ value: string }>(
    "UPDATE counters SET value = value + 1 WHERE name = 'merchant_derivation_account' RETURNING value - 1 AS value",
  );
  const account = Number(rows[0]?.value);
  return { id: await insertMerchant(db, account), account };
}

describe("the public custody (roles without MASTER_MNEMONIC)", () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    await ensureRootFingerprint(testDb.db, custody.fingerprint);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it("derives from the signer's stored pools exactly what the mnemonic derives", async () => {
    const first = await addMerchant(testDb.db);
    const second = await addMerchant(testDb.db);
    const filled = await fillCustodyPools(pools(testDb.db));
    // Accounts 0..1 have merchants; four more are stored ahead for the next merchants.
    expect(filled).toEqual({
      accounts: 2 + CUSTODY_POOL_DEPTH.accountsAhead,
      solanaAddresses: (2 + CUSTODY_POOL_DEPTH.accountsAhead) * CUSTODY_POOL_DEPTH.solanaAhead,
    });
    // Idempotent: nothing is low any more.
    expect(await fillCustodyPools(pools(testDb.db))).toEqual({ accounts: 0, solanaAddresses: 0 });

    const stored = await testDb.db.query<{ evm_xpub: string; tron_xpub: string; bitcoin_xpub: string }>(
      "SELECT evm_xpub, tron_xpub, bitcoin_xpub FROM custody_accounts WHERE account = 1",
    );
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_JUNK_MNEMONIC));
    // The standard xpubs of the external-chain nodes, as any BIP-32 wallet exports them.
    expect(stored.rows[0]).toEqual({
      evm_xpub: root.derive("m/44'/60'/1'/0").publicExtendedKey,
      tron_xpub: root.derive("m/44'/195'/1'/0").publicExtendedKey,
      bitcoin_xpub: root.derive("m/84'/1'/1'/0").publicExtendedKey,
    });

    const reader = await createPublicCustody(testDb.db, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    expect(reader.fingerprint).toBe(custody.fingerprint);
    for (const [account, index] of [
      [first.account, 0],
      [first.account, 1],
      [second.account, 17],
      [second.account, CUSTODY_POOL_DEPTH.solanaAhead - 1],
      // An account stored ahead: a merchant created next finds its wallets ready.
      [2 + CUSTODY_POOL_DEPTH.accountsAhead - 1, 0],
    ] as const) {
      expect(await reader.deriveWalletAddresses(account, index)).toEqual(custody.deriveWalletAddresses(account, index));
    }
  });

  it("answers a slot the signer has not derived with a retryable 503, never a wrong address", async () => {
    const shortages: CustodyShortage[] = [];
    const reader = await createPublicCustody(testDb.db, {
      bitcoinNetwork: "regtest",
      schemes: KEY_SCHEMES,
      onShortage: (shortage) => {
        shortages.push(shortage);
      },
    });
    const beyondIndex = await reader.deriveWalletAddresses(0, CUSTODY_POOL_DEPTH.solanaAhead).catch((e: unknown) => e);
    expect(beyondIndex).toBeInstanceOf(CustodyPoolEmptyError);
    expect(beyondIndex).toMatchObject({ code: "service_unavailable", retryable: true });
    const beyondAccount = await reader.deriveWalletAddresses(1_000, 0).catch((e: unknown) => e);
    expect(beyondAccount).toBeInstanceOf(CustodyPoolEmptyError);
    expect(shortages).toEqual([
      { pool: "solana", account: 0, index: CUSTODY_POOL_DEPTH.solanaAhead },
      { pool: "account", account: 1_000, index: 0 },
    ]);
  });

  it("is refilled before it runs dry as merchants reserve wallet indexes, contiguous and never reused", async () => {
    const merchant = await addMerchant(testDb.db);
    await fillCustodyPools(pools(testDb.db));
    const derivedOf = async () =>
      Number(
        (
          await testDb.db.query<{ solana_derived: number }>(
            "SELECT solana_derived FROM custody_accounts WHERE account = $1",
            [merchant.account],
          )
        ).rows[0]?.solana_derived,
      );
    expect(await derivedOf()).toBe(CUSTODY_POOL_DEPTH.solanaAhead);
    // Two blocks of 16 reserved: 32 left, not below the low-water mark yet.
    await testDb.db.query("UPDATE merchants SET next_wallet_index = 32 WHERE id = $1", [merchant.id]);
    expect((await fillCustodyPools(pools(testDb.db))).solanaAddresses).toBe(0);
    // One more block: below it, so the pool goes to next + solanaAhead.
    await testDb.db.query("UPDATE merchants SET next_wallet_index = 48 WHERE id = $1", [merchant.id]);
    expect((await fillCustodyPools(pools(testDb.db))).solanaAddresses).toBe(48);
    expect(await derivedOf()).toBe(48 + CUSTODY_POOL_DEPTH.solanaAhead);
    const rows = await testDb.db.query<{ address_index: number; address: string }>(
      "SELECT address_index, address FROM custody_solana_addresses WHERE account = $1 ORDER BY address_index",
      [merchant.account],
    );
    expect(rows.rows.map((r) => r.address_index)).toEqual([...Array(48 + CUSTODY_POOL_DEPTH.solanaAhead).keys()]);
    expect(rows.rows[100]?.address).toBe(custody.deriveAddress("SOLANA", merchant.account, 100).address);
    expect(new Set(rows.rows.map((r) => r.address)).size).toBe(rows.rows.length);
  });

  it("in a process that also runs the signer (`all`), a shortage fills the pools and the same call answers", async () => {
    const merchant = await addMerchant(testDb.db);
    await fillCustodyPools(pools(testDb.db));
    // Reservations outran the refill loop: indexes up to 199 handed out, 64 derived.
    await testDb.db.query("UPDATE merchants SET next_wallet_index = 200 WHERE id = $1", [merchant.id]);
    let fills = 0;
    const reader = await createPublicCustody(testDb.db, {
      bitcoinNetwork: "regtest",
      schemes: KEY_SCHEMES,
      onShortage: async () => {
        fills++;
        await fillCustodyPools(pools(testDb.db));
      },
    });
    expect(await reader.deriveWalletAddresses(merchant.account, 150)).toEqual(
      custody.deriveWalletAddresses(merchant.account, 150),
    );
    expect(fills).toBe(1);
  });

  it("refuses to fill for another Bitcoin network than the stored keys were derived for", async () => {
    const mainnet = createCustody(TEST_JUNK_MNEMONIC, { bitcoinNetwork: "mainnet", schemes: KEY_SCHEMES });
    await expect(fillCustodyPools({ db: testDb.db, custody: mainnet, bitcoinNetwork: "mainnet" })).rejects.toThrow(
      /BITCOIN network mainnet differs/,
    );
  });

  it("holds and exposes no key material: only the fingerprint and the derivation", async () => {
    const reader = await createPublicCustody(testDb.db, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
    const destinations = await reader.deriveWalletAddresses(1, 3);
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(TEST_JUNK_MNEMONIC));
    const secrets = [
      "test test",
      bytesToHex(mnemonicToSeedSync(TEST_JUNK_MNEMONIC)).slice(2),
      "xprv",
      bytesToHex(root.privateKey ?? new Uint8Array()).slice(2),
      bytesToHex(root.derive("m/44'/60'/1'/0").privateKey ?? new Uint8Array()).slice(2),
      bytesToHex(root.derive("m/44'/60'/1'/0/3").privateKey ?? new Uint8Array()).slice(2),
      // anvil's published private key of m/44'/60'/0'/0/0.
      "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    ];
    expect(Object.keys(reader).sort()).toEqual(["deriveWalletAddresses", "fingerprint"]);
    expect(JSON.parse(JSON.stringify(reader))).toEqual({ fingerprint: custody.fingerprint });
    expect(Object.isFrozen(reader)).toBe(true);
    // What it reads is public too: no column of the pools holds a private key.
    const stored = await testDb.db.query("SELECT * FROM custody_accounts");
    const pooled = await testDb.db.query("SELECT * FROM custody_solana_addresses");
    const views = [
      inspect(reader, { showHidden: true, depth: Number.POSITIVE_INFINITY, getters: true }),
      JSON.stringify(destinations),
      JSON.stringify(stored.rows),
      JSON.stringify(pooled.rows),
    ];
    for (const view of views) {
      for (const secret of secrets) expect(view).not.toContain(secret);
    }
    // The only extended keys it reads are public ones; BIP-32 cannot take them to a private key.
    for (const row of stored.rows as Array<Record<string, unknown>>) {
      for (const column of ["evm_xpub", "tron_xpub", "bitcoin_xpub"]) {
        const key = HDKey.fromExtendedKey(String(row[column]));
        expect(key.privateKey).toBeNull();
        expect(String(row[column])).toMatch(/^xpub/);
      }
    }
  });
});

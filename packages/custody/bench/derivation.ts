/**
 * Derivation and watch-set figures for packages/custody. Prints, never asserts.
 *   npx tsx packages/custody/bench/derivation.ts        (or through test/bench/run.ts)
 * Uses the PostgreSQL server named by DATABASE_URL when set, else an in-memory PGlite.
 */
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { type ChainId, EVM_CHAINS } from "@mp/core";
import type { Queryable } from "@mp/db";
import { createTestDatabase } from "@mp/db/testing";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { KEY_SCHEMES } from "../../../services/payments/src/chain-families.ts";
import { createCustody, createEvmKeyStore, createWatchSet } from "../src/index.ts";

const MNEMONIC = "test test test test test test test test test test test junk";
/** `--watched N` (default 1,000,000): addresses in the watch set. */
const watchedFlag = process.argv.indexOf("--watched");
const WATCHED = watchedFlag >= 0 ? Number(process.argv[watchedFlag + 1]) : 1_000_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function microsPer(count: number, run: (i: number) => void): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) run(i);
  return ((performance.now() - start) * 1000) / count;
}

function memory() {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heapUsed, arrayBuffers };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export function benchDerivation(): void {
  const custody = createCustody(MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  for (let i = 0; i < 100; i++) custody.deriveWalletAddresses(0, i); // JIT and curve tables warm-up
  const newAccount = microsPer(20, (i) => custody.deriveWalletAddresses(1 + i, 0));
  const rows: Array<Record<string, string | number>> = [];
  const families: Array<[string, ChainId]> = [
    ["evm (7 chains, one address)", "BASE"],
    ["tron", "TRON"],
    ["bitcoin (P2WPKH)", "BITCOIN"],
    ["solana (SLIP-0010, from seed)", "SOLANA"],
  ];
  const count = 400;
  for (const [family, chain] of families) {
    const us = microsPer(count, (i) => custody.deriveAddress(chain, 0, 1_000 + i));
    rows.push({ family, "µs per address": Math.round(us) });
  }
  const perWallet = microsPer(count, (i) => custody.deriveWalletAddresses(0, 5_000 + i));
  rows.push({ family: "one wallet (all ten destinations)", "µs per address": Math.round(perWallet) });

  // Reference: the same public derivation through @scure/bip32's HDKey.deriveChild.
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(MNEMONIC));
  const xpub = HDKey.fromExtendedKey(root.derive("m/44'/60'/0'/0").publicExtendedKey);
  const scure = microsPer(count, (i) => xpub.deriveChild(i));
  rows.push({ family: "reference: @scure/bip32 public deriveChild (key only)", "µs per address": Math.round(scure) });

  process.stdout.write("\ncustody: receive-address derivation (account keys cached)\n");
  console.table(rows);
  process.stdout.write(
    `one wallet = ${(perWallet / 1000).toFixed(2)} ms -> ${Math.floor(1e6 / perWallet)} wallets/s of derivation on one core; ` +
      `first wallet of a merchant account not cached yet: ${(newAccount / 1000).toFixed(1)} ms\n`,
  );
}

/** A deterministic, well-spread EVM key for row `seq` (what a keccak-derived address looks like). */
function syntheticKey(seq: number): string {
  let x = BigInt(seq) * 0x9e3779b97f4a7c15f39cc0605cedc835n;
  let hex = "";
  for (let i = 0; i < 3; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    hex += x.toString(16).padStart(16, "0");
  }
  return `0x${hex.slice(0, 40)}`;
}

/**
 * A stand-in for the database that answers the watch set's two queries from generated rows, so the
 * set is "fed directly": no rows are kept anywhere but in the set, and an in-process PGlite does not
 * pollute the heap figures.
 */
function generatedDestinations(total: number): Queryable {
  return {
    async query(text: string, params?: unknown[]) {
      if (text.includes("pg_current_snapshot")) return { rows: [{ xmax: "1", in_progress: [] }] } as never;
      if (text.includes("treasury_addresses")) return { rows: [] } as never;
      // The first load's size hint: every generated key is 42 characters.
      if (text.includes("sum(length(address_key))"))
        return { rows: [{ count: total, characters: String(total * 42) }] } as never;
      const after = Number(params?.[1]);
      const limit = Number(params?.[2]);
      // The page as the watch set's query folds it: one row, the keys as `<length>:<key>` records.
      const last = Math.min(total, after + limit);
      let packed = "";
      for (let seq = after + 1; seq <= last; seq++) {
        const key = syntheticKey(seq);
        packed += `${key.length}:${key}`;
      }
      const count = Math.max(0, last - after);
      return { rows: [{ count, last: count > 0 ? String(last) : null, packed: count > 0 ? packed : null }] } as never;
    },
  };
}

async function measureWatchSet(db: Queryable, source: string): Promise<void> {
  const before = memory();
  const watch = createWatchSet(db, "BASE");
  const start = performance.now();
  const added = await watch.refresh();
  const loadSeconds = (performance.now() - start) / 1000;
  const after = memory();
  const heap = after.heapUsed - before.heapUsed;
  const buffers = after.arrayBuffers - before.arrayBuffers;
  const missing = `0x${"ab".repeat(20)}`;
  const present = syntheticKey(123_456);
  const lookup = microsPer(1_000_000, (i) => watch.has(i % 2 ? missing : present));
  process.stdout.write(`\ncustody: watch set of ${added.toLocaleString("en")} EVM addresses, ${source}\n`);
  console.table([
    { measure: "refresh() from empty (pages of 20,000)", value: `${loadSeconds.toFixed(1)} s` },
    { measure: "retained: JS heap", value: mb(heap) },
    { measure: "retained: array buffers (key arena + hash table)", value: mb(buffers) },
    { measure: "retained: total", value: mb(heap + buffers) },
    { measure: "has() lookup", value: `${lookup.toFixed(2)} µs` },
    { measure: "process RSS after the load", value: mb(process.memoryUsage().rss) },
  ]);
}

/** The seven EVM chains' watch sets of one process over the same `total` addresses, on their own and sharing one key store. */
async function measureEvmChains(total: number): Promise<void> {
  // Pages generated once and answered again to each chain's set: the keys' generation is not measured.
  const source = generatedDestinations(total);
  const pages = new Map<string, unknown>();
  const db: Queryable = {
    async query(text: string, params?: unknown[]) {
      const id = `${text}|${String(params?.[1])}`;
      if (!pages.has(id)) pages.set(id, await source.query(text, params));
      return pages.get(id) as never;
    },
  };
  const rows: Array<Record<string, string>> = [];
  for (const evmKeys of [undefined, createEvmKeyStore()]) {
    const sets = EVM_CHAINS.map((chain) => createWatchSet(db, chain, evmKeys ? { evmKeys } : {}));
    const start = performance.now();
    for (const set of sets) await set.refresh();
    const seconds = (performance.now() - start) / 1000;
    const bytes = evmKeys ? evmKeys.keys.byteLength : sets.reduce((sum, set) => sum + set.byteLength, 0);
    rows.push({
      "watch sets": evmKeys ? "one shared key store (createEvmKeyStore)" : "one key set per chain (before)",
      "addresses per chain": total.toLocaleString("en"),
      held: mb(bytes),
      "bytes per address": (bytes / total).toFixed(1),
      "seven loads": `${seconds.toFixed(1)} s`,
    });
  }
  process.stdout.write(`\ncustody: the ${EVM_CHAINS.length} EVM chains' watch sets of one process\n`);
  console.table(rows);
}

function measurePlainSet(total: number): void {
  const before = memory();
  const plain = new Set<string>();
  for (let seq = 1; seq <= total; seq++) plain.add(syntheticKey(seq));
  const heap = memory().heapUsed - before.heapUsed;
  process.stdout.write(
    `reference: a Set<string> of the same ${plain.size.toLocaleString("en")} keys holds ${mb(heap)} of JS heap\n`,
  );
}

/** The same load through real SQL; only against a server (PGlite would run in this process and take minutes). */
async function measureFromServer(): Promise<void> {
  const testDb = await createTestDatabase();
  try {
    const db = testDb.db;
    // A throwaway database: the wallets and merchants behind a million destinations are not what is
    // measured, so their foreign keys go and the rows come from one INSERT … SELECT.
    await db.query(
      "ALTER TABLE destinations DROP CONSTRAINT destinations_wallet_id_fkey, DROP CONSTRAINT destinations_merchant_id_fkey",
    );
    const start = performance.now();
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path, created_at)
       SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'BASE', a, a, 'm/44''/60''/0''/0/' || g,
              now() - interval '1 hour'
         FROM (SELECT g, '0x' || substr(md5(g::text) || md5((-g)::text), 1, 40) AS a
                 FROM generate_series(1, $1::integer) AS g) AS generated`,
      [WATCHED],
    );
    process.stdout.write(
      `\ninserted ${WATCHED.toLocaleString("en")} destinations in ${((performance.now() - start) / 1000).toFixed(1)} s\n`,
    );
    await measureWatchSet(db, "loaded from the PostgreSQL server (DATABASE_URL)");
  } finally {
    await testDb.drop();
  }
}

export async function runDerivationBench(): Promise<void> {
  benchDerivation();
  await measureWatchSet(generatedDestinations(WATCHED), "fed directly from generated rows (no database)");
  measurePlainSet(WATCHED);
  await measureEvmChains(WATCHED);
  if (process.env.DATABASE_URL) await measureFromServer();
  else process.stdout.write("(set DATABASE_URL to also load the million rows through a PostgreSQL server)\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDerivationBench();
  process.exit(0);
}

import { ConfigError, type Logger } from "@mp/core";
import type { Database } from "@mp/db";
import { type BitcoinNetwork, bitcoinCoinType } from "./bitcoin-network.ts";
import type { Custody } from "./custody.ts";

/**
 * How far ahead the signer derives. Accounts: past the merchants counter, so a merchant created by
 * any process (the API never can: `payments merchants create`) finds its keys stored. Solana: per
 * account past merchants.next_wallet_index, refilled once fewer than `solanaLowWater` remain; the API
 * reserves wallet indexes in blocks of 16 (WALLET_INDEX_BLOCK), so a pool at the low-water mark
 * still covers a whole new block. Small on purpose: a Solana address costs ~1-2 ms of CPU.
 */
export const CUSTODY_POOL_DEPTH = { accountsAhead: 4, solanaAhead: 64, solanaLowWater: 32 } as const;

export interface CustodyPoolOptions {
  db: Database;
  custody: Custody;
  bitcoinNetwork: BitcoinNetwork;
  depth?: Partial<typeof CUSTODY_POOL_DEPTH>;
}

export interface CustodyPoolFill {
  accounts: number;
  solanaAddresses: number;
}

/**
 * Tops up the public pools (migrations/0100) from the full custody: account xpubs for every account
 * below the merchants counter plus `accountsAhead` (in order; a gap left by an earlier crash is filled
 * too), and Solana addresses of every account running low. Deterministic and idempotent: two signers
 * filling at once write the same rows (ON CONFLICT DO NOTHING), so no lease is needed.
 */
export async function fillCustodyPools(options: CustodyPoolOptions): Promise<CustodyPoolFill> {
  const { db, custody } = options;
  const depth = { ...CUSTODY_POOL_DEPTH, ...options.depth };
  const coinType = bitcoinCoinType(options.bitcoinNetwork);
  const other = await db.query<{ bitcoin_coin_type: number }>(
    "SELECT bitcoin_coin_type FROM custody_accounts WHERE bitcoin_coin_type <> $1 LIMIT 1",
    [coinType],
  );
  if (other.rows[0]) {
    throw new ConfigError(
      "CHAINS_CONFIG",
      `BITCOIN network ${options.bitcoinNetwork} differs from the one this database's account keys were derived for (coin type ${other.rows[0].bitcoin_coin_type})`,
    );
  }

  const missing = await db.query<{ account: number }>(
    `SELECT n::integer AS account
       FROM generate_series(0, (SELECT value FROM counters WHERE name = 'merchant_derivation_account')::integer + $1 - 1) AS n
      WHERE NOT EXISTS (SELECT 1 FROM custody_accounts a WHERE a.account = n)
      ORDER BY n`,
    [depth.accountsAhead],
  );
  for (const { account } of missing.rows) {
    // One `<family>_xpub` column per secp256k1 family (migrations/0100); the names come from the
    // registry's key schemes, never from input.
    const keys = [...custody.accountPublicKeys(account)];
    const columns = keys.map(([family]) => `${family}_xpub`).join(", ");
    const values = keys.map((_, i) => `$${i + 3}`).join(", ");
    await db.query(
      `INSERT INTO custody_accounts (account, bitcoin_coin_type, ${columns})
       VALUES ($1, $2, ${values}) ON CONFLICT (account) DO NOTHING`,
      [account, coinType, ...keys.map(([, xpub]) => xpub)],
    );
  }

  const low = await db.query<{ account: number; derived: number; next: number }>(
    `SELECT a.account, a.solana_derived AS derived, coalesce(m.next_wallet_index, 0) AS next
       FROM custody_accounts a
       LEFT JOIN merchants m ON m.derivation_account = a.account
      WHERE a.solana_derived - coalesce(m.next_wallet_index, 0) < $1
      ORDER BY a.solana_derived - coalesce(m.next_wallet_index, 0), a.account`,
    [depth.solanaLowWater],
  );
  let solanaAddresses = 0;
  for (const { account, derived, next } of low.rows) {
    const target = next + depth.solanaAhead;
    const indexes: number[] = [];
    const addresses: string[] = [];
    for (let index = derived; index < target; index++) {
      indexes.push(index);
      addresses.push(custody.deriveAddress("SOLANA", account, index).address);
    }
    await db.tx(async (client) => {
      await client.query(
        `INSERT INTO custody_solana_addresses (account, address_index, address)
         SELECT $1, i, a FROM unnest($2::integer[], $3::text[]) AS t(i, a)
         ON CONFLICT DO NOTHING`,
        [account, indexes, addresses],
      );
      // Raised only with the rows in the same transaction: solana_derived never claims a missing row.
      await client.query(
        "UPDATE custody_accounts SET solana_derived = GREATEST(solana_derived, $2) WHERE account = $1",
        [account, target],
      );
    });
    solanaAddresses += indexes.length;
  }
  return { accounts: missing.rows.length, solanaAddresses };
}

export interface CustodyPoolFiller {
  /** Fills now (joining a fill under way); resolves when the pools are topped up. */
  fillNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The signer's refill loop: fills once every `intervalMs` so the pools never run dry in steady state
 * (wallet creation then never waits on the signer). A failed fill is logged and tried again.
 */
export function startCustodyPoolFiller(
  options: CustodyPoolOptions & { logger: Logger; intervalMs?: number },
): CustodyPoolFiller {
  const { logger } = options;
  let running: Promise<void> | undefined;
  let stopped = false;
  const fillNow = (): Promise<void> => {
    running ??= fillCustodyPools(options)
      .then((filled) => {
        if (filled.accounts > 0 || filled.solanaAddresses > 0) logger.info(filled, "custody pools refilled");
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => {
    if (stopped) return;
    fillNow().catch((error: unknown) => logger.warn({ err: String(error) }, "custody pool refill failed"));
  }, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    fillNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}

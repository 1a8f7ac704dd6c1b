import { randomBytes, randomUUID } from "node:crypto";
import type { ChainId } from "@mp/core";
import { createCustody, createDepositKeys, type DepositKeys } from "@mp/custody";
import type { Database } from "@mp/db";
import { postDepositCredits } from "@mp/ledger";
import { type AnvilNode, batchTransferToken, sendNative, type TestToken } from "@mp/test-nodes/evm";
import { KEY_SCHEMES } from "../../../../services/payments/src/chain-families.ts";
import { insertMerchantWithCustomer } from "../../../../test/support/db-fixtures.ts";

/** The deployment's receive mnemonic in these tests (a BIP-39 test vector; no anvil dev account). */
export const TEST_MASTER_MNEMONIC = "legal winner thank year wave sausage worth useful legal winner thank yellow";

export const testDepositKeys = (): DepositKeys =>
  createDepositKeys(TEST_MASTER_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });

export interface DepositAddress {
  destinationId: string;
  walletId: string;
  address: string;
}

/** `N` deposit addresses as a tuple (a test destructures them without a cast); any count: an array. */
export type DepositAddresses<N extends number, R extends DepositAddress[] = []> = number extends N
  ? DepositAddress[]
  : R["length"] extends N
    ? R
    : DepositAddresses<N, [...R, DepositAddress]>;

export interface DepositMerchant {
  merchantId: string;
  customerId: string;
  addresses: DepositAddress[];
}

/** A DepositMerchant whose `count` is known: its addresses as a tuple. */
export type DepositMerchantOf<N extends number> = Omit<DepositMerchant, "addresses"> & {
  addresses: DepositAddresses<N>;
};

/**
 * A merchant with `count` wallets whose receive addresses on `chain` (default BASE) are derived as
 * the API derives them (createCustody of the master mnemonic, the merchant's derivation account),
 * so the sweeper's deposit keys sign for them.
 */
export async function createDepositMerchant<N extends number>(
  db: Database,
  count: N,
  chain: ChainId = "BASE",
): Promise<DepositMerchantOf<N>> {
  const custody = createCustody(TEST_MASTER_MNEMONIC, { bitcoinNetwork: "regtest", schemes: KEY_SCHEMES });
  return db.tx(async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(4243)");
    const { merchantId, customerId } = await insertMerchantWithCustomer(c, "Sweeps test");
    const { rows } = await c.query<{ account: number }>(
      "SELECT derivation_account AS account FROM merchants WHERE id = $1",
      [merchantId],
    );
    const account = rows[0]?.account ?? 0;
    const addresses: DepositAddress[] = [];
    for (let index = 0; index < count; index++) {
      const walletId = randomUUID();
      const destinationId = randomUUID();
      const derived = custody.deriveAddress(chain, account, index);
      await c.query(
        "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'main', $4)",
        [walletId, merchantId, customerId, index],
      );
      await c.query(
        `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
         VALUES ($1, $2, $3, $7, $4, $5, $6)`,
        [destinationId, walletId, merchantId, derived.address, derived.addressKey, derived.path, chain],
      );
      addresses.push({ destinationId, walletId, address: derived.address });
    }
    // The loop made exactly `count` of them.
    return { merchantId, customerId, addresses: addresses as DepositAddresses<N> };
  });
}

/**
 * Pays each address on anvil (tokens in one batch transaction, native coin one by one) and records
 * the deposits CONFIRMED and credited to the merchant the way the indexer does (row + ledger entry).
 */
export async function depositAndCredit(
  db: Database,
  node: AnvilNode,
  token: TestToken,
  merchant: DepositMerchant,
  payments: ReadonlyArray<{ address: DepositAddress; asset: string; amount: bigint }>,
): Promise<void> {
  const tokenPayments = payments.filter((p) => p.asset !== "ETH");
  for (let i = 0; i < tokenPayments.length; i += 200) {
    const batch = tokenPayments.slice(i, i + 200);
    await batchTransferToken(
      node,
      token,
      batch.map((p) => ({ to: p.address.address, amount: p.amount })),
    );
  }
  for (const p of payments.filter((x) => x.asset === "ETH")) await sendNative(node, p.address.address, p.amount);
  await recordConfirmedDeposits(
    db,
    "BASE",
    merchant,
    payments.map((p) => ({
      ...p,
      decimals: p.asset === "ETH" ? 18 : 6,
      contract: p.asset === "ETH" ? null : token.address,
      txHash: `0x${randomBytes(32).toString("hex")}`,
    })),
  );
}

/** A deposit as the indexer records it, paid on chain already (the caller made the transfer). */
export interface PaidDeposit {
  address: DepositAddress;
  asset: string;
  amount: bigint;
  decimals: number;
  contract: string | null;
  txHash: string;
  /** log:<n> (account chains; default log:0), vout:<n> (Bitcoin: the output a sweep spends). */
  position?: string;
}

/** Records deposits CONFIRMED and credited to the merchant the way the indexer does (row + ledger entry). */
export async function recordConfirmedDeposits(
  db: Database,
  chain: ChainId,
  merchant: DepositMerchant,
  payments: readonly PaidDeposit[],
): Promise<void> {
  await db.tx(async (c) => {
    const credits = [];
    for (const p of payments) {
      const id = randomUUID();
      await c.query(
        `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, contract_address,
           to_address, tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations,
           status, usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $13, 1, '0xblock', $11, $12, 2, 'CONFIRMED',
           '1', 1000000, 0, 1000000, now())`,
        [
          id,
          merchant.merchantId,
          p.address.walletId,
          p.address.destinationId,
          merchant.customerId,
          chain,
          p.asset,
          p.contract,
          p.address.address,
          p.txHash,
          p.decimals,
          p.amount.toString(),
          p.position ?? "log:0",
        ],
      );
      credits.push({ depositId: id, merchantId: merchant.merchantId, amountUsdMicros: 1_000_000n, feeUsdMicros: 0n });
    }
    const posted = await postDepositCredits(c, credits);
    for (const credit of posted) {
      await c.query("UPDATE deposits SET credit_entry_id = $2 WHERE id = $1", [credit.depositId, credit.entryId]);
    }
  });
}

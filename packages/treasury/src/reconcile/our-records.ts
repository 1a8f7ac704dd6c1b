import { type ChainId, normalizeAddress } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { KnownOutput } from "./known-output.ts";
import type { MinedBlock } from "./mined-block.ts";

/** Per asset, smallest units. */
export type Amounts = Map<string, bigint>;

/** What our records say about one chain: where we hold money, and the movements that explain it. */
export interface ChainRecords {
  /** Our addresses: the treasury's and every deposit address. */
  addresses: string[];
  /** Outputs our records know paid our addresses (Bitcoin: the node is asked which are unspent). */
  knownOutputs: KnownOutput[];
  /** Live (not reversed) deposits: in a block, so on chain, credited or still confirming. */
  deposits: Amounts;
  /** Of those, still PENDING (mentioned in the explanation: on chain, not yet credited). */
  pendingDeposits: Amounts;
  /** Live operator top-ups of the treasury (treasury_receipts kind float). */
  float: Amounts;
  /**
   * Sends whose attempt is mined and whose recipient is not ours, or is a deposit address a payout of
   * ours paid (recorded as a deposit there); a top-up of our own address moves nothing out.
   */
  sent: Amounts;
  /**
   * Native coin (lamports) our mined sweeps moved into the treasury wallet by closing deposit token
   * accounts (their rent, paid by the depositors who opened them), less the rent they paid opening
   * the treasury's own token accounts (Solana; 0 elsewhere).
   */
  sweepRent: bigint;
  /** Our mined transactions (landed or failed: a reverted one pays its fee too), to read their fees. */
  minedAttempts: Array<{ txHash: string; fee: Record<string, unknown>; block: MinedBlock | null }>;
  /** Attempts broadcast but not seen mined yet: the chain may be ahead of our records by these. */
  inFlight: number;
}

const add = (amounts: Amounts, asset: string, amount: bigint) =>
  amounts.set(asset, (amounts.get(asset) ?? 0n) + amount);

const sums = (rows: Array<{ asset: string; total: string }>): Amounts => {
  const out: Amounts = new Map();
  for (const row of rows) add(out, row.asset, BigInt(row.total));
  return out;
};

const bitcoinOutput = (txid: string, position: string): KnownOutput | null =>
  position.startsWith("vout:") ? { txid, vout: Number(position.slice("vout:".length)) } : null;

/**
 * Reads one chain's records (see ChainRecords). A sweep is a move between our addresses: only its
 * fee counts, and on Solana the token-account rent it reclaims or pays (treasury_sweeps).
 */
export async function readChainRecords(q: Queryable, chain: ChainId): Promise<ChainRecords> {
  const addresses = await q.query<{ address: string; address_key: string; deposit: boolean }>(
    `SELECT address, address_key, false AS deposit FROM treasury_addresses WHERE chain = $1
     UNION SELECT address, address_key, true AS deposit FROM destinations WHERE chain = $1`,
    [chain],
  );
  const ourKeys = new Set(addresses.rows.map((r) => r.address_key));
  const depositKeys = new Set(addresses.rows.filter((r) => r.deposit).map((r) => r.address_key));
  const deposits = await q.query<{ asset: string; total: string; pending: string }>(
    `SELECT asset, sum(amount_raw)::text AS total, coalesce(sum(amount_raw) FILTER (WHERE status = 'PENDING'), 0)::text AS pending
       FROM deposits WHERE chain = $1 AND status <> 'REVERSED' GROUP BY asset`,
    [chain],
  );
  const float = await q.query<{ asset: string; total: string }>(
    `SELECT asset, sum(amount_raw)::text AS total FROM treasury_receipts
      WHERE chain = $1 AND status <> 'REVERSED' AND kind = 'float' GROUP BY asset`,
    [chain],
  );
  const sends = await q.query<{ asset: string; amount_raw: string; to_address: string; purpose: string }>(
    `SELECT s.asset, s.amount_raw::text, s.to_address, s.purpose FROM treasury_sends s
      WHERE s.chain = $1 AND EXISTS (
        SELECT 1 FROM treasury_attempt_sends x JOIN treasury_attempts a ON a.id = x.attempt_id
         WHERE x.send_id = s.id AND a.state = 'mined')`,
    [chain],
  );
  const sent: Amounts = new Map();
  for (const send of sends.rows) {
    const key = normalizeAddress(chain, send.to_address);
    // A payout of ours to a deposit address became a deposit there (the indexer records it): it left
    // the treasury as the deposit arrived. A top-up or sweep between our addresses moved nothing out.
    const payoutToDeposit =
      (send.purpose === "operator" || send.purpose === "transfer" || send.purpose === "return") && depositKeys.has(key);
    if (!ourKeys.has(key) || payoutToDeposit) add(sent, send.asset, BigInt(send.amount_raw));
  }
  const attempts = await q.query<{
    tx_hash: string;
    fee: Record<string, unknown>;
    state: string;
    block_height: string | null;
    block_hash: string | null;
  }>(
    `SELECT tx_hash, fee, state, block_height::text, block_hash FROM treasury_attempts WHERE chain = $1 AND state IN ('mined', 'failed', 'broadcast', 'signed')
      ORDER BY created_at, id`,
    [chain],
  );
  // The rent columns describe the sweep's last signed attempt, the only one that can have landed.
  const rent = await q.query<{ net: string }>(
    `SELECT COALESCE(sum(w.rent_reclaimed_raw - w.rent_paid_raw), 0)::text AS net FROM treasury_sweeps w
      WHERE w.chain = $1 AND EXISTS (
        SELECT 1 FROM treasury_attempt_sends x JOIN treasury_attempts a ON a.id = x.attempt_id
         WHERE x.send_id = w.send_id AND a.state = 'mined')`,
    [chain],
  );
  const outputs = await q.query<{ txid: string; position: string }>(
    `SELECT tx_hash AS txid, position FROM deposits WHERE chain = $1 AND status <> 'REVERSED'
     UNION SELECT tx_hash, position FROM treasury_receipts WHERE chain = $1 AND status <> 'REVERSED'
     UNION SELECT txid, 'vout:' || vout FROM treasury_utxos WHERE chain = $1`,
    [chain],
  );
  const depositRows = deposits.rows;
  return {
    addresses: addresses.rows.map((r) => r.address),
    knownOutputs: outputs.rows.flatMap((r) => bitcoinOutput(r.txid, r.position) ?? []),
    deposits: sums(depositRows),
    pendingDeposits: sums(depositRows.map((r) => ({ asset: r.asset, total: r.pending }))),
    float: sums(float.rows),
    sent,
    sweepRent: BigInt(rent.rows[0]?.net ?? "0"),
    // A failed attempt only pays a fee when it was mined (EVM revert, Tron OUT_OF_ENERGY): those keep
    // their block. One the node refused for good (markRefused) has none: it never was on chain.
    minedAttempts: attempts.rows
      .filter((a) => a.state === "mined" || (a.state === "failed" && a.block_height !== null))
      .map((a) => ({
        txHash: a.tx_hash,
        fee: a.fee,
        block:
          a.block_height === null || a.block_hash === null
            ? null
            : { height: Number(a.block_height), hash: a.block_hash },
      })),
    inFlight: attempts.rows.filter((a) => a.state === "broadcast" || a.state === "signed").length,
  };
}

import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";
import { type Address, encodeFunctionData, erc20Abi } from "viem";
import { dataAnswer, quantityAnswer } from "./evm-answers.ts";
import type { EvmNode } from "./evm-node.ts";
import { reusedFor } from "./reused-promise.ts";

/** Balances for the funds check are reused this long at most (see cachedBalance). */
export const BALANCE_TTL_MS = 2_000;

/** The native coin (address null) or an ERC-20 token contract. */
export interface EvmAsset {
  native: boolean;
  address: Address | null;
}

/** What sends not yet mined will take from the treasury: per asset their amounts, and their gas at most. */
export interface EvmCommitments {
  amounts: Map<string, bigint>;
  gas: bigint;
}

/** What one treasury address holds and has committed, as the funds check reads it. */
export interface EvmFunds {
  /** The address's balance of `asset` at the latest block, read now. */
  balanceOf(asset: EvmAsset): Promise<bigint>;
  /** balanceOf, reused until reset() (the pipeline's next pass) or for BALANCE_TTL_MS. */
  cachedBalance(asset: EvmAsset): Promise<bigint>;
  /** The commitments, read once per pass and kept up to date by the caller (see evm-sender.ts prepare). */
  committed(): Promise<EvmCommitments>;
  /** A new pass: balances and commitments are read afresh. */
  reset(): void;
}

/**
 * Balances read for the funds check are sound to reuse because the check subtracts every send not
 * yet recorded as landed: a transfer mined after the read is still subtracted (the pipeline records
 * landings only in its status step, after head()), so a stale balance errs on the side of waiting,
 * never of overspending.
 */
export function createEvmFunds(db: Database, node: EvmNode, chain: ChainId, address: Address): EvmFunds {
  const balanceOf = async (asset: EvmAsset): Promise<bigint> => {
    if (asset.native || !asset.address)
      return BigInt(await node.rpc("eth_getBalance", [address, "latest"], quantityAnswer));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [address] });
    return BigInt(await node.rpc("eth_call", [{ to: asset.address, data }, "latest"], dataAnswer));
  };
  let balanceCache = new Map<string, { at: number; value: Promise<bigint> }>();
  // reserved(), read once per pass like the balances, then kept up to date by prepare(): every order
  // that passes the funds check is added at once, as if its attempt were already stored. An order
  // whose signing then fails stays counted until the next pass: it can make a send wait, never overspend.
  const commitments = reusedFor(BALANCE_TTL_MS, () => reserved(db, chain, address));
  return {
    balanceOf,
    cachedBalance(asset) {
      const cacheKey = asset.address ?? "native";
      const hit = balanceCache.get(cacheKey);
      if (hit && performance.now() - hit.at < BALANCE_TTL_MS) return hit.value;
      const value = balanceOf(asset);
      balanceCache.set(cacheKey, { at: performance.now(), value });
      value.catch(() => balanceCache.delete(cacheKey));
      return value;
    },
    committed: commitments.get,
    reset() {
      balanceCache = new Map();
      commitments.reset();
    },
  };
}

/**
 * What sends not yet mined will take from the treasury (the node's latest balance does not show
 * them yet): per asset their amounts, and the most gas their open attempts may burn. Only what this
 * address signed: a sweep's send leaves a deposit address, not the treasury.
 */
async function reserved(db: Database, chain: ChainId, address: Address): Promise<EvmCommitments> {
  const { rows } = await db.query<{ asset: string | null; amount: string }>(
    `SELECT asset, sum(amount_raw)::text AS amount FROM (
       SELECT DISTINCT s.id, s.asset, s.amount_raw
         FROM treasury_attempts a
         JOIN treasury_attempt_sends x ON x.attempt_id = a.id
         JOIN treasury_sends s ON s.id = x.send_id
        WHERE a.chain = $1 AND a.from_address = $2 AND a.state IN ('signed', 'broadcast')
          AND s.state IN ('signed', 'broadcast') AND s.landed_attempt_id IS NULL) open_sends
      GROUP BY asset
     UNION ALL
     SELECT NULL, COALESCE(sum((a.fee->>'gas')::numeric * COALESCE(a.fee->>'maxFeePerGas', a.fee->>'gasPrice')::numeric), 0)::text
       FROM treasury_attempts a
      WHERE a.chain = $1 AND a.from_address = $2 AND a.state IN ('signed', 'broadcast')
        AND NOT EXISTS (SELECT 1 FROM treasury_attempts r WHERE r.replaces = a.id)`,
    [chain, address],
  );
  const amounts = new Map<string, bigint>();
  let gas = 0n;
  for (const row of rows) {
    if (row.asset === null) gas = BigInt(row.amount.split(".")[0] ?? "0");
    else amounts.set(row.asset, BigInt(row.amount));
  }
  return { amounts, gas };
}

import type { ChainId } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import type { Address } from "viem";
import { quantityAnswer } from "./evm-answers.ts";
import type { EvmNode } from "./evm-node.ts";

/**
 * The treasury address's nonces, from treasury_nonces: allocated under the row's lock in the
 * pipeline's transaction, so two sends can never share one and a stored attempt exists for every
 * nonce handed out (no gap a crash could leave unexplained).
 */
export interface EvmNonces {
  /** The node's pending nonce while the chain has no nonce row yet (first send), else null. Read before the transaction. */
  startNonce(): Promise<number | null>;
  /** The next nonce, in the signing transaction (the row created from `startNonce` if given). */
  allocate(tx: Queryable, startNonce: number | null): Promise<number>;
}

export function createEvmNonces(db: Database, node: EvmNode, chain: ChainId, address: Address): EvmNonces {
  let nonceRowKnown = false;
  return {
    async startNonce() {
      if (nonceRowKnown) return null;
      const { rows } = await db.query("SELECT 1 FROM treasury_nonces WHERE chain = $1 AND address = $2", [
        chain,
        address,
      ]);
      if (rows.length === 1) {
        nonceRowKnown = true;
        return null;
      }
      return Number(BigInt(await node.rpc("eth_getTransactionCount", [address, "pending"], quantityAnswer)));
    },
    async allocate(tx, startNonce) {
      // Issued without waiting: it goes out with the UPDATE below (one round trip), which awaits it.
      const initialised =
        startNonce === null
          ? Promise.resolve()
          : tx.query(
              `INSERT INTO treasury_nonces (chain, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
              [chain, address, startNonce],
            );
      // The UPDATE takes the row's lock until this transaction ends: the next signer waits for our
      // commit (or rollback, which hands the same nonce out again: no gap).
      const [, { rows }] = await Promise.all([
        initialised,
        tx.query<{ nonce: string }>(
          `UPDATE treasury_nonces SET next_nonce = next_nonce + 1 WHERE chain = $1 AND address = $2
           RETURNING (next_nonce - 1)::text AS nonce`,
          [chain, address],
        ),
      ]);
      const allocated = rows[0];
      if (!allocated) throw new Error(`no nonce row for ${chain} ${address}`);
      nonceRowKnown = true;
      return Number(allocated.nonce);
    },
  };
}

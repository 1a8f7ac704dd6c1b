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
  /** The next nonce, in the signing transaction (the row created from `startNonce` if given); calls on one transaction in the same turn share one UPDATE, nonces in the order of the calls. */
  allocate(tx: Queryable, startNonce: number | null): Promise<number>;
}

export function createEvmNonces(db: Database, node: EvmNode, chain: ChainId, address: Address): EvmNonces {
  let nonceRowKnown = false;
  /** Per transaction, the allocations asked for in the current turn of the event loop, not yet issued. */
  const asked = new WeakMap<Queryable, Array<{ resolve: (nonce: number) => void; reject: (e: unknown) => void }>>();

  /**
   * One UPDATE for every allocation asked for on `tx` in the same turn (the pipeline signs a chunk
   * at once): a range of nonces, handed out in the order asked. The UPDATE takes the row's lock
   * until this transaction ends: the next signer waits for our commit (or rollback, which hands
   * the same nonces out again: no gap).
   */
  const issue = (tx: Queryable, waiting: Array<{ resolve: (nonce: number) => void; reject: (e: unknown) => void }>) => {
    asked.delete(tx);
    tx.query<{ first: string }>(
      `UPDATE treasury_nonces SET next_nonce = next_nonce + $3 WHERE chain = $1 AND address = $2
       RETURNING (next_nonce - $3)::text AS first`,
      [chain, address, waiting.length],
    )
      .then(({ rows }) => {
        const first = rows[0];
        if (!first) throw new Error(`no nonce row for ${chain} ${address}`);
        nonceRowKnown = true;
        for (const [i, w] of waiting.entries()) w.resolve(Number(first.first) + i);
      })
      .catch((error: unknown) => {
        for (const w of waiting) w.reject(error);
      });
  };

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
    allocate(tx, startNonce) {
      // Issued at once: it goes out before the UPDATE (pipelined), which only updates a row.
      const initialised =
        startNonce === null
          ? null
          : tx.query(
              `INSERT INTO treasury_nonces (chain, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
              [chain, address, startNonce],
            );
      const allocated = new Promise<number>((resolve, reject) => {
        const waiting = asked.get(tx);
        if (waiting) {
          waiting.push({ resolve, reject });
          return;
        }
        const first = [{ resolve, reject }];
        asked.set(tx, first);
        queueMicrotask(() => issue(tx, first));
      });
      // The INSERT's own error first: the UPDATE after it only says the transaction was aborted.
      return Promise.all([initialised, allocated]).then(([, nonce]) => nonce);
    },
  };
}

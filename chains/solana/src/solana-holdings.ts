import type { ChainAsset, ChainConfig } from "@mp/core";
import type { HoldingsReader } from "@mp/treasury/ports";
import { PublicKey } from "@solana/web3.js";
import { z } from "zod";
import { u64Schema } from "./rpc-schemas.ts";
import { createSolanaReads, READ_COMMITMENT } from "./send/solana-reads.ts";
import { associatedTokenAddress } from "./send/token-instructions.ts";

/** Addresses per JSON-RPC batch (balances are asked per address and asset). */
const CHUNK = 200;

const solanaBalance = z.object({ value: u64Schema });
const solanaTokenBalance = z.object({ value: z.object({ amount: z.string().regex(/^\d+$/) }) });

/** What reconciliation reads from a Solana node: lamports and token-account balances, and the fees recorded at signing. */
export function createSolanaHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  const { rpc } = createSolanaReads(config);
  const read = { commitment: READ_COMMITMENT };
  return {
    /**
     * Lamports of each address, and per token the balance of each address's associated token
     * account (where deposits and the treasury's tokens are held; a token account that does not
     * exist holds nothing).
     */
    async holdings(addresses) {
      await rpc.call("getSlot", [read]);
      const out = new Map(assets.map((a) => [a.asset, 0n]));
      for (const asset of assets) {
        const requests = addresses.map((owner) =>
          asset.address === null
            ? { method: "getBalance", params: [owner, read] }
            : {
                method: "getTokenAccountBalance",
                params: [associatedTokenAddress(new PublicKey(asset.address), new PublicKey(owner)).toBase58(), read],
              },
        );
        for (let i = 0; i < requests.length; i += CHUNK) {
          for (const outcome of await rpc.batch(requests.slice(i, i + CHUNK))) {
            // "could not find account" (-32602): no token account, nothing held.
            if (!outcome.ok && outcome.code === -32602) continue;
            if (!outcome.ok) throw new Error(`Solana RPC: ${outcome.message}`);
            const units =
              asset.address === null
                ? solanaBalance.parse(outcome.result).value
                : BigInt(solanaTokenBalance.parse(outcome.result).value.amount);
            out.set(asset.asset, (out.get(asset.asset) ?? 0n) + units);
          }
        }
      }
      return out;
    },
    async feePaid(txHash, recorded) {
      // The fee is fixed by the signed message (signatures x lamports per signature, plus any
      // priority fee), recorded when signed; the node is asked that the transaction landed.
      // A send that opened the recipient's token account also paid its rent (rent_lamports).
      const lamports = z.union([z.string(), z.number()]).safeParse(recorded.lamports);
      if (!lamports.success) return null;
      const rent = z.union([z.string(), z.number()]).safeParse(recorded.rent_lamports ?? "0");
      const answer = z
        .object({ value: z.array(z.unknown().nullable()) })
        .parse(await rpc.call("getSignatureStatuses", [[txHash], { searchTransactionHistory: true }]));
      return answer.value[0] ? BigInt(lamports.data) + (rent.success ? BigInt(rent.data) : 0n) : null;
    },
  };
}

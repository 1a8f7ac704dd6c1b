import type { ChainConfig } from "@mp/core";
import { JsonRpcClient, JsonRpcError } from "@mp/rpc";
import type { PublicKey } from "@solana/web3.js";
import { z } from "zod";
import { slotSchema, u64Schema } from "../rpc-schemas.ts";

/** Lamports per signature (the base fee, no priority fee). */
export const FEE_LAMPORTS_PER_SIGNATURE = 5_000n;
/** Account sizes whose rent-exempt minimum matters: a wallet (0 bytes) and an SPL token account (165). */
export const WALLET_SPACE = 0;
export const TOKEN_ACCOUNT_SPACE = 165;
/**
 * Reads at `confirmed` (voted by 2/3 of stake): the freshest state a transaction can safely build
 * on. Expiry is proven at `finalized` (solana-sender.ts).
 */
export const READ_COMMITMENT = "confirmed";

/** An RPC answer `{context: {slot}, value}`. */
export const contextValue = <T extends z.ZodType>(value: T) =>
  z.object({ context: z.object({ slot: slotSchema }), value });
const latestBlockhashSchema = contextValue(
  z.object({ blockhash: z.string().min(32), lastValidBlockHeight: slotSchema }),
);
const balanceSchema = contextValue(u64Schema);
const tokenBalanceSchema = contextValue(z.object({ amount: z.string().regex(/^\d+$/) }));
const accountLamportsSchema = contextValue(z.object({ lamports: u64Schema }).nullable());
/** The account reads a Solana transaction of the treasury is built on (the sender's and the sweeper's). */
export interface SolanaReads {
  readonly rpc: JsonRpcClient;
  latestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  lamportsOf(address: PublicKey): Promise<bigint>;
  /** The balance of a token account; 0 when it does not exist. */
  tokenUnitsOf(account: PublicKey): Promise<bigint>;
  /** The lamports of an account; null when it does not exist. */
  accountLamports(address: PublicKey): Promise<bigint | null>;
  /** getMinimumBalanceForRentExemption, asked once per size. */
  rentExemptMinimum(space: number): Promise<bigint>;
}

export function createSolanaReads(config: ChainConfig, fetch?: typeof globalThis.fetch): SolanaReads {
  const rpc = new JsonRpcClient({
    url: config.rpcUrl,
    setting: `CHAINS_CONFIG.${config.chain}.rpcUrl`,
    label: "Solana RPC",
    fetch,
  });
  const read = { commitment: READ_COMMITMENT };
  const rentExempt = new Map<number, bigint>();
  return {
    rpc,
    async latestBlockhash() {
      const answer = await rpc.call("getLatestBlockhash", [read]);
      return rpc.validated(latestBlockhashSchema, answer, "getLatestBlockhash").value;
    },
    async lamportsOf(address) {
      return rpc.validated(balanceSchema, await rpc.call("getBalance", [address.toBase58(), read]), "getBalance").value;
    },
    async tokenUnitsOf(account) {
      const [outcome] = await rpc.batch([{ method: "getTokenAccountBalance", params: [account.toBase58(), read] }]);
      if (!outcome) return 0n;
      // "could not find account" (-32602): the owner never held the token, or its account was closed.
      if (!outcome.ok) {
        if (outcome.code === -32602) return 0n;
        throw new JsonRpcError(rpc.label, "getTokenAccountBalance", outcome.code, outcome.message);
      }
      return BigInt(rpc.validated(tokenBalanceSchema, outcome.result, "getTokenAccountBalance").value.amount);
    },
    async accountLamports(address) {
      const answer = await rpc.call("getAccountInfo", [address.toBase58(), { ...read, encoding: "base64" }]);
      return rpc.validated(accountLamportsSchema, answer, "getAccountInfo").value?.lamports ?? null;
    },
    async rentExemptMinimum(space) {
      let lamports = rentExempt.get(space);
      if (lamports === undefined) {
        const answer = await rpc.call("getMinimumBalanceForRentExemption", [space, read]);
        lamports = rpc.validated(u64Schema, answer, "getMinimumBalanceForRentExemption");
        rentExempt.set(space, lamports);
      }
      return lamports;
    },
  };
}

import {
  type ChainAsset,
  type ChainConfig,
  type SandboxFaucet,
  ServiceUnavailableError,
  ValidationError,
} from "@mp/core";
import { PublicKey } from "@solana/web3.js";
import { z } from "zod";
import { DEFAULT_COMMITMENT } from "./constants.ts";
import { JsonRpcClient } from "./json-rpc-client.ts";
import { signatureSchema } from "./rpc-schemas.ts";
import { resolveSolanaAssets } from "./solana-assets.ts";

export interface SolanaFaucetOptions {
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
}

/** The test node's control endpoint for token value (Solana has no RPC that hands out SPL tokens). */
export const TEST_TOKEN_TRANSFER_PATH = "/_test/transfer";

const testTransferAnswerSchema = z.object({ signature: signatureSchema });

/**
 * Sends real value on the local sandbox node: SOL through the standard `requestAirdrop` RPC (as
 * on solana-test-validator or devnet), configured SPL tokens through the test node's
 * `POST /_test/transfer` (a signed transferChecked from the node's token treasury into the
 * recipient's associated token account). The transaction lands in the next slot the node produces.
 * `faucetPrivateKey` is not used: the node's own faucet and treasury keys sign.
 */
export function createSolanaFaucet(config: ChainConfig, options: SolanaFaucetOptions = {}): SandboxFaucet {
  const assets = resolveSolanaAssets(config);
  const rpc = new JsonRpcClient({ url: config.rpcUrl, fetch: options.fetch, timeoutMs: options.timeoutMs });
  const fetchImpl = options.fetch ?? globalThis.fetch;

  return {
    chain: "SOLANA",
    assets: (): ChainAsset[] => assets.list(),
    async send(to: string, asset: string, amountRaw: bigint): Promise<{ txHash: string }> {
      if (!isSolanaAddress(to)) throw new ValidationError("not a Solana address", "to");
      if (amountRaw <= 0n) throw new ValidationError("amount must be positive", "amount");
      if (asset === assets.native.asset) {
        if (amountRaw > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError("amount too large", "amount");
        const result = await rpc.call({
          method: "requestAirdrop",
          params: [to, Number(amountRaw), { commitment: DEFAULT_COMMITMENT }],
        });
        const signature = signatureSchema.safeParse(result);
        if (!signature.success) throw new ServiceUnavailableError("requestAirdrop: unexpected answer");
        return { txHash: signature.data };
      }
      const token = [...assets.tokensByMint.values()].find((candidate) => candidate.asset === asset);
      if (!token) throw new ValidationError(`asset ${asset} is not available on SOLANA`, "asset");
      return { txHash: await sendTestToken(fetchImpl, config.rpcUrl, to, token.address, amountRaw) };
    },
  };
}

function isSolanaAddress(value: string): boolean {
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

async function sendTestToken(
  fetchImpl: typeof globalThis.fetch,
  rpcUrl: string,
  to: string,
  mint: string,
  amount: bigint,
): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(new URL(TEST_TOKEN_TRANSFER_PATH, rpcUrl), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ to, mint, amount: amount.toString() }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new ServiceUnavailableError("Solana test node unreachable", { cause: error });
  }
  const body: unknown = await response.json().catch(() => null);
  const answer = testTransferAnswerSchema.safeParse(body);
  if (!response.ok || !answer.success) {
    throw new ServiceUnavailableError(`Solana test node refused the token transfer (HTTP ${response.status})`, {
      details: { body },
    });
  }
  return answer.data.signature;
}

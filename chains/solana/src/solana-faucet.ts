import { type ChainAsset, type ChainConfig, type SandboxFaucet, ValidationError } from "@mp/core";
import { HttpTransport, JsonRpcClient, validatedAnswer } from "@mp/rpc";
import { PublicKey } from "@solana/web3.js";
import { z } from "zod";
import { DEFAULT_COMMITMENT } from "./constants.ts";
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
  const node = {
    url: config.rpcUrl,
    setting: "CHAINS_CONFIG.SOLANA.rpcUrl",
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
  };
  const rpc = new JsonRpcClient({ ...node, label: "Solana RPC" });
  const testNode = new HttpTransport({ ...node, label: "Solana test node" });

  return {
    chain: "SOLANA",
    assets: (): ChainAsset[] => assets.list(),
    async send(to: string, asset: string, amountRaw: bigint): Promise<{ txHash: string }> {
      if (!isSolanaAddress(to)) throw new ValidationError("not a Solana address", "to");
      if (amountRaw <= 0n) throw new ValidationError("amount must be positive", "amount");
      if (asset === assets.native.asset) {
        if (amountRaw > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError("amount too large", "amount");
        const result = await rpc.call("requestAirdrop", [to, Number(amountRaw), { commitment: DEFAULT_COMMITMENT }]);
        return { txHash: rpc.validated(signatureSchema, result, "requestAirdrop") };
      }
      const token = [...assets.tokensByMint.values()].find((candidate) => candidate.asset === asset);
      if (!token) throw new ValidationError(`asset ${asset} is not available on SOLANA`, "asset");
      const body = JSON.stringify({ to, mint: token.address, amount: amountRaw.toString() });
      const answer = await testNode.post(TEST_TOKEN_TRANSFER_PATH, body, "token transfer");
      return { txHash: validatedAnswer(testTransferAnswerSchema, answer, "Solana test node transfer").signature };
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

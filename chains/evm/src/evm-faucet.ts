import { type ChainAsset, type ChainConfig, ConfigError, type SandboxFaucet, ValidationError } from "@mp/core";
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  erc20Abi,
  getAddress,
  InsufficientFundsError,
  isAddress,
  isHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { resolveEvmAssets } from "./evm-assets.ts";
import { evmTransport } from "./evm-transport.ts";
import { describeRpcFailure, EvmRpcError, unavailable } from "./rpc-failure.ts";

export interface EvmFaucetOptions {
  fetch?: typeof globalThis.fetch;
  /** Per HTTP request (default 30 s). */
  timeoutMs?: number;
}

/**
 * The last send of each (node, key): faucets of several chains may share one local node and key
 * (the seven EVM chains of the sandbox), so sends are serialised per pair, not per faucet.
 */
const sendQueues = new Map<string, Promise<void>>();

/**
 * Sends real value on the local sandbox chain (anvil) from `config.faucetPrivateKey`: the native
 * coin by a plain transfer, configured tokens by ERC-20 `transfer` (the local sandbox key is
 * anvil's account 0, which deployed the test USDC and holds its supply). Sends are serialised per
 * node and key, so concurrent requests never race for the same nonce. Returns once the node
 * accepted the transaction: under automine it is already mined, else it is in the next block.
 */
export function createEvmFaucet(config: ChainConfig, options: EvmFaucetOptions = {}): SandboxFaucet {
  const assets = resolveEvmAssets(config);
  const key = config.faucetPrivateKey;
  if (!key || !isHex(key) || key.length !== 66) {
    throw new ConfigError(
      "CHAINS_CONFIG",
      `${assets.chain}.faucetPrivateKey must be a 32-byte hex key for the sandbox faucet`,
    );
  }
  let account: ReturnType<typeof privateKeyToAccount>;
  try {
    account = privateKeyToAccount(key);
  } catch {
    // Not echoed: the library's message could quote the key.
    throw new ConfigError("CHAINS_CONFIG", `${assets.chain}.faucetPrivateKey is not a valid secp256k1 key`);
  }
  const wallet = createWalletClient({
    account,
    transport: evmTransport(config.rpcUrl, { timeoutMs: options.timeoutMs ?? 30_000, fetch: options.fetch }),
  });
  const queueKey = `${config.rpcUrl}|${account.address}`;

  const sendNow = async (to: `0x${string}`, asset: string, amountRaw: bigint): Promise<`0x${string}`> => {
    if (asset === assets.native.asset) {
      return wallet.sendTransaction({ to, value: amountRaw, chain: null });
    }
    const token = assets.tokens.find((candidate) => candidate.asset === asset);
    if (!token) throw new ValidationError(`asset ${asset} is not available on ${assets.chain}`, "asset");
    return wallet.writeContract({
      address: getAddress(token.address),
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, amountRaw],
      chain: null,
    });
  };

  return {
    chain: assets.chain,
    assets: (): ChainAsset[] => assets.list(),
    async send(to: string, asset: string, amountRaw: bigint): Promise<{ txHash: string }> {
      if (!isAddress(to)) throw new ValidationError(`not an EVM address: ${to}`, "to");
      if (amountRaw <= 0n) throw new ValidationError("amount must be positive", "amount");
      const recipient = getAddress(to);
      const result = (sendQueues.get(queueKey) ?? Promise.resolve()).then(() => sendNow(recipient, asset, amountRaw));
      const settled = result.then(
        () => undefined,
        () => undefined,
      );
      sendQueues.set(queueKey, settled);
      void settled.then(() => {
        if (sendQueues.get(queueKey) === settled) sendQueues.delete(queueKey);
      });
      try {
        return { txHash: await result };
      } catch (error) {
        throw faucetError(error, config.rpcUrl);
      }
    },
  };
}

/** Validation errors pass; a faucet short of funds is not retryable; anything else is an outage. */
function faucetError(error: unknown, url: string): Error {
  if (error instanceof ValidationError) return error;
  if (error instanceof BaseError) {
    const broke =
      error.walk((e) => e instanceof InsufficientFundsError || e instanceof ContractFunctionRevertedError) !== null;
    if (broke) {
      const failure = describeRpcFailure("faucet send", error, url);
      return new EvmRpcError(`sandbox faucet cannot pay: ${failure.message}`, failure, { retryable: false });
    }
  }
  return unavailable(describeRpcFailure("faucet send", error, url));
}

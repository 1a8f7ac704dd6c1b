import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { bitcoinRpc } from "@mp/chain-bitcoin";
import { u64Schema } from "@mp/chain-solana";
import { base58ToHex } from "@mp/chain-tron";
import { type ChainAsset, type ChainConfig, chainFamily } from "@mp/core";
import { JsonRpcError } from "@mp/rpc";
import { PublicKey } from "@solana/web3.js";
import { createPublicClient, encodeFunctionData, erc20Abi, type Hex, http } from "viem";
import { z } from "zod";
import { CORE_RPC } from "../bitcoin/core-refusals.ts";
import { createSolanaReads, READ_COMMITMENT } from "../solana/solana-reads.ts";
import { associatedTokenAddress } from "../solana/token-instructions.ts";
import { TronNode } from "../tron/tron-node.ts";
import type { KnownOutput } from "./known-output.ts";
import type { MinedBlock } from "./mined-block.ts";

/** What reconciliation reads from one chain's node: our holdings, and the fees our transactions paid. */
export interface HoldingsReader {
  /** What `addresses` hold together now of each asset, in smallest units (every asset present, 0 included). */
  holdings(addresses: readonly string[], known: readonly KnownOutput[]): Promise<Map<string, bigint>>;
  /**
   * The network fee (native coin, smallest units) a mined transaction of ours paid, read from the
   * chain by its hash; `recorded` is the attempt's stored fee (a Bitcoin transaction's fee is fixed
   * by its bytes when signed). Null when the node does not have the transaction.
   */
  feePaid(txHash: string, recorded: Record<string, unknown>, block: MinedBlock | null): Promise<bigint | null>;
}

/** Addresses per JSON-RPC batch (balances are asked per address and asset). */
const CHUNK = 200;

function evmReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  const client = createPublicClient({
    transport: http(config.rpcUrl, { timeout: 30_000, batch: { batchSize: CHUNK } }),
  });
  const rpc = <T>(method: string, params: unknown[]): Promise<T> =>
    client.request({ method: method as "eth_chainId", params: params as never }) as Promise<T>;
  const balanceOf = async (asset: ChainAsset, owner: string): Promise<bigint> => {
    if (asset.address === null) return BigInt(await rpc<Hex>("eth_getBalance", [owner, "latest"]));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [owner as Hex] });
    const answer = await rpc<Hex>("eth_call", [{ to: asset.address, data }, "latest"]);
    return answer === "0x" ? 0n : BigInt(answer);
  };
  return {
    async holdings(addresses) {
      // Asked first, always: a chain where we hold nothing yet must still prove its node answers.
      await rpc<Hex>("eth_blockNumber", []);
      const out = new Map(assets.map((a) => [a.asset, 0n]));
      for (let i = 0; i < addresses.length; i += CHUNK) {
        const chunk = addresses.slice(i, i + CHUNK);
        for (const asset of assets) {
          const balances = await Promise.all(chunk.map((owner) => balanceOf(asset, owner)));
          out.set(asset.asset, (out.get(asset.asset) ?? 0n) + balances.reduce((a, b) => a + b, 0n));
        }
      }
      return out;
    },
    async feePaid(txHash) {
      const receipt = await rpc<{ gasUsed: Hex; effectiveGasPrice: Hex; l1Fee?: Hex } | null>(
        "eth_getTransactionReceipt",
        [txHash],
      );
      if (!receipt) return null;
      // OP-stack chains (Base, Optimism) charge the L1 data fee on top, reported in the receipt.
      return BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice) + BigInt(receipt.l1Fee ?? "0x0");
    },
  };
}

const txOutSchema = z.object({
  value: z.union([z.string(), z.number()]),
  scriptPubKey: z.object({ address: z.string().optional() }),
});

function bitcoinReader(config: ChainConfig): HoldingsReader {
  const rpc = bitcoinRpc(config, { timeoutMs: 30_000 });
  return {
    /**
     * The unspent outputs of our addresses. A node has no address index, so this asks it which of the
     * outputs our records know (deposits, treasury receipts and coins) are still unspent in its chain
     * (gettxout, mempool excluded): a spent or reorganised-away output counts nothing. An output our
     * records do not know (a payment the indexer missed) is not seen here; Bitcoin Core's
     * `scantxoutset` over addr() descriptors would find it, at the cost of a full UTXO-set scan.
     */
    async holdings(addresses, known) {
      // Asked first, always: a chain where we hold nothing yet must still prove its node answers.
      await rpc.call("getblockcount");
      const ours = new Set(addresses);
      const unique = [...new Map(known.map((o) => [`${o.txid}:${o.vout}`, o])).values()];
      let total = 0n;
      for (let i = 0; i < unique.length; i += CHUNK) {
        const chunk = unique.slice(i, i + CHUNK);
        const answers = await rpc.all(chunk.map((o) => ({ method: "gettxout", params: [o.txid, o.vout, false] })));
        for (const answer of answers) {
          if (answer === null) continue;
          const out = txOutSchema.parse(answer);
          if (out.scriptPubKey.address === undefined || !ours.has(out.scriptPubKey.address)) continue;
          const sats = btcToSatoshis(out.value);
          if (sats === null) throw new Error(`gettxout answered an unreadable amount ${String(out.value)}`);
          total += sats;
        }
      }
      return new Map([["BTC", total]]);
    },
    async feePaid(txHash, recorded, block) {
      const fee = z.union([z.string(), z.number()]).safeParse(recorded.fee);
      if (!fee.success || block === null) return null;
      // The recorded fee is what it paid while its block is still the chain's and holds it. Asked
      // with the block's hash: a node without -txindex (Core's default) finds it only so.
      try {
        const found = z
          .object({ in_active_chain: z.boolean().optional() })
          .parse(await rpc.call("getrawtransaction", [txHash, true, block.hash]));
        return found.in_active_chain === false ? null : BigInt(fee.data);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) throw error;
        if (error.rpcCode === CORE_RPC.INVALID_ADDRESS_OR_KEY) return null;
        // A pruned node no longer has the block's data: its hash at that height still says it is ours.
        if (error.rpcCode !== CORE_RPC.MISC_ERROR) throw error;
        return (await rpc.call("getblockhash", [block.height])) === block.hash ? BigInt(fee.data) : null;
      }
    },
  };
}

const solanaBalance = z.object({ value: u64Schema });
const solanaTokenBalance = z.object({ value: z.object({ amount: z.string().regex(/^\d+$/) }) });

function solanaReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
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

function tronReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader {
  const node = new TronNode({ url: config.rpcUrl, setting: `CHAINS_CONFIG.${config.chain}.rpcUrl` });
  /** TRC-20 balanceOf(owner), asked of the node without a transaction. */
  const tokenUnits = async (contractHex: string, ownerHex: string): Promise<bigint> => {
    const call = await node.constantCall(ownerHex, contractHex, `70a08231${ownerHex.slice(2).padStart(64, "0")}`);
    return call.result === "" ? 0n : BigInt(`0x${call.result}`);
  };
  return {
    async holdings(addresses) {
      await node.head();
      const out = new Map(assets.map((a) => [a.asset, 0n]));
      for (const owner of addresses) {
        const ownerHex = base58ToHex(owner);
        for (const asset of assets) {
          const units =
            asset.address === null
              ? await node.balance(ownerHex)
              : await tokenUnits(base58ToHex(asset.address), ownerHex);
          out.set(asset.asset, (out.get(asset.asset) ?? 0n) + units);
        }
      }
      return out;
    },
    async feePaid(txHash) {
      // What the chain charged (bandwidth and energy burnt, in sun), from its receipt.
      const info = await node.transactionInfo(txHash);
      return info ? BigInt(info.fee ?? 0) : null;
    },
  };
}

/** The reader for a configured chain. */
export function createHoldingsReader(config: ChainConfig, assets: readonly ChainAsset[]): HoldingsReader | null {
  switch (chainFamily(config.chain)) {
    case "evm":
      return evmReader(config, assets);
    case "bitcoin":
      return bitcoinReader(config);
    case "solana":
      return solanaReader(config, assets);
    case "tron":
      return tronReader(config, assets);
  }
}

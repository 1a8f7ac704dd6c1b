import { btcToSatoshis } from "@mp/bitcoin-protocol";
import type { ChainConfig } from "@mp/core";
import { JsonRpcError } from "@mp/rpc";
import type { HoldingsReader } from "@mp/treasury/ports";
import { z } from "zod";
import { bitcoinRpc } from "./bitcoin-rpc.ts";
import { CORE_RPC } from "./send/core-refusals.ts";

/** Addresses per JSON-RPC batch (balances are asked per address and asset). */
const CHUNK = 200;

const txOutSchema = z.object({
  value: z.union([z.string(), z.number()]),
  scriptPubKey: z.object({ address: z.string().optional() }),
});

/** What reconciliation reads from a Bitcoin node: our known outputs still unspent, and the fees recorded at signing. */
export function createBitcoinHoldingsReader(config: ChainConfig): HoldingsReader {
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

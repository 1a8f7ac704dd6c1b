import type { BitcoinNetworkParams } from "@mp/bitcoin-protocol";
import { BTC_DECIMALS } from "@mp/bitcoin-protocol";
import {
  type AddressMatcher,
  type ChainId,
  ChainMisconfiguredError,
  NATIVE_ASSETS,
  normalizeAddress,
  type ObservedTransfer,
} from "@mp/core";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import type { RpcBlock, RpcTransaction } from "./rpc-schemas.ts";

/** The asset symbol deposits are recorded as (data from @mp/core, not a literal here). */
export const BTC_ASSET = NATIVE_ASSETS.BITCOIN.asset;

export interface TransferContext {
  chain: ChainId;
  network: BitcoinNetworkParams;
  blockHeight: number;
  blockHash: string;
  watch: AddressMatcher;
}

// OP_0 PUSH20 <20-byte key hash>: the only output type a wallet receive address can be.
const P2WPKH_HEX_LENGTH = 44;
const P2WPKH_PREFIX = "0014";

/**
 * The bech32 address of a P2WPKH output script given as hex, for the configured network; null for
 * every other script (OP_RETURN, non-standard, P2TR, ...: no receive address of ours can be one).
 * The address is derived from the script, not taken from the node, so the configured network decides.
 */
export function p2wpkhAddressOf(scriptHex: string, network: BitcoinNetworkParams): string | null {
  if (scriptHex.length !== P2WPKH_HEX_LENGTH || !scriptHex.startsWith(P2WPKH_PREFIX)) return null;
  const keyHash = Buffer.from(scriptHex.slice(P2WPKH_PREFIX.length), "hex");
  return bitcoinAddress.toBech32(keyHash, 0, network.encoding.bech32);
}

/**
 * Deposits in one transaction: one per output paying a watched P2WPKH address with a non-zero
 * amount, position `vout:<n>`. Coinbase outputs are not deposits: they cannot be spent for 100
 * blocks and vanish with a reorg, so crediting them would credit money the merchant cannot move.
 */
export function transfersInTransaction(tx: RpcTransaction, context: TransferContext): ObservedTransfer[] {
  if (tx.vin[0]?.coinbase !== undefined) return [];
  const found: ObservedTransfer[] = [];
  for (const output of tx.vout) {
    const to = p2wpkhAddressOf(output.scriptPubKey.hex, context.network);
    if (to === null) continue;
    const reported = output.scriptPubKey.address;
    if (reported !== undefined && reported !== to) {
      // The node encodes addresses for its own chain: a different encoding means the adapter is
      // pointed at another network than configured, and every match would silently fail.
      throw new ChainMisconfiguredError(
        `CHAINS_CONFIG.${context.chain}.network is ${context.network.name} but the node reports addresses of another network (${reported.slice(0, 4)}...)`,
      );
    }
    if (!context.watch.has(normalizeAddress(context.chain, to))) continue;
    const amountRaw = output.value;
    if (amountRaw === 0n) continue;
    found.push({
      txHash: tx.txid,
      position: `vout:${output.n}`,
      blockHeight: context.blockHeight,
      blockHash: context.blockHash,
      from: null,
      to,
      asset: BTC_ASSET,
      contractAddress: null,
      amountRaw,
      decimals: BTC_DECIMALS,
    });
  }
  return found;
}

/** Deposits in a block from `getblock <hash> 2`, in transaction then output order. */
export function transfersInBlock(
  block: RpcBlock,
  context: Omit<TransferContext, "blockHeight" | "blockHash">,
): ObservedTransfer[] {
  const found: ObservedTransfer[] = [];
  const blockContext: TransferContext = { ...context, blockHeight: block.height, blockHash: block.hash };
  for (const tx of block.tx) {
    for (const transfer of transfersInTransaction(tx, blockContext)) found.push(transfer);
  }
  return found;
}

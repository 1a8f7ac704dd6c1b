import type { BitcoinNetworkParams } from "@mp/bitcoin-protocol";
import { type ChainId, ValidationError } from "@mp/core";
import type { SendOrder, StoredAttempt } from "@mp/treasury/ports";
import { address as bitcoinAddress, type networks, type Transaction } from "bitcoinjs-lib";
import { BTC_ASSET } from "../block-transfers.ts";
import { P2WPKH_DUST } from "./bitcoin-fees.ts";
import type { TxOutput } from "./coin-selection.ts";

/** One output per order, in order: checked to be BTC, to an address of `network`, above dust. */
export function orderOutputs(orders: readonly SendOrder[], chain: ChainId, network: BitcoinNetworkParams): TxOutput[] {
  return orders.map((order) => {
    if (order.asset !== BTC_ASSET) throw new ValidationError(`${chain} sends ${BTC_ASSET} only, not ${order.asset}`);
    let script: Uint8Array;
    try {
      script = bitcoinAddress.toOutputScript(order.to, network.encoding);
    } catch {
      throw new ValidationError(`${order.to} is not a ${network.name} Bitcoin address`, "to");
    }
    if (order.amountRaw < P2WPKH_DUST) {
      throw new ValidationError(`${order.amountRaw} sat is below the dust limit (${P2WPKH_DUST})`, "amount");
    }
    return { script, value: order.amountRaw };
  });
}

/** The change output of a stored attempt: the one output no order names. */
export function changeOf(attempt: StoredAttempt, tx: Transaction, encoding: networks.Network) {
  const named = new Set(attempt.orders.map((o) => o.outputIndex));
  for (const [vout, output] of tx.outs.entries()) {
    if (named.has(vout)) continue;
    return { vout, address: bitcoinAddress.fromOutputScript(output.script, encoding), amountRaw: output.value };
  }
  return null;
}

/** The orders in the output order of the attempt a replacement replaces: the same payments at the same indexes. */
export function ordersAsPaid(attempt: StoredAttempt, orders: readonly SendOrder[]): SendOrder[] {
  const byId = new Map(orders.map((order) => [order.id, order]));
  return [...attempt.orders]
    .sort((a, b) => (a.outputIndex ?? 0) - (b.outputIndex ?? 0))
    .map((o, index) => {
      const order = byId.get(o.id);
      if (order === undefined || o.outputIndex !== index) {
        throw new Error(`attempt ${attempt.id} does not pay its orders at outputs 0..${attempt.orders.length - 1}`);
      }
      return order;
    });
}

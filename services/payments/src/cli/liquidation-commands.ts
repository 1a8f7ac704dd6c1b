import type { Command } from "commander";
import { addMerchantRecordsList, addShowCommand } from "./cli-support.ts";

/** `payments liquidation list|show`: the operator's view of liquidation addresses and their drains (any merchant's). */
export function addLiquidationCommands(program: Command): void {
  const group = program.command("liquidation").description("Operator: liquidation addresses and their drains");
  addMerchantRecordsList(group, {
    description: "The newest liquidation addresses, of every merchant or one: address, destination, drains per state",
    statuses: ["active", "disabled"],
    json: "one JSON object per line (the API's form, with merchant_id and drains per state)",
    find: async (db, _config, filter) =>
      (await import("@mp/liquidation")).listLiquidationAddressesForOperator(db, filter),
    text: (r) =>
      `${r.id} ${r.status} ${r.asset} on ${r.network} ${r.address} -> ${r.destination.type} ${r.destination.asset}${r.destination.address ? ` ${r.destination.address}` : ` ${r.destination.bank_account?.account_number ?? ""}`} drains ${
        Object.entries(r.drains)
          .map(([state, n]) => `${state}:${n}`)
          .join(",") || "none"
      } merchant ${r.merchant_id}`,
    counted: "liquidation addresses",
  });
  addShowCommand(group, {
    what: "liquidation address",
    description: "One liquidation address and its drains (state, amounts, transfer)",
    json: "the address and its drains as one JSON object",
    find: async (db, _config, id) => (await import("@mp/liquidation")).findLiquidationAddressForOperator(db, id),
    lines: (address) => [
      `${address.id} ${address.status} (merchant ${address.merchant_id})`,
      `${address.asset} on ${address.network} at ${address.address} -> ${address.destination.type} ${address.destination.asset} on ${address.destination.network}`,
      ...address.drain_list.map(
        (d) =>
          `drain ${d.id} ${d.state}${d.not_paid_reason ? ` (${d.not_paid_reason})` : ""}${d.failure_reason ? ` (${d.failure_reason})` : ""} ${d.deposit.amount} ${d.deposit.asset}${d.destination_amount ? ` -> ${d.destination_amount.value} ${d.destination_amount.asset} (fee ${d.fee?.value})` : ""}${d.transfer_id ? ` transfer ${d.transfer_id}` : ""} deposit ${d.deposit_id}`,
      ),
    ],
  });
}

import { ConfigError } from "@mp/core";
import { type Command, InvalidArgumentError, Option } from "commander";
import { printJson, printList, withDatabase } from "./cli-support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuid = (what: string) => (value: string) => {
  if (!UUID.test(value)) throw new InvalidArgumentError(`must be a ${what} id (UUID)`);
  return value;
};

/** `payments liquidation list|show`: the operator's view of liquidation addresses and their drains (any merchant's). */
export function addLiquidationCommands(program: Command): void {
  const group = program.command("liquidation").description("Operator: liquidation addresses and their drains");
  group
    .command("list")
    .description("The newest liquidation addresses, of every merchant or one: address, destination, drains per state")
    .option("--merchant <id>", "only this merchant's", uuid("merchant"))
    .addOption(new Option("--status <status>", "only those in this status").choices(["active", "disabled"]))
    .option("--limit <n>", "how many (1..1000)", "50")
    .option("--json", "one JSON object per line (the API's form, with merchant_id and drains per state)")
    .action(async (options: { merchant?: string; status?: string; limit: string; json?: boolean }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ConfigError("--limit", "must be 1..1000");
      const { listLiquidationAddressesForOperator } = await import("@mp/liquidation");
      const items = await withDatabase((db) =>
        listLiquidationAddressesForOperator(db, { merchantId: options.merchant, status: options.status, limit }),
      );
      printList(options.json, items, {
        json: (r) => r,
        text: (r) =>
          `${r.id} ${r.status} ${r.asset} on ${r.network} ${r.address} -> ${r.destination.type} ${r.destination.asset}${r.destination.address ? ` ${r.destination.address}` : ` ${r.destination.bank_account?.account_number ?? ""}`} drains ${
            Object.entries(r.drains)
              .map(([state, n]) => `${state}:${n}`)
              .join(",") || "none"
          } merchant ${r.merchant_id}`,
        counted: "liquidation addresses",
      });
    });
  group
    .command("show")
    .description("One liquidation address and its drains (state, amounts, transfer)")
    .argument("<id>", "the liquidation address's id", uuid("liquidation address"))
    .option("--json", "the address and its drains as one JSON object")
    .action(async (id: string, options: { json?: boolean }) => {
      const { findLiquidationAddressForOperator } = await import("@mp/liquidation");
      const address = await withDatabase((db) => findLiquidationAddressForOperator(db, id));
      if (!address) {
        process.stderr.write(`liquidation address ${id} not found\n`);
        process.exitCode = 1;
        return;
      }
      if (options.json) {
        printJson(address);
        return;
      }
      const lines = [
        `${address.id} ${address.status} (merchant ${address.merchant_id})`,
        `${address.asset} on ${address.network} at ${address.address} -> ${address.destination.type} ${address.destination.asset} on ${address.destination.network}`,
        ...address.drain_list.map(
          (d) =>
            `drain ${d.id} ${d.state}${d.not_paid_reason ? ` (${d.not_paid_reason})` : ""}${d.failure_reason ? ` (${d.failure_reason})` : ""} ${d.deposit.amount} ${d.deposit.asset}${d.destination_amount ? ` -> ${d.destination_amount.value} ${d.destination_amount.asset} (fee ${d.fee?.value})` : ""}${d.transfer_id ? ` transfer ${d.transfer_id}` : ""} deposit ${d.deposit_id}`,
        ),
      ];
      process.stdout.write(`${lines.join("\n")}\n`);
    });
}

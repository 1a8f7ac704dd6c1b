import { CHAIN_IDS } from "@mp/core/chain-ids";
import { type Command, Option } from "commander";
import { addListCommand } from "./cli-support.ts";
import type { SendOptions } from "./treasury-actions.ts";

// The actions load the treasury, custody and chain modules only when one runs.
const actions = () => import("./treasury-actions.ts");

/** `payments treasury addresses|balances|pending|send`: the operators' view of the hot wallet. */
export function addTreasuryCommands(program: Command): void {
  const treasury = program
    .command("treasury")
    .description("Operators: the treasury's addresses, balances and sends (keys stay with the signer role)");

  addListCommand(
    treasury,
    "addresses",
    "List the treasury's addresses (recorded by the signer at start) with their derivation paths",
    async (json) => {
      await (await actions()).printTreasuryAddresses(json);
    },
  );

  addListCommand(
    treasury,
    "balances",
    "What the treasury holds per chain and asset, as the signer last read it from the chains",
    async (json) => {
      await (await actions()).printTreasuryBalances(json);
    },
  );

  addListCommand(
    treasury,
    "pending",
    "Sends not yet confirmed or failed, oldest first, with their state and why they wait",
    async (json) => {
      await (await actions()).printPendingSends(json);
    },
  );

  treasury
    .command("send")
    .description(
      "Ask the signer to send from the treasury; returns once stored (the same --key again returns the same send)",
    )
    .addOption(new Option("--chain <chain>", "chain").choices(CHAIN_IDS).makeOptionMandatory())
    .requiredOption("--asset <asset>", "asset symbol configured for the chain (ETH, USDC, BTC, SOL, TRX ...)")
    .requiredOption("--to <address>", "recipient address on that chain")
    .requiredOption("--amount <decimal>", "amount in whole units, e.g. 12.5 (at most the asset's decimals)")
    .requiredOption("--key <key>", "your idempotency key: the same key again sends nothing more")
    .option("--json", "print one JSON object on stdout")
    .option("--wait", "wait until the send is confirmed (exit 0) or failed (exit 1)")
    .action(async (options: SendOptions) => {
      await (await actions()).sendFromTreasury(options);
    });
}

import { type Command, InvalidArgumentError } from "commander";
import { uuidOf, withDatabase } from "./cli-support.ts";

const instant = (value: string): Date => {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError("must be a date or time (ISO 8601)");
  return date;
};

const merchantId = uuidOf("merchant");

/** `payments webhooks replay`: the operator's recovery after an outage (ours or the receivers'). */
export function addWebhookCommands(program: Command): void {
  const webhooks = program.command("webhooks").description("Operators: webhook deliveries");
  webhooks
    .command("replay")
    .description(
      "Queue again every event created in [--from, --to) for each enabled endpoint subscribed to it that has not received it (none pending)",
    )
    .requiredOption("--from <time>", "first creation time included (ISO 8601)", instant)
    .requiredOption("--to <time>", "creation time excluded (ISO 8601)", instant)
    .option("--merchant <id>", "only this merchant's events", merchantId)
    .action(async (options: { from: Date; to: Date; merchant?: string }) => {
      if (options.to <= options.from) throw new InvalidArgumentError("--to must be after --from");
      const { replayDeliveries } = await import("@mp/webhooks");
      const queued = await withDatabase((db) =>
        replayDeliveries(db, { from: options.from, to: options.to, merchantId: options.merchant }),
      );
      process.stdout.write(`${JSON.stringify({ queued })}\n`);
    });
}

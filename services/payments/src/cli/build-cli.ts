import type { Environment } from "@mp/api";
import { Command, Option } from "commander";
import type { Role } from "../serve.ts";
import { addBankCommands } from "./bank-commands.ts";
import { print, uuidOf, withDatabase } from "./cli-support.ts";
import { addKycCommands } from "./kyc-commands.ts";
import { addLiquidationCommands } from "./liquidation-commands.ts";
import { addOperatorCommands } from "./operator-commands.ts";
import { addPaymentRequestCommands } from "./payment-request-commands.ts";
import { addReconcileCommands } from "./reconcile-commands.ts";
import { addSanctionsCommands } from "./sanctions-commands.ts";
import { addTransferCommands } from "./transfer-commands.ts";
import { addTreasuryCommands } from "./treasury-commands.ts";
import { addUserCommands } from "./user-commands.ts";
import { addWebhookCommands } from "./webhook-commands.ts";

const uuid = uuidOf("merchant");

/**
 * The `payments` command's declarations (names, options, help). They import commander and light
 * modules only; each action imports what it runs when it runs, from the module that holds it (a
 * package's subpath export, e.g. @mp/api/merchants) rather than a package's index, which reaches
 * the HTTP app and the chain clients. The build splits every `import()` into its own chunk, so
 * `--help` loads commander alone and a command only its own modules (test/cli/command-modules.test.ts).
 */
export function buildCli(): Command {
  const program = new Command("payments")
    .description("Multi-chain merchant payments service: run it, migrate it, manage merchants and keys")
    .showHelpAfterError();

  program
    .command("serve")
    .description(
      "Run the service: the API, the chain indexers, the background workers and the treasury's signer, or one role",
    )
    .addOption(
      new Option("--role <role>", "which role this process runs")
        .choices(["api", "indexer", "worker", "signer", "all"])
        .default("all"),
    )
    .option("--chains <list>", "comma-separated chains to index (indexer/all roles), e.g. BASE,SOLANA")
    .action(async (options: { role: Role; chains?: string }) => {
      // Core's index (the configuration's schemas, the logger) only for a command that runs.
      const { createLogger, loadConfig } = await import("@mp/core");
      const config = loadConfig();
      const logger = createLogger({ level: config.logLevel });
      // Loaded only to serve: the chain adapters and test nodes are heavy for one-shot commands.
      const { serve } = await import("../serve.ts");
      let service: Awaited<ReturnType<typeof serve>> | undefined;
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, "shutting down");
        // A signal while starting is handled once the start ends: what it started (the local
        // sandbox's anvils) is stopped too, never left running without the process that owns it.
        if (!service) return;
        service.stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: String(error) }, "shutdown failed");
            process.exit(1);
          },
        );
      };
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      process.on("SIGINT", () => shutdown("SIGINT"));
      service = await serve({
        config,
        logger,
        role: options.role,
        ...(options.chains ? { chainFilter: options.chains } : {}),
      });
      if (stopping) {
        stopping = false;
        shutdown("signal received while starting");
      }
    });

  program
    .command("migrate")
    .description("Apply pending database migrations (also done at every start; safe to run concurrently)")
    .action(async () => {
      await withDatabase(async () => {});
      process.stderr.write("migrations applied\n");
    });

  const merchants = program.command("merchants").description("Manage merchants");
  merchants
    .command("create")
    .description("Create a merchant and its first API key (the key is shown once)")
    .requiredOption("--name <name>", "merchant name")
    .addOption(
      new Option("--environment <env>", "key environment").choices(["sandbox", "production"]).default("sandbox"),
    )
    .option("--json", "print one JSON object on stdout")
    .action(async (options: { name: string; environment: Environment; json?: boolean }) => {
      const [{ createMerchant }, { fillCustodyPoolsIfNeeded }] = await Promise.all([
        import("@mp/api/merchants"),
        import("../fill-custody-pools.ts"),
      ]);
      const created = await withDatabase(async (db, config, logger) => {
        await fillCustodyPoolsIfNeeded(db, config, logger);
        return createMerchant(db, { name: options.name, environment: options.environment });
      });
      print(
        options.json === true,
        { merchant_id: created.merchantId, api_key: created.key.apiKey, environment: created.environment },
        `merchant ${created.merchantId} (${created.environment})\napi key (shown once): ${created.key.apiKey}`,
      );
    });
  merchants
    .command("return-policy")
    .description(
      "Show or set what happens to a payer's money that comes late for a transfer: credit (default) or return",
    )
    .requiredOption("--merchant <id>", "merchant id")
    .addOption(
      new Option("--policy <policy>", "credit: to the merchant's available; return: back to the payer").choices([
        "credit",
        "return",
      ]),
    )
    .option("--json", "print one JSON object on stdout")
    .action(async (options: { merchant: string; policy?: "credit" | "return"; json?: boolean }) => {
      const { merchantReturnPolicy } = await import("./return-policy-action.ts");
      const policy = await withDatabase((db) => merchantReturnPolicy(db, options.merchant, options.policy));
      print(
        options.json === true,
        { merchant_id: options.merchant, return_policy: policy },
        `merchant ${options.merchant} return policy: ${policy}`,
      );
    });

  const keys = program.command("keys").description("Manage API keys");
  keys
    .command("create")
    .description("Create another API key for a merchant (shown once)")
    .requiredOption("--merchant <id>", "merchant id", uuid)
    .option("--json", "print one JSON object on stdout")
    .action(async (options: { merchant: string; json?: boolean }) => {
      const { createApiKey } = await import("@mp/api/api-keys");
      const key = await withDatabase(async (db) => {
        const merchant = await db.query<{ environment: Environment }>(
          "SELECT environment FROM merchants WHERE id = $1",
          [options.merchant],
        );
        const environment = merchant.rows[0]?.environment;
        if (!environment) throw new Error(`no merchant ${options.merchant}`);
        return createApiKey(db, options.merchant, environment);
      });
      print(
        options.json === true,
        { merchant_id: options.merchant, api_key: key.apiKey, key_prefix: key.prefix, environment: key.environment },
        `api key (shown once): ${key.apiKey}\nprefix: ${key.prefix}`,
      );
    });
  keys
    .command("revoke")
    .description("Revoke an API key by its prefix (as shown at creation, e.g. sk_sandbox_AbCd1234)")
    .requiredOption("--key-prefix <prefix>", "the key's prefix")
    .action(async (options: { keyPrefix: string }) => {
      const { revokeApiKey } = await import("@mp/api/api-keys");
      const revoked = await withDatabase((db) => revokeApiKey(db, options.keyPrefix));
      if (revoked === 0) throw new Error(`no active key with prefix ${options.keyPrefix}`);
      process.stdout.write(`revoked ${revoked} key\n`);
    });

  addOperatorCommands(program, keys);
  addKycCommands(program);
  addBankCommands(program);
  addTransferCommands(program);
  addPaymentRequestCommands(program);
  addLiquidationCommands(program);
  addWebhookCommands(program);
  addTreasuryCommands(program);
  addReconcileCommands(program);
  addSanctionsCommands(program);
  addUserCommands(program);
  return program;
}

import type { Server } from "node:http";
import {
  type AppDeps,
  createApp,
  fundingWallets,
  KYC_AND_BANKING_QUEUES,
  keepIdleConnections,
  PROVISION_CUSTOMER_JOB,
  provisionCustomer,
  registerKycAndBankingWorkers,
  sweepIdempotencyKeys,
  WalletSlots,
} from "@mp/api";
import {
  type AppConfig,
  type ChainId,
  type ChainsConfig,
  ConfigError,
  type Logger,
  type SandboxFaucet,
} from "@mp/core";
import { type Custody, type CustodyPoolFiller, createPublicCustody, type PublicCustody } from "@mp/custody";
import { withDashboard } from "@mp/dashboard";
import { loadEncryptionKeyring } from "@mp/encryption";
import { pruneEvents } from "@mp/events";
import { forgetChain, getIndexerStates, registerLeaderMetrics } from "@mp/indexer";
import { createJobQueue, type JobQueue } from "@mp/jobs";
import { registerLiquidationMetrics, startDrainer } from "@mp/liquidation";
import { registerPaymentRequestMetrics, startPaymentRequestMatcher } from "@mp/payment-requests";
import { registerSanctionsMetrics } from "@mp/providers";
import { startTransferExecutor } from "@mp/transfers";
import { registerTreasuryMetrics } from "@mp/treasury";
import { registerWebhookMetrics, startWebhookWorker } from "@mp/webhooks";
import { Counter, collectDefaultMetrics, Registry } from "prom-client";
import { bitcoinNetworkOf } from "./bitcoin-network.ts";
import { createChainFaucet, reconcileTargets } from "./chain-adapters.ts";
import { familyOf, isChainAddress, KEY_SCHEMES, paymentUriOf } from "./chain-families.ts";
import { checkEncryptionKeys } from "./cli/rotate-encryption.ts";
import { selectChains, startIndexers } from "./indexers.ts";
import { registerLedgerChecks } from "./ledger-checks.ts";
import type { LocalSandbox } from "./local-sandbox.ts";
import { openCustody } from "./open-custody.ts";
import { createProviders, type Providers, refuseSandboxProviders } from "./providers.ts";
import { openMigratedDatabase } from "./runtime.ts";
import { openSanctionsScreening } from "./sanctions-screening.ts";
import { openTreasuryKeys, type SignerSecrets, startSigner } from "./signer.ts";
import { transferTreasury } from "./transfer-treasury.ts";

export type Role = "api" | "indexer" | "worker" | "signer" | "all";

export interface RunningService {
  /** The HTTP address when the api role runs. */
  url: string | undefined;
  deps: AppDeps;
  stop(): Promise<void>;
}

const JOB_QUEUES = [PROVISION_CUSTOMER_JOB, ...KYC_AND_BANKING_QUEUES];

async function registerWorkers(jobs: JobQueue, deps: AppDeps): Promise<void> {
  await jobs.work<{ customerId: string }>(PROVISION_CUSTOMER_JOB, (data) => provisionCustomer(deps, data));
  await registerKycAndBankingWorkers(jobs, deps);
}

/**
 * Faucets for POST /v1/sandbox/deposits: every chain of the local sandbox, and in a configured
 * sandbox deployment the EVM chains that name a funded faucet key.
 */
function sandboxFaucets(chains: ChainsConfig, local: boolean): Partial<Record<ChainId, SandboxFaucet>> {
  const faucets: Partial<Record<ChainId, SandboxFaucet>> = {};
  for (const [chain, config] of Object.entries(chains) as Array<[ChainId, NonNullable<ChainsConfig[ChainId]>]>) {
    if (local || familyOf(chain).hasConfiguredFaucet?.(config)) faucets[chain] = createChainFaucet(config);
  }
  return faucets;
}

/**
 * Starts the roles of one process. `all` is what `pnpm start` runs: API, indexers, workers and the
 * signer together on one database. Only the signer role reads MASTER_MNEMONIC and TREASURY_MNEMONIC:
 * the others derive receive addresses from the public material it stores (createPublicCustody).
 */
export async function serve(options: {
  config: AppConfig;
  logger: Logger;
  role: Role;
  chains?: ChainsConfig;
  /** `--chains BASE,SOLANA`: index only these chains. */
  chainFilter?: string;
}): Promise<RunningService> {
  const { config, logger, role } = options;
  // The dashboard's ledger check (and anything else calling checkLedger here) runs every domain's checks.
  registerLedgerChecks();
  // Before anything opens: production refuses a /metrics without a token, and sandbox providers.
  if (config.environment === "production" && !config.metricsToken && (role === "api" || role === "all")) {
    throw new ConfigError(
      "METRICS_TOKEN",
      "required in production (GET /metrics answers only Authorization: Bearer <METRICS_TOKEN>)",
    );
  }
  refuseSandboxProviders(config);
  // Production without a list refuses to start here (SANCTIONS_SCREENING=off opts out, logged).
  const sanctions = await openSanctionsScreening(config, logger);
  const { db, mode } = await openMigratedDatabase(config, logger);
  let providers: Providers;
  try {
    // A bad RATES_FEEDS_FILE or RATES_BOUNDS_FILE is found here, when the files are read.
    providers = createProviders(config, db);
  } catch (error) {
    await db.close();
    throw error;
  }
  logger.info({ database: mode, role }, "database ready");
  logger.info(
    { rates: providers.rates.name, kyc: providers.kyc.name, banking: providers.banking.name },
    "providers ready",
  );
  // `pnpm start` in a sandbox without CHAINS_CONFIG runs real local chains; a single role never
  // does (an api-only process with its own chains would not see what the indexer process indexes).
  let sandbox: LocalSandbox | undefined;
  const localChains = !options.chains && !config.chains && role === "all" && config.environment === "sandbox";
  try {
    if (localChains) sandbox = await (await import("./local-sandbox.ts")).startLocalSandbox(logger);
  } catch (error) {
    await db.close();
    throw error;
  }
  const chains = options.chains ?? config.chains ?? sandbox?.chains ?? {};
  let custody: PublicCustody;
  // Set once the metrics registry and (signer, all) the pool filler exist; read by onShortage.
  let poolShortages: Counter<"pool"> | undefined;
  let pools: CustodyPoolFiller | undefined;
  let signerCustody: Custody | undefined;
  let encryption: ReturnType<typeof loadEncryptionKeyring>;
  let indexed: ChainId[] = [];
  let signerSecrets: SignerSecrets | undefined;
  try {
    // A bad --chains stops the start before anything runs.
    if (role === "indexer" || role === "all") indexed = selectChains(chains, options.chainFilter);
    if (sandbox) {
      // The local chains are new: whatever was indexed from the previous run's chains is gone.
      for (const chain of Object.keys(sandbox.chains) as ChainId[]) {
        const { reversed } = await forgetChain(db, chain);
        if (reversed > 0) {
          logger.warn(
            { chain, reversed },
            "local sandbox chain restarted from genesis: the previous run's deposits were reversed",
          );
        }
      }
    }
    // Secrets first: a wrong mnemonic or a missing encryption key must stop the start, before serving.
    if (role === "signer" || role === "all") signerCustody = await openCustody(db, config, logger, chains);
    encryption = loadEncryptionKeyring(config, { logger });
    await checkEncryptionKeys(db, encryption);
    if (role === "signer" || role === "all") signerSecrets = openTreasuryKeys(config, chains, logger);
    custody = await createPublicCustody(db, {
      bitcoinNetwork: bitcoinNetworkOf(config, chains),
      schemes: KEY_SCHEMES,
      onShortage: async (shortage) => {
        poolShortages?.inc({ pool: shortage.pool });
        logger.warn(shortage, "custody pool empty: wallet creation answers 503 until the signer refills it");
        // In `all` the signer runs here: fill now instead of failing the request.
        await pools?.fillNow();
      },
    });
  } catch (error) {
    await sandbox?.stop();
    await db.close();
    throw error;
  }
  const stops: Array<() => Promise<void>> = [];
  const jobs = await createJobQueue({ db, logger, queues: JOB_QUEUES, heartbeatSeconds: config.jobHeartbeatSeconds });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  poolShortages = new Counter({
    name: "payments_custody_pool_shortages_total",
    help: "Wallet slots asked for before the signer derived their public material (answered 503 unless refilled in-process), by pool",
    labelNames: ["pool"],
    registers: [metrics],
  });
  const addresses = {
    deriveWalletAddresses: (account: number, index: number) => custody.deriveWalletAddresses(account, index),
  };
  const deps: AppDeps = {
    db,
    logger,
    environment: config.environment,
    chains,
    jobs,
    rates: providers.rates,
    addresses,
    kyc: providers.kyc,
    banking: providers.banking,
    sanctions,
    encryption,
    metrics,
    metricsToken: config.metricsToken,
    faucets: config.environment === "sandbox" ? sandboxFaucets(chains, localChains) : {},
    rateLimitPerMinute: config.rateLimitPerMinute,
    transfers: config.transfers,
    paymentRequests: config.paymentRequests,
    paymentUri: paymentUriOf,
    isChainAddress,
    indexerStates: async () => (await getIndexerStates(db)).filter((state) => chains[state.chain] !== undefined),
    walletSlots: new WalletSlots(db, addresses),
  };
  // Who indexes each chain, read from the leases at every scrape of this process's /metrics.
  registerLeaderMetrics(metrics, deps.indexerStates);
  registerTreasuryMetrics(metrics, db);
  registerWebhookMetrics(metrics, db);
  registerPaymentRequestMetrics(metrics, db);
  registerLiquidationMetrics(metrics, db);
  registerSanctionsMetrics(metrics, db);
  if (sandbox) {
    const running = sandbox;
    stops.push(() => running.stop());
  }

  if (role === "indexer" || role === "all") {
    const indexers = await startIndexers({
      db,
      logger,
      chains,
      selected: indexed,
      rates: deps.rates,
      screening: sanctions,
      metrics,
      leaseSeconds: config.indexerLeaseSeconds,
    });
    stops.push(() => indexers.stop());
  }

  if (role === "worker" || role === "all") {
    await registerWorkers(jobs, deps);
    logger.info({ queues: JOB_QUEUES, heartbeatSeconds: config.jobHeartbeatSeconds }, "workers ready");
    const sweep = setInterval(() => {
      sweepIdempotencyKeys(db).catch((error: unknown) =>
        logger.warn({ err: String(error) }, "idempotency sweep failed"),
      );
      pruneEvents(db, config.eventRetentionDays).then(
        (deleted) => {
          if (deleted > 0) logger.info({ deleted, retentionDays: config.eventRetentionDays }, "old events pruned");
        },
        (error: unknown) => logger.warn({ err: String(error) }, "event prune failed"),
      );
    }, 3_600_000);
    sweep.unref();
    stops.push(async () => clearInterval(sweep));
    const webhooks = await startWebhookWorker({ db, keyring: encryption, logger, environment: config.environment });
    stops.push(() => webhooks.stop());
    const transferExecutor = startTransferExecutor({
      db,
      logger,
      treasury: transferTreasury,
      fundingWallets: fundingWallets(deps.walletSlots),
      sanctions,
      returnNetworkFeeUsdMicros: config.transfers.returnNetworkFeeUsdMicros,
      bank: { banking: providers.banking, keyring: encryption, logger },
    });
    stops.push(() => transferExecutor.stop());
    // Counts deposits to payment requests' addresses (the indexer credits them) and expires requests.
    const matcher = startPaymentRequestMatcher({
      db,
      logger,
      settings: { publicUrl: config.paymentRequests.publicUrl, chains, paymentUri: paymentUriOf },
    });
    stops.push(() => matcher.stop());
    // Turns confirmed deposits to liquidation addresses into BALANCE transfers the executor pays out.
    const drainer = startDrainer({
      db,
      keyring: encryption,
      rates: deps.rates,
      logger,
      settings: {
        spreadBps: config.transfers.spreadBps,
        feeFixedUsdMicros: config.liquidation.feeFixedUsdMicros,
        feeBps: config.liquidation.feeBps,
        travelRuleThresholdUsdMicros: config.transfers.travelRuleThresholdUsdMicros,
      },
      returns: {
        treasury: transferTreasury,
        screening: sanctions,
        networkFeeUsdMicros: config.transfers.returnNetworkFeeUsdMicros,
      },
    });
    stops.push(() => drainer.stop());
  }

  if (signerSecrets && signerCustody) {
    try {
      const signer = await startSigner({
        db,
        secrets: signerSecrets,
        custody: signerCustody,
        bitcoinNetwork: bitcoinNetworkOf(config, chains),
        leaseSeconds: config.indexerLeaseSeconds,
        logger,
        chains,
        ...(localChains ? { faucets: deps.faucets } : {}),
      });
      pools = signer.pools;
      stops.push(() => signer.stop());
    } catch (error) {
      // Another treasury's database, say: stop what runs already, then refuse the start.
      for (const stop of stops.reverse()) await stop();
      await jobs.stop();
      await db.close();
      throw error;
    }
  }

  let url: string | undefined;
  let server: Server | undefined;
  if (role === "api" || role === "all") {
    const targets = reconcileTargets(chains);
    const app = withDashboard(createApp(deps), { ...deps, appDeps: deps, chainTargets: () => targets });
    server = await new Promise<Server>((resolve, reject) => {
      const s = keepIdleConnections(app.listen(config.port, config.host, () => resolve(s)));
      s.once("error", reject);
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`;
    logger.info({ url }, "api listening");
  }

  let stopped = false;
  return {
    url,
    deps,
    async stop() {
      if (stopped) return;
      stopped = true;
      // Stop accepting, let in-flight requests finish, then close what they use.
      if (server) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      // Every stop runs even when one fails: the local sandbox's anvils (stopped last) never outlive us.
      const failures: unknown[] = [];
      for (const stop of stops.reverse()) await stop().catch((error: unknown) => failures.push(error));
      await jobs.stop();
      await db.close();
      if (failures.length > 0) throw failures[0];
      logger.info("stopped");
    },
  };
}

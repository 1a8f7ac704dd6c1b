import type { Server } from "node:http";
import {
  type AppDeps,
  createApp,
  KYC_AND_BANKING_QUEUES,
  PROVISION_CUSTOMER_JOB,
  provisionCustomer,
  registerKycAndBankingWorkers,
  sweepIdempotencyKeys,
} from "@mp/api";
import type { AppConfig, ChainsConfig, Logger } from "@mp/core";
import { createCustody, ensureRootFingerprint, resolveMnemonic } from "@mp/custody";
import { loadEncryptionKeyring } from "@mp/encryption";
import { createJobQueue, type JobQueue } from "@mp/jobs";
import { createSandboxBankingProvider, createSandboxKycProvider, createSandboxRateProvider } from "@mp/providers";
import { collectDefaultMetrics, Registry } from "prom-client";
import { checkEncryptionKeys } from "./cli/rotate-encryption.ts";
import { openMigratedDatabase } from "./runtime.ts";

export type Role = "api" | "indexer" | "worker" | "all";

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
 * Starts the roles of one process. `all` is what `pnpm start` runs: API, indexers and workers
 * together on one database.
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
  const { db, mode } = await openMigratedDatabase(config, logger);
  logger.info({ database: mode, role }, "database ready");
  const chains = options.chains ?? config.chains ?? {};
  let custody: ReturnType<typeof createCustody>;
  let encryption: ReturnType<typeof loadEncryptionKeyring>;
  try {
    // Secrets first: a wrong mnemonic or a missing encryption key must stop the start, before serving.
    const mnemonic = resolveMnemonic({
      source: config.mnemonic,
      environment: config.environment,
      dataDir: config.dataDir,
      logger,
    });
    custody = createCustody(mnemonic, { bitcoinNetwork: chains.BITCOIN?.network ?? "mainnet" });
    await ensureRootFingerprint(db, custody.fingerprint);
    encryption = loadEncryptionKeyring(config, { logger });
    await checkEncryptionKeys(db, encryption);
  } catch (error) {
    await db.close();
    throw error;
  }
  const stops: Array<() => Promise<void>> = [];
  const jobs = await createJobQueue({ db, logger, queues: JOB_QUEUES });
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics });
  const deps: AppDeps = {
    db,
    logger,
    environment: config.environment,
    chains,
    jobs,
    rates: createSandboxRateProvider(),
    addresses: { deriveWalletAddresses: (account, index) => custody.deriveWalletAddresses(account, index) },
    kyc: createSandboxKycProvider(),
    banking: createSandboxBankingProvider(),
    encryption,
    metrics,
    faucets: {},
    rateLimitPerMinute: config.rateLimitPerMinute,
    indexerStates: async () => [],
  };

  if (role === "worker" || role === "all") {
    await registerWorkers(jobs, deps);
    const sweep = setInterval(() => {
      sweepIdempotencyKeys(db).catch((error: unknown) =>
        logger.warn({ err: String(error) }, "idempotency sweep failed"),
      );
    }, 3_600_000);
    sweep.unref();
    stops.push(async () => clearInterval(sweep));
  }

  let url: string | undefined;
  let server: Server | undefined;
  if (role === "api" || role === "all") {
    const app = createApp(deps);
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.port, config.host, () => resolve(s));
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
      for (const stop of stops.reverse()) await stop();
      await jobs.stop();
      await db.close();
      logger.info("stopped");
    },
  };
}

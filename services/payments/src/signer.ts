import { writeSync } from "node:fs";
import {
  type AppConfig,
  type ChainConfig,
  type ChainId,
  type ChainsConfig,
  ConfigError,
  decimalToUnits,
  type Logger,
  type SandboxFaucet,
} from "@mp/core";
import {
  type BitcoinNetwork,
  type Custody,
  type CustodyPoolFiller,
  createDepositKeys,
  createTreasuryKeys,
  type DepositKeys,
  resolveMnemonic,
  resolveTreasuryMnemonic,
  startCustodyPoolFiller,
  type TreasuryKeys,
} from "@mp/custody";
import type { Database } from "@mp/db";
import {
  type ChainFamilyModule,
  createChainSenders,
  createSendPipeline,
  recordTreasuryAddresses,
  SEND_STAGES,
  type SendPipelineOptions,
  type SendStage,
  type SweepConfig,
  startBalancePoller,
  sweepConfigFromEnv,
  type TreasuryAddress,
  treasurySendAddresses,
  verifiedSenders,
} from "@mp/treasury";
import { bitcoinNetworkOf } from "./bitcoin-network.ts";
import { chainAssets } from "./chain-adapters.ts";
import { familyOf, KEY_SCHEMES } from "./chain-families.ts";
import { startSignerLeases } from "./signer-leases.ts";

/** What the local sandbox gives the treasury at each start, per asset: native coin, then tokens. */
const SANDBOX_TREASURY_FUNDING = { native: "10", token: "100000" } as const;

/**
 * PAYMENTS_TEST_HALT_AFTER (tests only, refused in production): the signer kills itself (SIGKILL,
 * no cleanup, like a power cut) at one step of a send (SEND_STAGES): `signed` (signed, before the
 * transaction storing it commits), `stored` (stored, before its broadcast), `broadcast` (the node
 * accepted it, before that is recorded) or `mined` (deep enough, before its confirmation is
 * recorded), so the crash tests hit those windows exactly instead of by timing.
 */
function testHalt(config: AppConfig, env: NodeJS.ProcessEnv): SendStage | undefined {
  const value = env.PAYMENTS_TEST_HALT_AFTER;
  if (value === undefined || value === "") return undefined;
  if (config.environment === "production") {
    throw new ConfigError("PAYMENTS_TEST_HALT_AFTER", "is a test hook; refused when PAYMENTS_ENV=production");
  }
  const stage = SEND_STAGES.find((s) => s === value);
  if (stage === undefined)
    throw new ConfigError("PAYMENTS_TEST_HALT_AFTER", `must be one of ${SEND_STAGES.join(", ")}`);
  return stage;
}

export interface RunningSigner {
  addresses: TreasuryAddress[];
  /** The receive-address pools this signer keeps filled (fillNow: the `all` role's API on a shortage). */
  pools: CustodyPoolFiller;
  stop(): Promise<void>;
}

/** What the signer holds, resolved before the process serves anything: a bad secret stops the start. */
export interface SignerSecrets {
  keys: TreasuryKeys;
  /** The deposit addresses' keys (MASTER_MNEMONIC), for sweeps: held by the signer only. */
  depositKeys: DepositKeys;
  /** SWEEP_THRESHOLDS, SWEEP_INTERVAL_SECONDS. */
  sweeps: SweepConfig;
  halt: SendStage | undefined;
}

/**
 * TREASURY_MNEMONIC resolved and its keys derived: only the signer role calls this, so no other
 * process ever reads the treasury's words (or its file).
 */
export function openTreasuryKeys(
  config: AppConfig,
  chains: ChainsConfig,
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): SignerSecrets {
  const halt = testHalt(config, env);
  // Read again only to refuse a treasury that is the master mnemonic: openCustody already checked it.
  const masterMnemonic = resolveMnemonic({
    source: config.mnemonic,
    environment: config.environment,
    dataDir: config.dataDir,
  });
  const mnemonic = resolveTreasuryMnemonic({
    source: config.treasuryMnemonic,
    environment: config.environment,
    dataDir: config.dataDir,
    logger,
    masterMnemonic,
  });
  const bitcoinNetwork = bitcoinNetworkOf(config, chains);
  return {
    keys: createTreasuryKeys(mnemonic, { bitcoinNetwork, schemes: KEY_SCHEMES }),
    depositKeys: createDepositKeys(masterMnemonic, { bitcoinNetwork, schemes: KEY_SCHEMES }),
    sweeps: sweepConfigFromEnv(env, config.environment),
    halt,
  };
}

/**
 * The signer role (DESIGN.md "Treasury and sending"): the only one that holds the treasury's private
 * keys. It records the treasury's send addresses (so keyless roles can list and watch them), builds
 * one sender per configured chain whose family has one, keeps the stored balances fresh and runs the
 * send pipeline. With `faucets` (the local sandbox) it first funds the treasury addresses, so
 * operator sends work out of the box.
 *
 * It is also the one role holding MASTER_MNEMONIC (`custody`): it derives the merchant accounts'
 * extended public keys and Solana receive addresses ahead into the pools the other roles read
 * (@mp/custody custody-pools.ts), filled once before this resolves and then kept filled.
 */
export async function startSigner(options: {
  db: Database;
  secrets: SignerSecrets;
  leaseSeconds: number;
  logger: Logger;
  chains: ChainsConfig;
  custody: Custody;
  bitcoinNetwork: BitcoinNetwork;
  faucets?: Partial<Record<ChainId, SandboxFaucet>>;
}): Promise<RunningSigner> {
  const { db, chains, secrets } = options;
  const { keys, halt } = secrets;
  const logger = options.logger.child({ role: "signer" });
  const addresses = treasurySendAddresses(keys, chains, familyOf);
  await recordTreasuryAddresses(db, addresses);
  logger.info(
    { fingerprint: keys.fingerprint, addresses: addresses.map((a) => `${a.chain}:${a.address}`) },
    "treasury addresses recorded",
  );

  // In the background: sends asked for meanwhile wait for funds, as they would in production.
  const funding = options.faucets ? fundFromFaucets(addresses, options.faucets, logger) : Promise.resolve();

  const senders = await verifiedSenders(createChainSenders({ chains, keys, db, logger, familyOf }), logger);
  const decimals = new Map<string, number>();
  const confirmations: SendPipelineOptions["confirmations"] = {};
  let pollIntervalMs = 1_000;
  for (const config of Object.values(chains)) {
    if (!config) continue;
    confirmations[config.chain] = config.confirmations;
    pollIntervalMs = Math.min(pollIntervalMs, config.pollIntervalMs);
    for (const asset of chainAssets(config)) decimals.set(`${config.chain}:${asset.asset}`, asset.decimals);
  }
  // Each family sweeps its chains that have a sender (deposits gathered into the treasury).
  const sweptBy = new Map<ChainFamilyModule, ChainConfig[]>();
  for (const sender of senders) {
    const config = chains[sender.chain];
    if (!config) continue;
    const family = familyOf(config.chain);
    sweptBy.set(family, [...(sweptBy.get(family) ?? []), config]);
  }
  const swept = [...sweptBy.values()].flat().map((c) => c.chain);
  const leases = await startSignerLeases({
    db,
    logger,
    seconds: options.leaseSeconds,
    names: [...senders.map((s) => `sender:${s.chain}`), ...swept.map((chain) => `sweeper:${chain}`)],
  });
  const balances = startBalancePoller({
    db,
    senders,
    logger,
    decimals: (chain, asset) => decimals.get(`${chain}:${asset}`),
  });
  const pipeline = createSendPipeline({
    db,
    senders,
    logger,
    confirmations,
    pollIntervalMs,
    leases: leases.keeper,
    ...(halt ? { onStage: haltAt(halt) } : {}),
  });
  pipeline.start();
  // Sweeps (each family's sweeper): deposits gathered into the treasury, top-ups through the pipeline above.
  const sweeperOptions = {
    db,
    depositKeys: secrets.depositKeys,
    treasuryKeys: keys,
    logger,
    config: secrets.sweeps,
    leases: leases.keeper,
  };
  const sweepers = [...sweptBy].map(([family, familyChains]) =>
    family.createSweeper({ ...sweeperOptions, chains: familyChains }),
  );
  for (const sweeper of sweepers) sweeper.start();
  const stopSweepers = () => Promise.all(sweepers.map((sweeper) => sweeper.stop()));
  const pools = startCustodyPoolFiller({
    db,
    custody: options.custody,
    bitcoinNetwork: options.bitcoinNetwork,
    logger,
  });
  /** Everything started above, stopped in the reverse order. */
  const stopAll = async (): Promise<void> => {
    await pools.stop();
    await stopSweepers();
    await pipeline.stop();
    await leases.stop();
    await balances.stop();
    await funding;
  };
  try {
    // Before the API of an `all` process answers: its first wallets find their addresses stored.
    await pools.fillNow();
  } catch (error) {
    await stopAll();
    throw error;
  }
  logger.info(
    {
      chains: senders.map((s) => s.chain),
      sweeps: swept,
      pollIntervalMs,
    },
    "signer started",
  );
  return {
    addresses,
    pools,
    stop: stopAll,
  };
}

function haltAt(stage: SendStage): NonNullable<SendPipelineOptions["onStage"]> {
  return (reached) => {
    if (reached.stage !== stage) return;
    // Synchronously, before the pipeline takes its next step: pino writes asynchronously and the
    // kill would swallow its line, so this one goes straight to stderr.
    writeSync(2, `${JSON.stringify({ msg: "PAYMENTS_TEST_HALT_AFTER", stage, attempt: reached.attemptId })}\n`);
    process.kill(process.pid, "SIGKILL");
  };
}

/**
 * The local sandbox's chains start from genesis at every start: the treasury gets native coin (for
 * value and fees) and every token from the chains' faucets. A faucet that fails is logged, never
 * fatal: sends then wait for funds, as they would in production.
 */
async function fundFromFaucets(
  addresses: readonly TreasuryAddress[],
  faucets: Partial<Record<ChainId, SandboxFaucet>>,
  logger: Logger,
): Promise<void> {
  await Promise.all(
    addresses.map(async ({ chain, address }) => {
      const faucet = faucets[chain];
      if (!faucet) return;
      // One after another per chain: an EVM faucet sends from one key, a nonce at a time.
      for (const asset of faucet.assets()) {
        const amount = asset.address === null ? SANDBOX_TREASURY_FUNDING.native : SANDBOX_TREASURY_FUNDING.token;
        const amountRaw = decimalToUnits(amount, asset.decimals) ?? 0n;
        try {
          const { txHash } = await faucet.send(address, asset.asset, amountRaw);
          logger.info({ chain, asset: asset.asset, amount, txHash }, "sandbox treasury funded");
        } catch (error) {
          logger.warn({ chain, asset: asset.asset, err: String(error) }, "sandbox treasury funding failed");
        }
      }
    }),
  );
}
